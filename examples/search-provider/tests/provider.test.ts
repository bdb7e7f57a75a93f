import type { ServerResponse } from 'node:http'
import { createServer } from 'node:net'
import { WebError } from 'dsh-web'
import { afterEach, describe, expect, it } from 'vitest'
import { Config, mapResponse, searchUrl, searxngProvider } from '../src/index.ts'
import { fakeSearxng, json, type FakeSearxng, type Reply } from './fake-searxng.ts'

// The provider on its own, against a SearXNG-shaped server on loopback. No host is needed: the
// provider is a plain object the seam would call.

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function instance(options?: Parameters<typeof fakeSearxng>[0]): Promise<FakeSearxng> {
  const fake = await fakeSearxng(options)
  cleanups.push(() => fake.close())
  return fake
}

function provider(config: Record<string, unknown>, lifetime?: AbortSignal) {
  return searxngProvider(Config(config), lifetime)
}

/** What the search rejected with: a WebError carrying `code`. */
async function rejection(promise: Promise<unknown>, code: string): Promise<WebError> {
  const error: unknown = await promise.then(() => 'resolved', (reason: unknown) => reason)
  expect(error).toBeInstanceOf(WebError)
  expect((error as WebError).code).toBe(code)
  return error as WebError
}

/** Holds the response open until the test ends. */
const hang: Reply = (_request, response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.write('{"results":[')
}

describe('config', () => {
  it('needs an http(s) baseUrl and says so', () => {
    for (const bad of [{}, { baseUrl: 'ftp://searx.test' }, { baseUrl: 'not a url' }]) {
      expect(() => Config(bad)).toThrow(/must be the http\(s\) URL of a SearXNG instance/)
    }
  })

  it('refuses unknown keys and bad numbers', () => {
    expect(() => Config({ baseUrl: 'http://127.0.0.1:8888', apiKey: 'x' })).toThrow(/apiKey/)
    expect(() => Config({ baseUrl: 'http://127.0.0.1:8888', timeoutMs: 0 })).toThrow()
    expect(() => Config({ baseUrl: 'http://127.0.0.1:8888', safesearch: 3 })).toThrow()
  })

  it('fills the defaults', () => {
    expect(Config({ baseUrl: 'http://127.0.0.1:8888' })).toEqual({
      baseUrl: 'http://127.0.0.1:8888',
      timeoutMs: 10_000,
      maxResponseBytes: 2_000_000,
      userAgent: 'dsh-example-searxng/0.1',
    })
  })
})

describe('the request', () => {
  it('is GET <base>/search with q and format=json, keeping a base path', () => {
    expect(searchUrl({ query: 'a b&c' }, Config({ baseUrl: 'https://searx.test/searxng' })).href).toBe('https://searx.test/searxng/search?q=a+b%26c&format=json')
    expect(searchUrl({ query: 'x' }, Config({ baseUrl: 'https://searx.test/' })).href).toBe('https://searx.test/search?q=x&format=json')
  })

  it('sends the configured instance parameters, and no result count', async () => {
    const fake = await instance()
    await provider({ baseUrl: fake.baseUrl, language: 'de-CH', categories: ['general', 'it'], safesearch: 2 }).search({ query: 'cordis', maxResults: 3 })
    const [request] = fake.received
    expect(request!.method).toBe('GET')
    expect(Object.fromEntries(request!.url.searchParams)).toEqual({ q: 'cordis', format: 'json', language: 'de-CH', categories: 'general,it', safesearch: '2' })
    expect(request!.headers.accept).toBe('application/json')
    expect(request!.headers['user-agent']).toBe('dsh-example-searxng/0.1')
  })
})

