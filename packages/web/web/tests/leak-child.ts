import { Context, type ForkScope, type Plugin } from 'cordis'
import WebService from 'dsh-web'
import { registerKeyedSearch, type KeyedResponse, type KeyedSearchOptions } from 'dsh-web/keyed-search'

// Run by leak.test.ts in a child process started with --expose-gc: SEARCHES searches through one
// host's ctx.web against one keyed provider whose `send` answers in memory (a loopback API without
// the socket, so the run measures what dsh keeps, not what a server or the pool does). Every search
// is a child of the plugin's lifetime and follows one long-lived caller signal, as a session's
// searches do. Prints the heap (after a full GC) before and after, as JSON.

const SEARCHES = Number(process.argv[2] ?? 200_000)
const CONCURRENCY = 8
const ANSWER = Buffer.from(JSON.stringify({ results: [{ url: 'https://a.test/', title: 'A' }] }))

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')

function answer(): KeyedResponse {
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: (async function* () {
      yield ANSWER
    })(),
    discard: () => {},
  }
}

const options: KeyedSearchOptions = { apiKey: 'leak-test-key', apiKeyEnv: 'UNUSED', timeoutMs: 60_000, maxResponseBytes: 10_000 }
const plugin = {
  name: 'web-search-loopback',
  inject: ['web'],
  apply(ctx: Context) {
    registerKeyedSearch(ctx, {
      id: 'loopback',
      name: 'Loopback',
      row: 'web-search-loopback',
      event: 'web/loopback-search-request',
      options: () => options,
      endpoint: () => 'memory',
      request: (search) => ({ url: new URL(`https://api.test/search?q=${encodeURIComponent(search.query)}`), method: 'GET', headers: { authorization: 'Bearer leak-test-key' }, record: {} }),
      send: async () => answer(),
      refusal: () => ({}),
      map: (body) => ({ sources: (body as { results: { url: string; title: string }[] }).results, truncated: false }),
      record: () => {},
    })
  },
}

const app = new Context()
;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(WebService as unknown as Plugin, { searchProvider: 'loopback' })
;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(plugin as unknown as Plugin, {})
await app.start()
// One caller signal for every search, as a long-lived session's.
const session = new AbortController()

async function run(count: number): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < count) {
      next++
      const result = await app.web.search({ query: `q${next % 1000}` }, session.signal)
      if (result.sources.length !== 1) throw new Error('unexpected answer')
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

function heap(): number {
  for (let i = 0; i < 4; i++) gc!()
  return process.memoryUsage().heapUsed
}

await run(10_000)
const before = heap()
await run(SEARCHES)
const after = heap()
await app.stop()
process.stdout.write(`${JSON.stringify({ searches: SEARCHES, before, after, grownBytes: after - before })}\n`)
