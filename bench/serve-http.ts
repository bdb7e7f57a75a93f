import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { freePort, NGINX, startNginx } from '../test-support/nginx.ts'
import { ms, percentile, ratio, timed } from './stats.ts'

// `dsh serve --http` against `dsh serve` on stdio: what the HTTP hop adds to a call (an SDK v2 client
// of 2026-07-28 on each, a tool that does nothing, interleaved call by call), and the calls per
// second 1, 8 and 32 concurrent clients get from one replica and from two behind nginx.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const BIN = join(REPO, 'packages/cli/cli/bin/dsh.mjs')
const CALLS = Number(process.env.BENCH_SERVE_HTTP_CALLS ?? 1000)
const THROUGHPUT_CALLS = Number(process.env.BENCH_SERVE_HTTP_THROUGHPUT_CALLS ?? 2000)
const CONCURRENCY = [1, 8, 32]

interface Replica {
  readonly url: URL
  readonly child: ChildProcess
}

/** `dsh serve --http` on a free loopback port; resolves with the URL it prints. */
function startReplica(preset: string, cwd: string): Promise<Replica> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--preset', preset, '--cwd', cwd, '--max-concurrent-calls', '64'], { stdio: ['ignore', 'ignore', 'pipe'] })
  return new Promise((resolve, reject) => {
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
      if (url) resolve({ url: new URL(url), child })
    })
    child.once('exit', (code) => reject(new Error(`dsh serve --http exited (${code}): ${stderr}`)))
  })
}

async function stopReplica({ child }: Replica): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

async function httpClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'bench-serve-http', version: '0' }, { versionNegotiation: { mode: 'auto' } })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

async function noop(client: Client): Promise<void> {
  const result = await client.callTool({ name: 'bench_noop', arguments: {} })
  if (result.isError) throw new Error(JSON.stringify(result.content))
}

/** Calls per second: `clients` clients, `calls` calls in all, each client making its next call as its last answers. */
async function throughput(url: URL, clients: number, calls: number): Promise<number> {
  const connected = await Promise.all(Array.from({ length: clients }, () => httpClient(url)))
  try {
    for (const client of connected) await noop(client)
    let next = 0
    const [elapsed] = await timed(() =>
      Promise.all(
        connected.map(async (client) => {
          while (next < calls) {
            next++
            await noop(client)
          }
        }),
      ),
    )
    return (calls / elapsed) * 1000
  } finally {
    await Promise.all(connected.map((client) => client.close().catch(() => {})))
  }
}

export async function benchServeHttp(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-serve-http-'))
  writeFileSync(
    join(dir, 'noop.mjs'),
    `export const name = 'bench-noop'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'bench_noop', description: 'Does nothing.', parameters: { type: 'object' }, execute: async () => ({ ok: true }) })
}
`,
  )
  const preset = join(dir, 'preset.yml')
  writeFileSync(preset, ['tools', 'fs', 'subprocess', 'sessions', 'credentials', 'readiness', 'trust'].map((name) => `- id: ${name}\n  name: dsh-core/${name}\n`).join('') + '- id: noop\n  name: ./noop.mjs\n')
  const replicas: Replica[] = []
  const stdio = new Client({ name: 'bench-serve-stdio', version: '0' }, { versionNegotiation: { mode: 'auto' } })
  try {
    replicas.push(await startReplica(preset, dir), await startReplica(preset, dir))
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--preset', preset, '--cwd', dir], stderr: 'ignore' }))
    const http = await httpClient(replicas[0]!.url)
    const samples = { http: [] as number[], stdio: [] as number[], added: [] as number[] }
    try {
      for (let i = 0; i < 200; i++) await Promise.all([noop(http), noop(stdio)])
      for (let i = 0; i < CALLS; i++) {
        const first = i % 2 ? http : stdio
        const second = i % 2 ? stdio : http
        const [a] = await timed(() => noop(first))
        const [b] = await timed(() => noop(second))
        const [viaHttp, viaStdio] = i % 2 ? [a, b] : [b, a]
        samples.http.push(viaHttp)
        samples.stdio.push(viaStdio)
        samples.added.push(viaHttp - viaStdio)
      }
    } finally {
      await http.close().catch(() => {})
    }
    const p50 = [percentile(samples.http, 50), percentile(samples.stdio, 50)] as const
    const lines = [
      `dsh serve --http vs stdio: a no-op tool from an SDK v2 client (2026-07-28), ${CALLS} calls per side, interleaved; load average ${loadavg()[0]!.toFixed(2)}`,
      `  over HTTP p50 ${ms(p50[0])} p95 ${ms(percentile(samples.http, 95))}; over stdio p50 ${ms(p50[1])} p95 ${ms(percentile(samples.stdio, 95))}; ratio p50 ${ratio(p50[0], p50[1])}`,
      `  added by the HTTP hop over the stdio hop: p50 ${ms(p50[0] - p50[1])}, paired per round ${ms(percentile(samples.added, 50))} (goal on a quiet machine: ≤ 1 ms)`,
    ]
    const one: number[] = []
    for (const clients of CONCURRENCY) one.push(await throughput(replicas[0]!.url, clients, THROUGHPUT_CALLS))
    lines.push(`calls per second, ${THROUGHPUT_CALLS} calls, clients ${CONCURRENCY.join(' / ')}:`, `  one replica             ${one.map((rate) => rate.toFixed(0).padStart(6)).join(' /')}`)
    if (!NGINX) {
      lines.push('  two replicas behind nginx: not measured (nginx is not installed; .ci/run installs Debian\'s)')
      return [...lines, `load average ${loadavg()[0]!.toFixed(2)} at the end`]
    }
    const nginx = await startNginx(await freePort(), replicas.map((replica) => Number(replica.url.port)))
    try {
      const front = new URL(`http://127.0.0.1:${nginx.port}/mcp`)
      const two: number[] = []
      for (const clients of CONCURRENCY) two.push(await throughput(front, clients, THROUGHPUT_CALLS))
      lines.push(
        `  two replicas, nginx     ${two.map((rate) => rate.toFixed(0).padStart(6)).join(' /')}`,
        `  two behind nginx ÷ one  ${two.map((rate, index) => ratio(rate, one[index]!).padStart(6)).join(' /')}   (2 cores shared by both replicas, nginx and the clients)`,
      )
    } finally {
      await nginx.stop()
    }
    return [...lines, `load average ${loadavg()[0]!.toFixed(2)} at the end`]
  } finally {
    await stdio.close().catch(() => {})
    await Promise.all(replicas.map(stopReplica))
    rmSync(dir, { recursive: true, force: true })
  }
}
