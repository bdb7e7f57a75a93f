import { spawn } from 'node:child_process'
import { keyedSearchProvider } from 'dsh-web/keyed-search'
import { Agent, request } from 'undici'
import { ratio } from './stats.ts'

// CPU time (this process's user + system) per loopback web search: a keyed provider with the
// default send (undici's `request` over its own Agent) against a bare undici request to the same
// JSON server, a child process, in blocks that alternate. On a loaded machine a wall-clock figure
// mostly measures the wait for a core; the CPU per call still shows what the keyed layer adds.

const CALLS = Number(process.env.BENCH_WEB_SEARCH_CALLS ?? 2000)
const BLOCKS = Number(process.env.BENCH_WEB_SEARCH_BLOCKS ?? 6)
const ANSWER = JSON.stringify({ results: [{ url: 'https://example.com/', title: 'Example', content: 'A snippet.' }] })
const SERVER = `const server = require('node:http').createServer((request, response) => {
  request.resume()
  request.on('end', () => { response.writeHead(200, { 'content-type': 'application/json' }); response.end(${JSON.stringify(ANSWER)}) })
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))`

/** `pnpm bench web-search`: the keyed search's CPU per call, and a bare undici request's. */
export async function benchWebSearch(): Promise<string[]> {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (data) => resolve(Number(String(data).trim()))))
  const endpoint = `http://127.0.0.1:${port}/search`
  const headers = { 'content-type': 'application/json', 'user-agent': 'dsh-bench/1' }
  const body = JSON.stringify({ query: 'q' })
  const ours = new Agent()
  const bare = new Agent()
  const provider = keyedSearchProvider({
    id: 'bench',
    name: 'Bench',
    row: 'web-search-bench',
    event: 'web/bench-search-request',
    options: () => ({ apiKey: 'key', apiKeyEnv: 'BENCH_KEY', timeoutMs: 10_000, maxResponseBytes: 1_000_000 }),
    endpoint: () => endpoint,
    resolveKey: async () => undefined,
    request: () => ({ url: new URL(endpoint), method: 'POST', headers, body, record: {} }),
    refusal: () => ({}),
    map: (json) => ({ sources: (json as { results: { url: string; title: string; content: string }[] }).results.map((row) => ({ url: row.url, title: row.title, snippet: row.content })), truncated: false }),
    record: () => {},
    dispatcher: ours,
  })
  const sides = [
    ['bare undici.request + JSON.parse(body.text())', async () => JSON.parse(await (await request(endpoint, { method: 'POST', headers, body, dispatcher: bare })).body.text()) as unknown],
    ['keyed search (default send, own Agent)', () => provider.search({ query: 'q' })],
  ] as const
  try {
    for (let i = 0; i < 300; i++) for (const [, run] of sides) await run()
    const cpu = sides.map(() => 0)
    for (let block = 0; block < BLOCKS; block++) {
      for (const index of block % 2 ? [0, 1] : [1, 0]) {
        const before = process.cpuUsage()
        for (let i = 0; i < CALLS; i++) await sides[index]![1]()
        const used = process.cpuUsage(before)
        cpu[index]! += (used.user + used.system) / CALLS / BLOCKS
      }
    }
    return [
      `CPU per search, ${BLOCKS} alternating blocks of ${CALLS} calls (µs):`,
      ...sides.map(([label], index) => `  ${label}: ${cpu[index]!.toFixed(0)}`),
      `  ratio ours/bare: ${ratio(cpu[1]!, cpu[0]!)}`,
    ]
  } finally {
    child.kill()
    await Promise.all([ours.close(), bare.close()])
  }
}
