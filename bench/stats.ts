/** Percentile of a sample (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (!samples.length) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export function ms(value: number): string {
  return `${value.toFixed(2)} ms`
}

/** A difference in milliseconds as signed microseconds: what our side adds to the baseline's time. */
export function micros(differenceMs: number): string {
  const us = Math.round(differenceMs * 1000)
  return `${us >= 0 ? '+' : ''}${us} µs`
}

export function ratio(ours: number, baseline: number): string {
  return `${(ours / baseline).toFixed(2)}x`
}

export async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint()
  const value = await work()
  return [Number(process.hrtime.bigint() - start) / 1e6, value]
}

/** Wall time and this process's CPU time (user + system) of `work`, both in milliseconds. */
export async function timedWithCpu(work: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage()
  const [wallMs] = await timed(work)
  const used = process.cpuUsage(cpu)
  return { wallMs, cpuMs: (used.user + used.system) / 1000 }
}

/**
 * The ratio of paired samples: `ours[i] / baseline[i]` for each round, where a round measured both
 * sides back to back on the same server state. Its median and quartiles: drift of the machine (a
 * burst of load, a frequency step) moves both halves of a round together and cancels in its ratio,
 * which the ratio of two separately taken percentiles does not.
 */
export function pairedRatio(ours: readonly number[], baseline: readonly number[]): { median: number; p25: number; p75: number } {
  if (ours.length !== baseline.length) throw new Error(`paired samples differ in length: ${ours.length} against ${baseline.length}`)
  const ratios = ours.map((value, index) => value / baseline[index]!)
  return { median: percentile(ratios, 50), p25: percentile(ratios, 25), p75: percentile(ratios, 75) }
}

/** A paired ratio as `1.04x (1.01-1.08)`: the median of the rounds' ratios and its interquartile range. */
export function pairedRatioText(paired: { median: number; p25: number; p75: number }): string {
  return `${paired.median.toFixed(2)}x (${paired.p25.toFixed(2)}-${paired.p75.toFixed(2)})`
}
