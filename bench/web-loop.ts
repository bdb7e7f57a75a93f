import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, type Host } from 'dsh-core'
import { ms, percentile, ratio, timed } from './stats.ts'
import { startServer } from './web.ts'

// Issue 31 item 4: what a worst-case page's conversion does to the other calls of one host. Ours:
// the base preset with its conversion pool (conversionWorkers 2); the baseline, in the same run:
// the same preset with conversionWorkers 0 (every page converted on the event loop, as before).
// While one web_fetch of a worst-case page (bench/web-server.mjs /worst/<n>) converts, a small text
// fetch runs every 10 ms; we report the event loop's delay (the longest late tick of a 5 ms
// interval, and its p99) and those fetches' latency.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const PARAGRAPHS = Number(process.env.BENCH_WEB_WORST_PARAGRAPHS ?? 250_000)
const TICK_MS = 5

/** The base preset with loopback opened, the cache off and `workers` converter processes (0: every page on the event loop). */
export async function boot(workers: number): Promise<{ host: Host; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-web-loop-'))
  const overlay = join(dir, 'loopback.yml')
  writeFileSync(overlay, `- id: web-fetch-http\n  config:\n    allowedCidrs: [127.0.0.0/8]\n- id: tool-web\n  config:\n    cacheTtlMs: 0\n    conversionWorkers: ${workers}\n`)
  const host = await bootPreset({ preset: join(REPO, 'presets/base.yml'), overlays: [overlay] })
  return { host, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

interface Run {
  readonly worstMs: number
  readonly delayP99: number
  readonly delayMax: number
  readonly smallCalls: number
  readonly smallP50: number
  readonly smallMax: number
}

async function run(origin: string, workers: number): Promise<Run> {
  const { host, remove } = await boot(workers)
  const tools = host.app.tools
  const fetchOne = async (url: string) => {
    const result = await tools.execute({ name: 'web_fetch', arguments: { url } })
    if (result.isError) throw new Error(`${url}: ${result.error.code} ${result.error.message}`)
  }
  try {
    // Warm: the workers started and the converter loaded, so the run times conversions, not start-up.
    await Promise.all([fetchOne(`${origin}/worst/2000`), fetchOne(`${origin}/worst/2000`)])
    for (let i = 0; i < 50; i++) await fetchOne(`${origin}/small.txt`)
    const small: number[] = []
    const late: number[] = []
    let converting = true
    let tick = performance.now()
    const sampler = setInterval(() => {
      const now = performance.now()
      late.push(Math.max(0, now - tick - TICK_MS))
      tick = now
    }, TICK_MS)
    const worst = timed(() => fetchOne(`${origin}/worst/${PARAGRAPHS}`)).finally(() => (converting = false))
    // Each small fetch is due 10 ms after the last answered; its latency runs from when it was due,
    // so a loop blocked by a conversion counts against it.
    while (converting) {
      const due = performance.now() + 10
      await new Promise((resolve) => setTimeout(resolve, 10))
      await fetchOne(`${origin}/small.txt`)
      small.push(performance.now() - due)
    }
    const [worstMs] = await worst
    // One more tick, so a stretch the conversion blocked is counted.
    await new Promise((resolve) => setTimeout(resolve, TICK_MS * 2))
    clearInterval(sampler)
    return { worstMs, delayP99: percentile(late, 99), delayMax: Math.max(...late), smallCalls: small.length, smallP50: percentile(small, 50), smallMax: Math.max(...small) }
  } finally {
    await host.stop()
    remove()
  }
}

export async function benchWebLoop(): Promise<string[]> {
  const { child, origin } = await startServer()
  try {
    const pool = await run(origin, 2)
    const inline = await run(origin, 0)
    const row = (label: string, value: (r: Run) => number, format: (n: number) => string = ms) =>
      `  ${label.padEnd(44)} ${format(value(pool)).padStart(10)} ${format(value(inline)).padStart(12)} ${ratio(value(pool), value(inline)).padStart(8)}`
    return [
      `event loop while one worst-case page (${PARAGRAPHS} paragraphs, ${((PARAGRAPHS * 8) / 1e6).toFixed(1)} MB) converts, a small text fetch every 10 ms beside it`,
      `  ${''.padEnd(44)} ${'pool (2)'.padStart(10)} ${'event loop'.padStart(12)} ${'ratio'.padStart(8)}`,
      row('worst-case web_fetch, wall', (r) => r.worstMs),
      row('event-loop delay p99', (r) => r.delayP99),
      row('event-loop delay max', (r) => r.delayMax),
      row('small fetches answered meanwhile', (r) => r.smallCalls, (n) => String(n)),
      row('small fetch p50, due to answered', (r) => r.smallP50),
      row('small fetch max, due to answered', (r) => r.smallMax),
    ]
  } finally {
    child.kill()
  }
}
