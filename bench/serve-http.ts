import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { freePort, NGINX, startNginx } from '../test-support/nginx.ts'
import { micros, ms, percentile, ratio, timed } from './stats.ts'

// `dsh serve --http` against `dsh serve` on stdio: what the HTTP hop adds to a call (an SDK v2 client
// of 2026-07-28 on each, a tool that does nothing, interleaved call by call), and the calls per
// second 1, 8 and 32 concurrent clients get from one replica and from two behind nginx.
//
// The baselines, measured in the same run with the same client: the MCP SDK's own minimal server of
// one no-op tool (serve-sdk-minimal.mjs: createMcpHandler behind toNodeHandler, and the stdio
// transport), which is what serving a composition through the SDK cannot go below; and two bare
// servers of canned answers (node:http and a line reader), whose difference is the hop's floor: the
// client's HTTP transport, fetch and the kernel.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const BIN = join(REPO, 'packages/cli/cli/bin/dsh.mjs')
const SDK_MINIMAL = join(REPO, 'bench/serve-sdk-minimal.mjs')
const CALLS = Number(process.env.BENCH_SERVE_HTTP_CALLS ?? 1000)
const THROUGHPUT_CALLS = Number(process.env.BENCH_SERVE_HTTP_THROUGHPUT_CALLS ?? 2000)
const CONCURRENCY = [1, 8, 32]

interface Replica {
  readonly url: URL
  readonly child: ChildProcess
}

/** `dsh serve --http` on a free loopback port; resolves with the URL it prints. */
function startReplica(preset: string, cwd: string): Promise<Replica> {
  return startListening([BIN, 'serve', '--http', '0', '--preset', preset, '--cwd', cwd, '--max-concurrent-calls', '64'])
}

function startListening(args: readonly string[]): Promise<Replica> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
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

/** A server of canned answers to the three messages a 2026-07-28 client sends here. */
const BARE_ANSWERS = `function answer(message) {
  if (message.method === 'initialize') return { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '0' } }
  if (message.method === 'server/discover') return { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '0' } }
  return { content: [{ type: 'text', text: '{"ok":true}' }], resultType: 'complete' }
}
const reply = (message) => JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer(message) })
`
const BARE_HTTP = `import { createServer } from 'node:http'
${BARE_ANSWERS}
const server = createServer(async (request, response) => {
  let body = ''
  for await (const chunk of request) body += chunk
  const message = JSON.parse(body)
  if (message.id === undefined) response.writeHead(202).end()
  else response.writeHead(200, { 'content-type': 'application/json' }).end(reply(message))
})
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '/mcp\\n'))
process.on('SIGTERM', () => { server.close(); server.closeAllConnections() })
`
const BARE_STDIO = `import { createInterface } from 'node:readline'
${BARE_ANSWERS}
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.id !== undefined) process.stdout.write(reply(message) + '\\n')
})
`

/** Per-call times of two clients, called alternately so that both see the same machine. */
async function interleaved(first: Client, second: Client, calls: number): Promise<{ first: number[]; second: number[]; added: number[] }> {
  const samples = { first: [] as number[], second: [] as number[], added: [] as number[] }
  for (let i = 0; i < 200; i++) await Promise.all([noop(first), noop(second)])
  for (let i = 0; i < calls; i++) {
    const [a, b] = i % 2 ? [first, second] : [second, first]
    const [x] = await timed(() => noop(a))
    const [y] = await timed(() => noop(b))
    const [viaFirst, viaSecond] = i % 2 ? [x, y] : [y, x]
    samples.first.push(viaFirst)
    samples.second.push(viaSecond)
    samples.added.push(viaFirst - viaSecond)
  }
  return samples
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

/** The same client against one HTTP and one stdio server (node scripts with their arguments), interleaved as ours are. */
async function hopOf(httpServer: readonly string[], stdioServer: readonly string[]): Promise<Awaited<ReturnType<typeof interleaved>>> {
  const server = await startListening(httpServer)
  const http = await httpClient(server.url)
  const stdio = new Client({ name: 'bench-baseline-stdio', version: '0' }, { versionNegotiation: { mode: 'auto' } })
  try {
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [...stdioServer], stderr: 'ignore' }))
    return await interleaved(http, stdio, CALLS)
  } finally {
    await Promise.all([http.close().catch(() => {}), stdio.close().catch(() => {})])
    await stopReplica(server)
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
    let ours: Awaited<ReturnType<typeof interleaved>>
    try {
      ours = await interleaved(http, stdio, CALLS)
    } finally {
      await http.close().catch(() => {})
    }
    writeFileSync(join(dir, 'bare-http.mjs'), BARE_HTTP)
    writeFileSync(join(dir, 'bare-stdio.mjs'), BARE_STDIO)
    const bare = await hopOf([join(dir, 'bare-http.mjs')], [join(dir, 'bare-stdio.mjs')])
    const sdk = await hopOf([SDK_MINIMAL, 'http'], [SDK_MINIMAL, 'stdio'])
    const [hop, sdkHop, floor] = [ours, sdk, bare].map((samples) => percentile(samples.added, 50)) as [number, number, number]
    const lines = [
      `dsh serve --http vs stdio: a no-op tool from an SDK v2 client (2026-07-28), ${CALLS} calls per side, interleaved; Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}`,
      `  ours:  over HTTP p50 ${ms(percentile(ours.first, 50))} p95 ${ms(percentile(ours.first, 95))}; over stdio p50 ${ms(percentile(ours.second, 50))} p95 ${ms(percentile(ours.second, 95))}`,
      `  the SDK's minimal server (createMcpHandler + toNodeHandler, one no-op tool): over HTTP p50 ${ms(percentile(sdk.first, 50))}; over stdio p50 ${ms(percentile(sdk.second, 50))}`,
      `  bare servers of canned answers: over HTTP p50 ${ms(percentile(bare.first, 50))}; over stdio p50 ${ms(percentile(bare.second, 50))}`,
      `  the HTTP hop (HTTP minus stdio, paired per round) p50: ours ${ms(hop)}, the SDK's minimal server ${ms(sdkHop)}, bare ${ms(floor)}; ours ÷ the SDK's ${ratio(hop, sdkHop)}, ours − the SDK's ${micros(hop - sdkHop)} (goal on a quiet machine: ours ≤ 1 ms)`,
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
