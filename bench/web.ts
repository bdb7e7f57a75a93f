import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, untracked, type Host } from 'dsh-core'
import { NetworkGuard } from 'dsh-web-fetch-http'
import { Agent, request } from 'undici'
import { ms, percentile, ratio, timed } from './stats.ts'

// web_fetch through the base preset (ctx.tools.execute → ctx.web → dsh-web-fetch-http with the
// guard, opened to loopback by an overlay → render) against a bare undici.request reading the same
// loopback responses from a server in another process, interleaved request by request.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const SMALL = Number(process.env.BENCH_WEB_REQUESTS ?? 500)
const BYTE_CAP = 5_000_000

async function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(join(REPO, 'bench/web-server.mjs'), [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (data: Buffer) => resolve(data.toString().trim())))
  return { child, origin: `http://127.0.0.1:${port}` }
}

async function bootOurs(): Promise<{ host: Host; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-web-'))
  const overlay = join(dir, 'loopback.yml')
  writeFileSync(overlay, '- id: web-fetch-http\n  config:\n    allowedCidrs: [127.0.0.0/8]\n    maxBodyChars: 10000000\n- id: tool-web\n  config:\n    fetchMaxOutputChars: 20000000\n')
  const host = await bootPreset({ preset: join(REPO, 'presets/base.yml'), overlays: [overlay] })
  return { host, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

type Tools = Host['app']['tools']
type Ours = (url: string) => Promise<number>

/** One web_fetch through the tools runtime; returns the characters of the body it read. */
async function ours(tools: Tools, url: string): Promise<number> {
  const result = await tools.execute({ name: 'web_fetch', arguments: { url } })
  if (result.isError) throw new Error(`${url}: ${result.error.code} ${result.error.message}`)
  return (result.value as { body: { content: string } }).body.content.length
}

/** What a bare client does: one request, the whole body read as it streams. */
async function bare(agent: Agent, url: string, decode: boolean): Promise<number> {
  const response = await request(url, { dispatcher: agent })
  if (decode) return (await response.body.text()).length
  let bytes = 0
  for await (const chunk of response.body) bytes += (chunk as Buffer).byteLength
  return bytes
}

async function latency(mineOf: Ours, agent: Agent, url: string, label: string): Promise<string> {
  for (let i = 0; i < 50; i++) await Promise.all([mineOf(url), bare(agent, url, true)])
  const mine: number[] = []
  const theirs: number[] = []
  for (let i = 0; i < SMALL; i++) {
    // Alternate who goes first so neither side always gets the warmer path.
    if (i % 2) {
      mine.push((await timed(() => mineOf(url)))[0])
      theirs.push((await timed(() => bare(agent, url, true)))[0])
    } else {
      theirs.push((await timed(() => bare(agent, url, true)))[0])
      mine.push((await timed(() => mineOf(url)))[0])
    }
  }
  const [o50, b50, o95, b95] = [percentile(mine, 50), percentile(theirs, 50), percentile(mine, 95), percentile(theirs, 95)]
  return `${label.padEnd(34)} ${ms(o50).padStart(10)}  ${ms(b50).padStart(10)}  ${ratio(o50, b50).padStart(6)}  ${ms(o95).padStart(10)}  ${ms(b95).padStart(10)}  ${ratio(o95, b95).padStart(6)}`
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
    theirs.push((await timed(() => bare(agent, url, false)))[0])
  }
  const [o, b] = [percentile(mine, 50), percentile(theirs, 50)]
  const mbps = (bytes: number, millis: number) => `${((bytes / 1e6) / (millis / 1000)).toFixed(0)} MB/s`
  return `${`${size / 1e6} MB body`.padEnd(12)} ours read ${(read / 1e6).toFixed(1)} MB in ${ms(o)} (${mbps(read, o)}), bare read ${(size / 1e6).toFixed(1)} MB in ${ms(b)} (${mbps(size, b)}); time ratio ${ratio(o, b)}`
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

export async function benchWeb(): Promise<string[]> {
  const { child, origin } = await startServer()
  const { host, remove } = await bootOurs()
  const tools = host.app.tools
  const agent = new Agent()
  const lines: string[] = []
  try {
    lines.push(`latency, ${SMALL} requests per side, interleaved`)
    lines.push('page, path                           ours p50    bare p50    ratio   ours p95    bare p95    ratio')
    const small = `${origin}/small.txt`
    // The host's tools runtime, reached as a harness holding the service would (cordis caller tracking included).
    lines.push(await latency((url) => ours(tools, url), agent, small, 'small text, web_fetch tool'))
    // The same without cordis's per-call caller tracking (dsh-core's `untracked`).
    lines.push(await latency((url) => ours(untracked(tools), url), agent, small, 'small text, tool, runtime untracked'))
    // Below the tools runtime: selection, the provider with its guard, and the body read.
    const web = untracked(host.app.web)
    lines.push(await latency(async (url) => (await web.fetch({ url })).body.content.length, agent, small, 'small text, ctx.web.fetch'))
    lines.push(await latency((url) => ours(tools, url), agent, `${origin}/small.html`, 'small HTML → Markdown, tool'))
    lines.push(await throughput(tools, agent, origin, 1_000_000, 20))
    lines.push(await throughput(tools, agent, origin, 50_000_000, 5))
    const oursGrowth = await peakRssGrowth(() => ours(tools, `${origin}/bytes/500000000`))
    const bareGrowth = await peakRssGrowth(() => bare(agent, `${origin}/bytes/500000000`, false))
    lines.push(
      `500 MB body, peak RSS growth: ours ${(oursGrowth / 1e6).toFixed(1)} MB (byte cap ${BYTE_CAP / 1e6} MB → ${(oursGrowth / BYTE_CAP).toFixed(2)}x the cap), bare streaming all 500 MB ${(bareGrowth / 1e6).toFixed(1)} MB`,
    )
    lines.push(await guardCost())
  } finally {
    await agent.destroy()
    await host.stop()
    remove()
    child.kill()
  }
  return lines
}
