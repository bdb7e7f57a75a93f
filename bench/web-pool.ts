import { ms, percentile, ratio, timed } from './stats.ts'
import { startServer } from './web.ts'
import { boot } from './web-loop.ts'

// Issue 27: what the hop to a converter process costs one page just above conversionWorkerMinChars
// (8 KB). Ours: web_fetch of a 16 KB and a 64 KB page (bench/web-server.mjs /worst/<n>) on the base
// preset with one converter (`conversionWorkers: 1`, `conversionWorkerMinChars` as shipped); the
// baseline in the same run: the same preset with `conversionWorkers: 0`, the page converted on the
// event loop. Rounds alternate the two hosts; the first rounds warm both (the converter started, the
// converter's code loaded on both sides) and are not counted.

const ROUNDS = Number(process.env.BENCH_WEB_POOL_ROUNDS ?? 200)
const WARMUP = 20

export async function benchWebPool(): Promise<string[]> {
  const { child, origin } = await startServer()
  const pool = await boot(1)
  const inline = await boot(0)
  try {
    const lines = [`web_fetch of one page just above conversionWorkerMinChars, ${ROUNDS} rounds after ${WARMUP} warm-up, alternating: one converter process against the event loop`]
    lines.push(`  ${'page'.padEnd(24)} ${'converter p50'.padStart(14)} ${'event loop p50'.padStart(15)} ${'ratio'.padStart(7)} ${'converter p95'.padStart(14)} ${'event loop p95'.padStart(15)} ${'ratio'.padStart(7)}`)
    for (const paragraphs of [2_000, 8_000]) {
      const url = `${origin}/worst/${paragraphs}`
      const sides = [pool, inline].map(({ host }) => ({ execute: host.app.tools.execute.bind(host.app.tools), samples: [] as number[] }))
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        for (const side of round % 2 ? [...sides].reverse() : sides) {
          const [took, result] = await timed(() => side.execute({ name: 'web_fetch', arguments: { url } }))
          if (result.isError) throw new Error(`${url}: ${result.error.code} ${result.error.message}`)
          if (round >= WARMUP) side.samples.push(took)
        }
      }
      const [ours, base] = sides.map((side) => side.samples) as [number[], number[]]
      const p = (samples: number[], q: number) => percentile(samples, q)
      lines.push(
        `  ${`${((paragraphs * 8) / 1000).toFixed(0)} kB (${paragraphs} <p>)`.padEnd(24)} ${ms(p(ours, 50)).padStart(14)} ${ms(p(base, 50)).padStart(15)} ${ratio(p(ours, 50), p(base, 50)).padStart(7)} ${ms(p(ours, 95)).padStart(14)} ${ms(p(base, 95)).padStart(15)} ${ratio(p(ours, 95), p(base, 95)).padStart(7)}`,
      )
    }
    return lines
  } finally {
    await pool.host.stop()
    pool.remove()
    await inline.host.stop()
    inline.remove()
    child.kill()
  }
}