describe('mapping the answer', () => {
  it('results become sources: content → snippet, publishedDate → publishedAt, empty fields omitted', async () => {
    const fake = await instance()
    expect(await provider({ baseUrl: fake.baseUrl }).search({ query: 'cordis' })).toEqual({
      sources: [
        { url: 'https://cordis.io/', title: 'Cordis', snippet: 'Meta-framework for modern JavaScript applications.' },
        { url: 'https://github.com/cordiverse/cordis', title: 'cordiverse/cordis', publishedAt: '2026-01-02T00:00:00' },
      ],
      truncated: false,
    })
  })

  it('keeps the first of each URL and drops items that are not http(s) results', () => {
    const result = mapResponse({
      results: [{ url: 'https://a.test/', title: ' A ' }, { url: 'https://a.test/', title: 'again' }, { url: 'javascript:alert(1)' }, { title: 'no url' }, 'junk', { url: 'http://b.test/x', content: '  ' }],
    })
    expect(result.sources).toEqual([{ url: 'https://a.test/', title: 'A' }, { url: 'http://b.test/x' }])
  })

  it('a title, snippet or date that is not a string is left out, not the result', async () => {
    const fake = await instance()
    fake.reply = json(200, { results: [{ url: 'https://numbers.test/a', title: 42, content: 'kept snippet', publishedDate: { at: 1 } }, { url: 'https://objects.test/b', title: { text: 'x' }, content: [1] }] })
    expect(await provider({ baseUrl: fake.baseUrl }).search({ query: 'cordis' })).toEqual({
      sources: [{ url: 'https://numbers.test/a', snippet: 'kept snippet' }, { url: 'https://objects.test/b' }],
      truncated: false,
    })
  })

  it('instant answers (strings or objects) become the content', () => {
    expect(mapResponse({ results: [], answers: ['42', { answer: 'forty-two', url: 'https://a.test/' }, { nope: 1 }] })).toEqual({ content: '42\n\nforty-two', sources: [], truncated: false })
  })

  it('nothing found is a result, unless engines failed: then it is an error naming them', () => {
    expect(mapResponse({ results: [], unresponsive_engines: [] })).toEqual({ sources: [], truncated: false })
    expect(() => mapResponse({ results: [], unresponsive_engines: [['google', 'timeout'], ['brave', 'too many requests']] })).toThrow(
      'SearXNG found nothing because its engines did not answer: google (timeout), brave (too many requests)',
    )
  })

  it('JSON that is not a search response is WEB_PROVIDER_ERROR', async () => {
    for (const body of [null, [], { results: 'no' }, { answers: [] }]) {
      const error = await rejection(Promise.resolve(body).then(mapResponse), 'WEB_PROVIDER_ERROR')
      expect(error.message).toMatch(/^SearXNG returned JSON that is not a search response: /)
    }
  })
})

