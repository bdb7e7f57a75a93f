import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, untracked, type Host, type ToolResult } from 'dsh-core'
import type { WebFetchBody } from 'dsh-web'
import { FetchHttpConfig, HttpFetchProvider, NetworkGuard } from 'dsh-web-fetch-http'
import { htmlToMarkdown } from 'dsh-tool-web/convert'
import { Agent, request } from 'undici'
import { ms, percentile, ratio, timed } from './stats.ts'
import { onTheBuild, WEB_PACKAGES } from './built.ts'
import { benchWebHtml } from './web-html.ts'

// web_fetch through the base preset (ctx.tools.execute → ctx.web → dsh-web-fetch-http with the
// guard, opened to loopback by an overlay → render) against a bare undici.request reading and
// decoding the same loopback responses from a server in another process. The latency table also
// times each layer below the tool in the same rounds, so the gap is broken down by layer.

const REPO = fileURLToPath(new URL('../', import.meta.url))
// Rounds of the latency table; fewer than ~1000 leave the JIT's warm-up in the p50.
const SMALL = Number(process.env.BENCH_WEB_ROUNDS ?? 2000)
const BYTE_CAP = 5_000_000

export async function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(join(REPO, 'bench/web-server.mjs'), [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (data: Buffer) => resolve(data.toString().trim())))
  return { child, origin: `http://127.0.0.1:${port}` }
}

