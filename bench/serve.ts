import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { bootPreset, untracked, type Host } from 'dsh-core'
import { DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_READ_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_ANSWER_TIMEOUT_MS } from '../packages/cli/cli/src/serve-args.ts'
import { serve } from '../packages/cli/cli/src/serve.ts'
import { ms, percentile, ratio, timed } from './stats.ts'

// The added cost of the MCP hop: an `lsp` hover from an SDK client through `dsh serve --preset coding`
// against the same hover through `ctx.tools.execute` in process (each side with its own warm server
// on its own copy of the project), interleaved call by call.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const BIN = join(REPO, 'packages/cli/cli/bin/dsh.mjs')
const CALLS = Number(process.env.BENCH_SERVE_CALLS ?? 300)
const HOVER = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 }

/** CPU time a process has used so far, all its threads (the kernel's per-thread run time, in ns). */
function processCpuMs(pid: number): number {
  let total = 0
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]) / 1e6
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total
}

function workspaceCopy(): { dir: string; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-serve-')))
  const dir = join(root, 'ts-project')
  cpSync(FIXTURE, dir, { recursive: true })
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) }
}

export async function benchServe(): Promise<string[]> {
  const served = workspaceCopy()
  const local = workspaceCopy()
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--preset', 'coding', '--cwd', served.dir], stderr: 'ignore' })
  const client = new Client({ name: 'bench-serve', version: '0' })
  const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
  // A harness holds its services and makes effect-free calls untracked (as bench/mcp.ts does);
  // `dsh serve` calls its runtime the same way.
  const { tools, sessions } = { tools: untracked(host.app.tools), sessions: host.app.sessions }
  const session = sessions.create({ cwd: local.dir })
  try {
    await client.connect(transport)
    const viaServe = async () => {
      const result = await client.callTool({ name: 'lsp', arguments: HOVER })
      if (result.isError) throw new Error(`serve: ${JSON.stringify(result.content)}`)
    }
    const inProcess = async () => {
      const result = await tools.execute({ name: 'lsp', arguments: HOVER, session })
      if (result.isError) throw new Error(`in process: ${result.error.code} ${result.error.message}`)
    }
    const ping = async () => void (await client.ping())
    for (let i = 0; i < 20; i++) await Promise.all([viaServe(), inProcess(), ping()])
    const serveSamples: number[] = []
    const localSamples: number[] = []
    const pingSamples: number[] = []
    // What one round adds through serve, paired with its neighbour in process: load that comes and
    // goes during the run shifts both alike, so this varies less than the difference of the medians.
    const addedSamples: number[] = []
    // CPU time, which the machine's load hardly changes: this process's for each call (an SDK
    // client's work for a served call, the whole call in process), and the serve process's, which is
    // idle but for the served calls and pings.
    const cpu = { serve: 0, local: 0, ping: 0 }
    const withCpu = async (side: keyof typeof cpu, work: () => Promise<void>) => {
      const before = process.cpuUsage()
      const [elapsed] = await timed(work)
      const used = process.cpuUsage(before)
      cpu[side] += (used.user + used.system) / 1000
      return elapsed
    }
    const serverPid = transport.pid
    if (serverPid === null) throw new Error('dsh serve has no pid')
    const serverCpuBefore = processCpuMs(serverPid)
    for (let i = 0; i < CALLS; i++) {
      const [first, second] = i % 2 ? (['serve', 'local'] as const) : (['local', 'serve'] as const)
      const sides = { serve: viaServe, local: inProcess }
      const a = await withCpu(first, sides[first])
      const b = await withCpu(second, sides[second])
      const [served, local] = i % 2 ? [a, b] : [b, a]
      serveSamples.push(served)
      localSamples.push(local)
      addedSamples.push(served - local)
      pingSamples.push(await withCpu('ping', ping))
    }
    const serverCpu = processCpuMs(serverPid) - serverCpuBefore
    // The pings' share of the server's CPU is taken as their share of this side's client CPU.
    const serverPerCall = (serverCpu * (cpu.serve / (cpu.serve + cpu.ping))) / CALLS
    const cpuServe = cpu.serve / CALLS + serverPerCall
    const cpuLocal = cpu.local / CALLS
    const p50 = [percentile(serveSamples, 50), percentile(localSamples, 50)] as const
    const p95 = [percentile(serveSamples, 95), percentile(localSamples, 95)] as const
    return [
      `lsp hover, ${CALLS} calls per side, interleaved; each side has its own warm typescript-language-server; load average ${loadavg()[0]!.toFixed(2)} at the end`,
      'side                          p50         p95',
      `through dsh serve (MCP)   ${ms(p50[0]).padStart(10)}  ${ms(p95[0]).padStart(10)}`,
      `ctx.tools.execute         ${ms(p50[1]).padStart(10)}  ${ms(p95[1]).padStart(10)}`,
      `added by the MCP hop      ${ms(p50[0] - p50[1]).padStart(10)}  ${ms(p95[0] - p95[1]).padStart(10)}   ratio p50 ${ratio(p50[0], p50[1])}, p95 ${ratio(p95[0], p95[1])}`,
      `added, paired per round   ${ms(percentile(addedSamples, 50)).padStart(10)}`,
      `MCP ping round trip       ${ms(percentile(pingSamples, 50)).padStart(10)}  ${ms(percentile(pingSamples, 95)).padStart(10)}   (the SDK answers it: pipe and framing both ways, no tool)`,
      `CPU per call: through serve ${ms(cpuServe)} (client ${ms(cpu.serve / CALLS)}, dsh serve ${ms(serverPerCall)}), in process ${ms(cpuLocal)}; added by the hop ${ms(cpuServe - cpuLocal)}`,
      ...(await serveMachinery(host)),
    ]
  } finally {
    await client.close().catch(() => {})
    await host.stop()
    served.remove()
    local.remove()
  }
}