describe('failures are coded', () => {
  it('an HTTP error status is WEB_PROVIDER_ERROR with the status; a 5xx is the instance down (a failover list moves on)', async () => {
    const fake = await instance()
    fake.reply = json(502, { error: 'bad gateway' })
    const error = await rejection(provider({ baseUrl: fake.baseUrl }).search({ query: 'x' }), 'WEB_PROVIDER_ERROR')
    expect([error.message, error.fault]).toEqual(['SearXNG answered HTTP 502 (Bad Gateway)', { kind: 'unavailable' }])
  })

  it('an instance without the json format (403) says where to enable it', async () => {
    const fake = await instance({ formats: ['html'] })
    const error = await rejection(provider({ baseUrl: fake.baseUrl }).search({ query: 'x' }), 'WEB_PROVIDER_ERROR')
    expect(error.message).toBe('SearXNG answered HTTP 403 (Forbidden): the instance does not serve format=json; add json to search.formats in its settings.yml')
  })

  it('a rate limit (429) names the limiter', async () => {
    const fake = await instance()
    fake.reply = (_request, response) => response.writeHead(429, { 'retry-after': '20' }).end()
    const error = await rejection(provider({ baseUrl: fake.baseUrl }).search({ query: 'x' }), 'WEB_PROVIDER_ERROR')
    expect([error.message, error.fault]).toEqual([expect.stringMatching(/HTTP 429 .*limiter/), { kind: 'rate_limited', retryAfter: '20' }])
  })

  it('a body that is not JSON is WEB_PROVIDER_ERROR', async () => {
    const fake = await instance()
    fake.reply = (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>search page</html>')
    const error = await rejection(provider({ baseUrl: fake.baseUrl }).search({ query: 'x' }), 'WEB_PROVIDER_ERROR')
    expect(error.message).toBe('SearXNG returned a body that is not JSON (content-type text/html)')
  })

  it('a body over maxResponseBytes is WEB_PROVIDER_ERROR', async () => {
    const fake = await instance()
    fake.reply = json(200, { results: [{ url: 'https://a.test/', content: 'x'.repeat(5000) }] })
    const error = await rejection(provider({ baseUrl: fake.baseUrl, maxResponseBytes: 1000 }).search({ query: 'x' }), 'WEB_PROVIDER_ERROR')
    expect(error.message).toBe('SearXNG returned more than 1000 bytes (maxResponseBytes)')
  })

  it('an instance that does not answer in timeoutMs is WEB_SEARCH_TIMEOUT', async () => {
    const fake = await instance()
    fake.reply = hang
    const error = await rejection(provider({ baseUrl: fake.baseUrl, timeoutMs: 200 }).search({ query: 'x' }), 'WEB_SEARCH_TIMEOUT')
    expect(error.message).toBe('SearXNG did not answer within 200 ms (timeoutMs)')
  })

  it('a refused connection is WEB_PROVIDER_ERROR naming the instance and the socket error', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`
    const error = await rejection(provider({ baseUrl }).search({ query: 'x' }), 'WEB_PROVIDER_ERROR')
    expect(error.message).toMatch(new RegExp(`^cannot reach SearXNG at ${baseUrl}: connect ECONNREFUSED`))
    expect(error.fault).toEqual({ kind: 'unavailable' })
  })

  it("the caller's signal: before the call nothing is sent; during it the request is abandoned", async () => {
    const fake = await instance()
    fake.reply = hang
    const search = provider({ baseUrl: fake.baseUrl })
    await rejection(search.search({ query: 'x' }, AbortSignal.abort()), 'WEB_ABORTED')
    expect(fake.received).toHaveLength(0)
    const controller = new AbortController()
    const pending = search.search({ query: 'x' }, controller.signal)
    await until(() => fake.received.length === 1)
    controller.abort()
    await rejection(pending, 'WEB_ABORTED')
  })

  it('unloading the plugin (its lifetime signal) ends a search in flight', async () => {
    const fake = await instance()
    fake.reply = hang
    const lifetime = new AbortController()
    const pending = provider({ baseUrl: fake.baseUrl }, lifetime.signal).search({ query: 'x' })
    await until(() => fake.received.length === 1)
    lifetime.abort()
    const error = await rejection(pending, 'WEB_ABORTED')
    expect(error.message).toBe('SearXNG search aborted: the provider was unloaded')
  })
})

describe('readiness', () => {
  const probe = { signal: new AbortController().signal, cwd: process.cwd() }

  it('status() is idle until probed: nothing is contacted', async () => {
    const fake = await instance()
    expect(provider({ baseUrl: fake.baseUrl }).status!()).toEqual({
      state: 'idle',
      detail: `${fake.baseUrl}/search (contacted at the first search; dsh status reads ${fake.baseUrl}/config)`,
    })
    expect(fake.received).toHaveLength(0)
  })

  it('the probe reads /config, runs no search, and describes the instance', async () => {
    const fake = await instance()
    expect(await provider({ baseUrl: fake.baseUrl }).probe!(probe)).toEqual({ state: 'ready', detail: `SearXNG 2026.1.1 ("fake") at ${fake.baseUrl}: 3 engines enabled` })
    expect(fake.received.map((request) => request.url.pathname)).toEqual(['/config'])
  })

  it('an unreachable instance is unavailable, with the reason', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`
    const status = await provider({ baseUrl }).probe!(probe)
    expect(status.state).toBe('unavailable')
    expect(status.detail).toMatch(new RegExp(`^cannot reach SearXNG at ${baseUrl}: connect ECONNREFUSED`))
  })
})

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5))
}