export async function bootOurs(): Promise<{ host: Host; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-web-'))
  const overlay = join(dir, 'loopback.yml')
  writeFileSync(overlay, '- id: web-fetch-http\n  config:\n    allowedCidrs: [127.0.0.0/8]\n    maxBodyChars: 10000000\n- id: tool-web\n  config:\n    fetchMaxOutputChars: 20000000\n    fetchMaxElements: 100000000\n    cacheTtlMs: 0\n')
  const host = await bootPreset({ preset: join(REPO, 'presets/base.yml'), overlays: [overlay] })
  return { host, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

type Tools = Host['app']['tools']

/** One web_fetch through the tools runtime, `execute` read from it per call; returns the characters of the body it read. */
async function ours(tools: Tools, url: string): Promise<number> {
  return bodyChars(url, await tools.execute({ name: 'web_fetch', arguments: { url } }))
}

/** The same through an `execute` the caller took from `ctx.tools` once. */
async function oursThrough(execute: Tools['execute'], url: string): Promise<number> {
  return bodyChars(url, await execute({ name: 'web_fetch', arguments: { url } }))
}

function bodyChars(url: string, result: ToolResult): number {
  if (result.isError) throw new Error(`${url}: ${result.error.code} ${result.error.message}`)
  return (result.value as { body: { content: string } }).body.content.length
}

/** What a bare client does: one request, the whole body read as it streams (and decoded, for pages). */
async function bare(agent: Agent, url: string, decode: boolean): Promise<number> {
  const response = await request(url, { dispatcher: agent })
  if (decode) return (await response.body.text()).length
  let bytes = 0
  for await (const chunk of response.body) bytes += (chunk as Buffer).byteLength
  return bytes
}

type Side = readonly [label: string, run: (url: string) => Promise<number>]

/** The same through the Agent with origin and path given apart, as the provider calls it. */
async function bareByOrigin(agent: Agent, url: string): Promise<number> {
  const { origin, pathname } = new URL(url)
  const response = await agent.request({ origin, path: pathname, method: 'GET' })
  return (await response.body.text()).length
}

/**
 * p50 and p95 of each side on one URL, measured in one loop: every round runs every side once, in
 * an order that alternates, so machine load and warm-up spread over all sides alike. The first
 * side is the baseline the ratios divide by.
 */
async function latency(url: string, sides: readonly Side[]): Promise<{ lines: string[]; p50: Map<string, number> }> {
  for (let i = 0; i < 300; i++) for (const [, run] of sides) await run(url)
  const samples = sides.map(() => [] as number[])
  for (let round = 0; round < SMALL; round++) {
    const order = round % 2 ? sides.map((_, index) => index) : sides.map((_, index) => sides.length - 1 - index)
    for (const index of order) samples[index]!.push((await timed(() => sides[index]![1](url)))[0])
  }
  const [b50, b95] = [percentile(samples[0]!, 50), percentile(samples[0]!, 95)]
  const p50 = new Map<string, number>()
  const lines = sides.map(([label], index) => {
    const [o50, o95] = [percentile(samples[index]!, 50), percentile(samples[index]!, 95)]
    p50.set(label, o50)
    return `  ${label.padEnd(44)} ${ms(o50).padStart(9)}  ${ratio(o50, b50).padStart(6)}  ${ms(o95).padStart(9)}  ${ratio(o95, b95).padStart(6)}`
  })
  return { lines, p50 }
}

async function throughput(tools: Tools, agent: Agent, origin: string, size: number, rounds: number): Promise<string> {
  const url = `${origin}/bytes/${size}`
  const mine: number[] = []
  const theirs: number[] = []
  let read = 0
  for (let i = 0; i < rounds; i++) {
    const [oursMs, chars] = await timed(() => ours(tools, url))
    read = chars
    mine.push(oursMs)
    theirs.push((await timed(() => bare(agent, url, true)))[0])
  }
  const [o, b] = [percentile(mine, 50), percentile(theirs, 50)]
  const mbps = (bytes: number, millis: number) => `${((bytes / 1e6) / (millis / 1000)).toFixed(0)} MB/s`
  return `${`${size / 1e6} MB body`.padEnd(12)} ours read ${(read / 1e6).toFixed(1)} MB in ${ms(o)} (${mbps(read, o)}), bare read and decoded ${(size / 1e6).toFixed(1)} MB in ${ms(b)} (${mbps(size, b)}); time ratio ${ratio(o, b)}`
}

/** Peak RSS above the level before the call, sampled every 5 ms while `work` runs. */
async function peakRssGrowth(work: () => Promise<unknown>): Promise<number> {
  globalThis.gc?.()
  const before = process.memoryUsage.rss()
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5)
  try {
    await work()
  } finally {
    clearInterval(sampler)
  }
  return Math.max(peak, process.memoryUsage.rss()) - before
}

/** htmlToMarkdown (turndown and its DOM) on the page, CPU only: the part of the HTML row the bare client does not do. */
async function conversionCost(html: string): Promise<string> {
  const runs: number[] = []
  for (let i = 0; i < 300; i++) runs.push((await timed(async () => htmlToMarkdown(html)))[0])
  return `  HTML → Markdown conversion alone (htmlToMarkdown: linkedom, cleaning, turndown), p50 of the last 200 of 300: ${ms(percentile(runs.slice(100), 50))}`
}

async function guardCost(): Promise<string> {
  const guard = new NetworkGuard({ allowPrivateNetwork: false, allowedCidrs: ['127.0.0.0/8'], deniedCidrs: [] }, async () => [
    { address: '93.184.215.14', family: 4 },
    { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
  ])
  const per = async (host: string) => {
    const rounds = 20_000
    for (let i = 0; i < 2000; i++) (await guard.pin(host))()
    const [total] = await timed(async () => {
      for (let i = 0; i < rounds; i++) (await guard.pin(host))()
    })
    return `${((total * 1000) / rounds).toFixed(1)} µs`
  }
  return `guard cost per request (resolve + check every answer + pin, DNS excluded): address literal ${await per('127.0.0.1')}, name with 2 answers ${await per('example.test')}`
}

/** `pnpm bench web`, ours on the built packages (bench/built.ts). */
export function benchWeb(): Promise<string[]> {
  return onTheBuild('web', WEB_PACKAGES, measureWeb)
}

async function measureWeb(): Promise<string[]> {
  const { child, origin } = await startServer()
  const { host, remove } = await bootOurs()
  const tools = host.app.tools
  const web = untracked(host.app.web)
  // The same provider the preset mounts, called directly: what the seam adds is the difference.
  const provider = new HttpFetchProvider({ config: FetchHttpConfig.parse({ allowedCidrs: ['127.0.0.0/8'], maxBodyChars: 10_000_000 }) })
  const agent = new Agent()
  const lines: string[] = []
  try {
    const bareSide: Side = ['bare undici.request + body.text()', (url) => bare(agent, url, true)]
    const webSide: Side = ['ctx.web.fetch (seam + provider)', async (url) => textLength((await web.fetch({ url })).body)]
    // The host's tools runtime reached as a harness holding the service would, reading `execute` per call:
    // through cordis's caller tracking (a read builds nothing since the runtime is a root property: answerAsProperty).
    const toolSide: Side = ['web_fetch through ctx.tools.execute', (url) => ours(tools, url)]
    // `execute` taken from the tracked `ctx.tools` once (it does not use its receiver): the harness pattern.
    const { execute } = tools
    const heldSide: Side = ['web_fetch, execute taken once from ctx.tools', (url) => oursThrough(execute, url)]
    lines.push(`latency, ${SMALL} rounds; each round runs every side once, in alternating order; ratios against the first line`)
    lines.push(`  ${'small text page (864 B)'.padEnd(44)} ${'p50'.padStart(9)}  ${'ratio'.padStart(6)}  ${'p95'.padStart(9)}  ${'ratio'.padStart(6)}`)
    const providerSide: Side = ['provider.fetch (http provider, guard on)', async (url) => textLength((await provider.fetch({ url })).body)]
    // dsh-core's `untracked`: the runtime without cordis's per-call caller tracking (unwrapped once, outside the timed call).
    const untrackedTools = untracked(tools)
    const untrackedSide: Side = ['web_fetch, tools runtime untracked', (url) => ours(untrackedTools, url)]
    const small = await latency(`${origin}/small.txt`, [
      bareSide,
      // undici's top-level request() turns the URL string into origin and path; the provider hands its Agent both itself.
      ['  (reference: bare agent.request(origin, path))', (url) => bareByOrigin(agent, url)],
      providerSide,
      webSide,
      untrackedSide,
      heldSide,
      toolSide,
    ])
    lines.push(...small.lines)
    const delta = ([more]: Side, [less]: Side) => `${((small.p50.get(more)! - small.p50.get(less)!) * 1000).toFixed(0)} µs`
    lines.push(
      `  p50 breakdown: provider ${delta(providerSide, bareSide)} over bare, seam ${delta(webSide, providerSide)}, ` +
        `tools runtime ${delta(untrackedSide, webSide)}, cordis tracking ${delta(heldSide, untrackedSide)} with execute taken once, ` +
        `${delta(toolSide, untrackedSide)} reading ctx.tools.execute per call`,
    )
    lines.push(`  ${'small HTML page (1.1 kB) → Markdown'.padEnd(44)}`)
    // The bare client decodes the text but converts nothing; the next line times the conversion alone.
    lines.push(...(await latency(`${origin}/small.html`, [bareSide, toolSide])).lines)
    lines.push(await conversionCost(await (await request(`${origin}/small.html`, { dispatcher: agent })).body.text()))
    // Before the throughput rows: the bare side's 50 MB decode leaves the heap (and RSS) grown, which would hide any growth here.
    const oursGrowth = await peakRssGrowth(() => ours(tools, `${origin}/bytes/500000000`))
    const bareGrowth = await peakRssGrowth(() => bare(agent, `${origin}/bytes/500000000`, false))
    lines.push(
      `500 MB body, peak RSS growth: ours ${(oursGrowth / 1e6).toFixed(1)} MB (byte cap ${BYTE_CAP / 1e6} MB → ${(oursGrowth / BYTE_CAP).toFixed(2)}x the cap), bare streaming all 500 MB ${(bareGrowth / 1e6).toFixed(1)} MB`,
    )
    lines.push(await throughput(tools, agent, origin, 1_000_000, 20))
    lines.push(await throughput(tools, agent, origin, 50_000_000, 5))
    lines.push(await guardCost())
    lines.push(...(await benchWebHtml()))
  } finally {
    await agent.destroy()
    await provider.close()
    await host.stop()
    remove()
    child.kill()
  }
  return lines
}

/** A fetched body's length in characters (bytes for a PDF). */
function textLength(body: WebFetchBody): number {
  return body.kind === 'pdf' ? body.bytes.byteLength : body.content.length
}