/**
 * `serve()`'s own work per call without the pipe and the other process: a `tools/call` line for a
 * tool that does nothing is written into serve's stdin stream in this process and its answer line
 * read back, against `ctx.tools.execute` of the same tool. The difference is what our transport,
 * the SDK's server and our route add; unlike the figures above, load hardly moves it.
 */
async function serveMachinery(host: Host): Promise<string[]> {
  const app = host.app
  const unregister = app.tools.register({ name: 'bench_noop', description: 'Does nothing.', parameters: { type: 'object' }, execute: async () => ({ ok: true }) })
  const tools = untracked(app.tools)
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const abort = new AbortController()
  let pending = ''
  const answers = new Map<number, () => void>()
  stdout.setEncoding('utf8')
  stdout.on('data', (chunk: string) => {
    pending += chunk
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      const answer = JSON.parse(pending.slice(0, at)) as { id?: number }
      pending = pending.slice(at + 1)
      if (typeof answer.id === 'number') answers.get(answer.id)?.()
    }
  })
  let id = 0
  const request = (method: string, params: object) =>
    new Promise<void>((resolve) => {
      answers.set(++id, resolve)
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  const served = serve(host, app.tools, app.sessions, { cwd: REPO, signal: abort.signal, stdin, stdout, maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES, maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES, maxReadBytes: DEFAULT_MAX_READ_BYTES, requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, answerTimeoutMs: DEFAULT_ANSWER_TIMEOUT_MS })
  const session = app.sessions.create({ cwd: REPO })
  try {
    await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } })
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    const viaServe = () => request('tools/call', { name: 'bench_noop', arguments: {} })
    const inProcess = async () => void (await tools.execute({ name: 'bench_noop', arguments: {}, session }))
    const rounds = CALLS * 10
    for (let i = 0; i < 500; i++) await Promise.all([viaServe(), inProcess()])
    const samples = { serve: [] as number[], local: [] as number[] }
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? (['serve', 'local'] as const) : (['local', 'serve'] as const)
      for (const side of order) samples[side].push((await timed(side === 'serve' ? viaServe : inProcess))[0])
    }
    const p50 = [percentile(samples.serve, 50), percentile(samples.local, 50)] as const
    return [
      `serve()'s own work, in this process (no pipe): a no-op tool, ${rounds} calls per side, interleaved`,
      `  a tools/call line in, its answer line out p50 ${ms(p50[0])} p95 ${ms(percentile(samples.serve, 95))}; ctx.tools.execute p50 ${ms(p50[1])} p95 ${ms(percentile(samples.local, 95))}; added p50 ${ms(p50[0] - p50[1])}`,
    ]
  } finally {
    abort.abort()
    await served
    app.sessions.end(session)
    unregister()
  }
}
