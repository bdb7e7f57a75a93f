import * as deepseek from 'dsh-web-search-deepseek'
import { Agent } from 'undici'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fakeApi, json, searchResponse, type FakeApi } from './fake-api.ts'
import { providerHost } from '../../web/tests/provider-host.ts'
import { rejection } from '../../web/tests/rejection.ts'

// dsh-web-search-deepseek (reference/web.md §8 D01–D37 where our host has the parts; DESIGN.md
// W3) against our own Anthropic-compatible server on loopback. No test leaves the machine.

const { deepSeekSearchProvider, mapResponse, snapshot, messagesEndpoint, Config } = deepseek

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function api(reply?: Parameters<typeof fakeApi>[0]): Promise<FakeApi> {
  const created = await fakeApi(reply)
  cleanups.push(() => created.close())
  return created
}

function provider(config: Record<string, unknown>, extra: Partial<deepseek.DeepSeekSearchProviderOptions> = {}) {
  const dispatcher = new Agent()
  cleanups.push(() => dispatcher.destroy())
  const recorded: deepseek.RecordedRequest[] = []
  const instance = deepSeekSearchProvider({
    options: () => snapshot(Config(config)),
    resolveKey: async () => undefined,
    dispatcher,
    record: (request) => recorded.push(request),
    ...extra,
  })
  return { instance, recorded }
}


describe('mapping native results', () => {
  it('D01–D03: sources with titles, first cited text as snippet, page_age as publishedAt; no content', () => {
    const response = searchResponse()
    response.content.push({ type: 'text', text: 'more', citations: [{ type: 'web_search_result_location', url: 'https://a.test/', title: 'A', cited_text: 'second excerpt' }] })
    expect(mapResponse(response)).toEqual({
      sources: [
        { url: 'https://a.test/', title: 'A', snippet: 'excerpt for A', publishedAt: '2026-02-02' },
        { url: 'https://b.test/', title: 'B' },
      ],
      truncated: false,
    })
  })

  it('D02, D04–D07: bad citations ignored, repeated URLs once (first title), error items and empty fields skipped', () => {
    const result = mapResponse({
      content: [
        { type: 'web_search_tool_result', content: [{ type: 'web_search_result', url: 'https://a.test/', title: 'first', page_age: '' }, { type: 'web_search_result_error', url: 'https://err.test/' }, { type: 'web_search_result', url: '' }] },
        { type: 'web_search_tool_result' },
        { type: 'web_search_tool_result', content: [{ type: 'web_search_result', url: 'https://a.test/', title: 'second' }, { type: 'web_search_result', url: 'https://c.test/', title: '' }] },
        { type: 'text', text: 'no citations' },
        { type: 'text', citations: [{ url: null, cited_text: 'x' }, { url: 'https://c.test/', cited_text: '' }, { url: '', cited_text: 'y' }] },
      ],
    })
    expect(result.sources).toEqual([{ url: 'https://a.test/', title: 'first' }, { url: 'https://c.test/' }])
  })

  it('D08: no native result block, or no content, is WEB_PROVIDER_ERROR (prose is never scraped)', () => {
    for (const body of [{ content: [{ type: 'text', text: 'see https://a.test/' }] }, {}]) {
      expect(() => mapResponse(body)).toThrow(expect.objectContaining({ code: 'WEB_PROVIDER_ERROR' }))
    }
  })

  it('a native search error with no results is reported with its code', () => {
    expect(() => mapResponse({ content: [{ type: 'web_search_tool_result', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } }] })).toThrow('max_uses_exceeded')
  })
})

describe('the wire', () => {
  it('D10–D13, D17: POST <base>/messages with both key headers, the exact body, recorded first, the signal passed on', async () => {
    const server = await api()
    const { instance, recorded } = provider({ baseURL: `${server.baseURL}/` }, { resolveKey: async () => 'resolved-key' })
    const result = await instance.search({ query: 'hello', maxResults: 3 }, new AbortController().signal)
    expect(result.sources.map((source) => source.url)).toEqual(['https://a.test/', 'https://b.test/'])
    const [request] = server.received
    expect([request!.method, request!.url]).toEqual(['POST', '/anthropic/v1/messages'])
    expect(request!.headers).toMatchObject({ 'x-api-key': 'resolved-key', authorization: 'Bearer resolved-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json', accept: 'application/json' })
    const body = { model: 'deepseek-v4-flash', max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'Perform a web search for the query: hello' }] }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] }
    expect(request!.body).toEqual(body)
    expect(Object.keys(request!.body as object)).toEqual(['model', 'max_tokens', 'messages', 'tools'])
    expect(recorded).toEqual([{ endpoint: `${server.baseURL}/messages`, apiVersion: '2023-06-01', body }])
    expect(JSON.stringify(recorded)).not.toContain('resolved-key')
  })

  it('D30: the default endpoint, and DEEPSEEK_SEARCH_BASE_URL when config has none', () => {
    expect(messagesEndpoint(snapshot(Config({}), {}).baseURL)).toBe('https://api.deepseek.com/anthropic/v1/messages')
    expect(snapshot(Config({}), { DEEPSEEK_SEARCH_BASE_URL: 'http://127.0.0.1:9/x' }).baseURL).toBe('http://127.0.0.1:9/x')
    expect(snapshot(Config({ baseURL: 'http://127.0.0.1:8/y' }), { DEEPSEEK_SEARCH_BASE_URL: 'http://127.0.0.1:9/x' }).baseURL).toBe('http://127.0.0.1:8/y')
    expect(Config({}).model).toBe('deepseek-v4-flash')
  })

  it('D14: options are read once per search: the key resolved under "before" goes to "before"', async () => {
    const before = await api()
    const after = await api()
    let current = before.baseURL
    const { instance } = provider({}, {
      options: () => snapshot(Config({ baseURL: current })),
      resolveKey: async () => {
        current = after.baseURL
        return 'k'
      },
    })
    await instance.search({ query: 'q' })
    expect([before.received.length, after.received.length]).toEqual([1, 0])
  })

  it('D27: every redirect status is WEB_PROVIDER_ERROR and the target is never contacted', async () => {
    const target = await api()
    for (const status of [301, 302, 303, 307, 308]) {
      const server = await api((_request, response) => {
        response.writeHead(status, { location: `${target.baseURL}/messages` })
        response.end()
      })
      const { instance } = provider({ baseURL: server.baseURL, apiKey: 'k' })
      const error = await rejection(instance.search({ query: 'q' }))
      expect([error.code, error.message], String(status)).toEqual(['WEB_PROVIDER_ERROR', `DeepSeek search was redirected (HTTP ${status}); redirects are not followed, so the key stays with the configured endpoint`])
    }
    expect(target.connections()).toBe(0)
  })

  it('D21, D22: API error bodies give their message, else the status; the fault says whether another provider should serve', async () => {
    const cases: [number, unknown, string, unknown][] = [
      [429, { error: { message: 'rate limited' } }, 'DeepSeek API error (HTTP 429): rate limited', { kind: 'rate_limited', retryAfter: '9' }],
      [400, { error: 'bad request' }, 'DeepSeek API error (HTTP 400): bad request', undefined],
      [401, { message: 'who are you' }, 'DeepSeek API error (HTTP 401): who are you; its key (the literal apiKey) was refused and is not sent again until it changes', { kind: 'key_refused' }],
      [402, { error: { message: 'Insufficient Balance' } }, 'DeepSeek API error (HTTP 402): Insufficient Balance', { kind: 'quota_exhausted' }],
      [503, 'upstream down', 'DeepSeek API error (HTTP 503)', { kind: 'unavailable', retryAfter: '9' }],
      [500, {}, 'DeepSeek API error (HTTP 500)', { kind: 'unavailable', retryAfter: '9' }],
    ]
    for (const [status, body, message, fault] of cases) {
      const server = await api(json(status, body, { 'retry-after': '9' }))
      const error = await rejection(provider({ baseURL: server.baseURL, apiKey: 'k' }).instance.search({ query: 'q' }))
      expect([error.code, error.message, error.fault]).toEqual([status === 401 ? 'WEB_PROVIDER_KEY_REFUSED' : 'WEB_PROVIDER_ERROR', message, fault])
    }
  })

  it('an error body that echoes the key reaches the caller as one bounded line with every secret redacted', async () => {
    const resolved = 'sk-resolved-0123456789abcdef'
    const literal = 'sk-literal-fedcba9876543210'
    const echo = (key: string) => json(401, { error: { message: `invalid api key: ${key}\n\nrequest id: 7\r\n${'details '.repeat(2000)}` } })
    const server = await api(echo(resolved))
    const viaCredential = await rejection(provider({ baseURL: server.baseURL }, { resolveKey: async () => resolved }).instance.search({ query: 'q' }))
    server.reply = echo(literal)
    const viaLiteral = await rejection(provider({ baseURL: server.baseURL, apiKey: literal }).instance.search({ query: 'q' }))
    for (const error of [viaCredential, viaLiteral]) {
      expect(error.code).toBe('WEB_PROVIDER_KEY_REFUSED')
      expect(error.message).toMatch(/^DeepSeek API error \(HTTP 401\): invalid api key: \[redacted\] request id: 7 details /)
      expect(error.message).not.toMatch(/sk-|[\r\n]/)
      expect(error.message.length).toBeLessThanOrEqual(500)
    }
  })

  it('D24, D26: a non-JSON 200, a wrong shape, prose only, a refused connection and an oversized body are WEB_PROVIDER_ERROR', async () => {
    for (const reply of [json(200, 'not json'), json(200, { content: {} }), json(200, { content: [{ type: 'text', text: 'prose' }] }), json(200, { padding: 'x'.repeat(2000) })]) {
      const server = await api(reply)
      const error = await rejection(provider({ baseURL: server.baseURL, apiKey: 'k', maxResponseBytes: 1000 }).instance.search({ query: 'q' }))
      expect([error.code, error.fault]).toEqual(['WEB_PROVIDER_ERROR', { kind: 'failing' }])
    }
    const refused = await rejection(provider({ baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k' }).instance.search({ query: 'q' }))
    expect([refused.code, refused.message.startsWith('DeepSeek request failed:'), refused.fault]).toEqual(['WEB_PROVIDER_ERROR', true, { kind: 'unavailable' }])
  })
})

describe('credentials, aborts and the deadline', () => {
  it('D15: pre-aborted: no key lookup, no record, no request', async () => {
    const server = await api()
    const resolveKey = vi.fn(async () => 'k')
    const { instance, recorded } = provider({ baseURL: server.baseURL }, { resolveKey })
    const controller = new AbortController()
    controller.abort()
    expect((await rejection(instance.search({ query: 'q' }, controller.signal))).code).toBe('WEB_ABORTED')
    expect([resolveKey.mock.calls.length, recorded.length, server.received.length]).toEqual([0, 0, 0])
  })

  it('D16, D20: an abort while the key is resolving wins, even if the resolver never settles', async () => {
    const server = await api()
    const controller = new AbortController()
    const resolveKey = vi.fn(() => new Promise<string>(() => {}))
    const { instance, recorded } = provider({ baseURL: server.baseURL }, { resolveKey })
    setTimeout(() => controller.abort(), 20)
    expect((await rejection(instance.search({ query: 'q' }, controller.signal))).code).toBe('WEB_ABORTED')
    const sync = provider({ baseURL: server.baseURL }, {
      resolveKey: async () => {
        controller2.abort()
        return 'k'
      },
    })
    const controller2 = new AbortController()
    expect((await rejection(sync.instance.search({ query: 'q' }, controller2.signal))).code).toBe('WEB_ABORTED')
    expect([resolveKey.mock.calls.length, recorded.length, sync.recorded.length, server.received.length]).toEqual([1, 0, 0, 0])
  })

  it('D18: a resolver failure is WEB_PROVIDER_ERROR with its text', async () => {
    const { instance } = provider({}, {
      resolveKey: async () => {
        throw new Error('credential backend failed')
      },
    })
    const error = await rejection(instance.search({ query: 'q' }))
    expect([error.code, error.message]).toEqual(['WEB_PROVIDER_ERROR', 'DeepSeek credential lookup failed: credential backend failed'])
  })

  it('D19, D32: no key is WEB_PROVIDER_CREDENTIAL_MISSING with the three remedies, and nothing is sent', async () => {
    const server = await api()
    const { instance, recorded } = provider({ baseURL: server.baseURL })
    const error = await rejection(instance.search({ query: 'q' }))
    expect(error.code).toBe('WEB_PROVIDER_CREDENTIAL_MISSING')
    expect(error.message).toContain('DeepSeek has no API key for "DEEPSEEK_API_KEY"')
    for (const remedy of ['~/.dsh/.env', 'once its workspace is trusted', 'export DEEPSEEK_API_KEY', 'literal apiKey']) expect(error.message).toContain(remedy)
    expect([recorded.length, server.received.length]).toEqual([0, 0])
  })

  it('W3: the provider deadline is WEB_SEARCH_TIMEOUT; a caller abort mid-request is WEB_ABORTED', async () => {
    const server = await api(() => {})
    const slow = await rejection(provider({ baseURL: server.baseURL, apiKey: 'k', timeoutMs: 50 }).instance.search({ query: 'q' }))
    expect([slow.code, slow.message]).toEqual(['WEB_SEARCH_TIMEOUT', 'DeepSeek search timed out after 50 ms'])
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('custom reason')), 50)
    expect((await rejection(provider({ baseURL: server.baseURL, apiKey: 'k' }).instance.search({ query: 'q' }, controller.signal))).code).toBe('WEB_ABORTED')
  })

  it('D25: an abort while the body streams is WEB_ABORTED', async () => {
    const server = await api((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"content":')
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    expect((await rejection(provider({ baseURL: server.baseURL, apiKey: 'k' }).instance.search({ query: 'q' }, controller.signal))).code).toBe('WEB_ABORTED')
  })

  it('a success answer that stalls or breaks off half-way is partial (never failed over); an error answer that breaks off is not', async () => {
    const server = await api((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"content":')
    })
    const stalled = await rejection(provider({ baseURL: server.baseURL, apiKey: 'k', timeoutMs: 200 }).instance.search({ query: 'q' }))
    expect([stalled.code, stalled.message, stalled.fault, stalled.partial]).toEqual(['WEB_SEARCH_TIMEOUT', 'DeepSeek search timed out after 200 ms while its answer was arriving', undefined, true])
    server.reply = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
      response.write('{"content":', () => response.socket?.destroy())
    }
    const dropped = await rejection(provider({ baseURL: server.baseURL, apiKey: 'k' }).instance.search({ query: 'q' }))
    expect([dropped.code, dropped.fault, dropped.partial]).toEqual(['WEB_PROVIDER_ERROR', { kind: 'unavailable' }, true])
    expect(dropped.message).toMatch(/^DeepSeek answer broke off before its end: /)
    server.reply = (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'content-length': '1000' })
      response.write('{"error":', () => response.socket?.destroy())
    }
    const down = await rejection(provider({ baseURL: server.baseURL, apiKey: 'k' }).instance.search({ query: 'q' }))
    expect([down.code, down.fault, down.partial]).toEqual(['WEB_PROVIDER_ERROR', { kind: 'unavailable' }, false])
  })

  it('a record that cannot be written stops the dispatch', async () => {
    const server = await api()
    const { instance } = provider({ baseURL: server.baseURL, apiKey: 'k' }, {
      record: () => {
        throw new Error('disk full')
      },
    })
    expect((await rejection(instance.search({ query: 'q' }))).message).toContain('could not be recorded: disk full')
    expect(server.received).toHaveLength(0)
  })

  it('D09: available() is false only for an endpoint that does not parse', () => {
    expect(provider({}).instance.available()).toBe(true)
    vi.stubEnv('DEEPSEEK_SEARCH_BASE_URL', 'not a url')
    expect(provider({}).instance.available()).toBe(false)
  })

  it('D29: bad config fails the load naming the field', () => {
    for (const [config, field] of [[{ maxTokens: 0 }, 'maxTokens'], [{ maxUses: 0 }, 'maxUses'], [{ maxUses: 1.5 }, 'maxUses'], [{ baseURL: 'ftp://x' }, 'baseURL'], [{ apiKeyEnv: 'not-a-name' }, 'apiKeyEnv'], [{ timeoutMs: 0 }, 'timeoutMs'], [{ apikey: 'x' }, 'apikey']] as const) {
      expect(() => Config(config), field).toThrow(field)
    }
  })
})

describe('the plugin in a host', () => {
  async function host(config: Record<string, unknown>) {
    const { app, fork, stop } = await providerHost(deepseek, config, { searchProvider: 'deepseek-official' })
    cleanups.push(stop)
    return { app, fork }
  }

  it('D28, D31, D37: credentials per call (store, rotate), one log event per query, readiness from the probe; unloading unregisters', async () => {
    const server = await api()
    vi.stubEnv('DSH_TEST_DEEPSEEK_KEY', '')
    const { app, fork } = await host({ baseURL: server.baseURL, apiKeyEnv: 'DSH_TEST_DEEPSEEK_KEY' })
    const session = app.sessions.create({ cwd: process.cwd() })
    const call = () => app.tools.execute({ name: 'web_search', arguments: { queries: ['one', 'two'] }, session })

    const probe = () => app.readiness.report({ probe: true }).then((rows) => rows.find((row) => row.id === 'search:deepseek-official'))
    expect(await probe()).toMatchObject({ state: 'no_credential', tools: ['web_search'] })
    const missing = await call()
    expect(missing.isError && missing.error.code).toBe('WEB_PROVIDER_CREDENTIAL_MISSING')

    vi.stubEnv('DSH_TEST_DEEPSEEK_KEY', 'first-key')
    // Found but not verified until a search uses it: dsh status never calls the API.
    expect(await probe()).toMatchObject({ state: 'idle' })
    const found = await call()
    expect(found.isError).toBe(false)
    expect(await probe()).toMatchObject({ state: 'ready' })
    vi.stubEnv('DSH_TEST_DEEPSEEK_KEY', 'rotated-key')
    await call()
    expect(server.received.map((request) => request.headers['x-api-key'])).toEqual(['first-key', 'first-key', 'rotated-key', 'rotated-key'])

    const events = session.events.filter((event) => event.type === deepseek.REQUEST_EVENT)
    expect(events).toHaveLength(4)
    expect(events.map((event) => (event.data as { body: { messages: { content: { text: string }[] }[] } }).body.messages[0]!.content[0]!.text).slice(0, 2).sort()).toEqual([
      'Perform a web search for the query: one',
      'Perform a web search for the query: two',
    ])
    expect(events[0]!.data).toEqual({ endpoint: `${server.baseURL}/messages`, apiVersion: '2023-06-01', body: server.received[0]!.body })
    expect(JSON.stringify(session.events)).not.toContain('first-key')

    fork.dispose()
    const gone = await app.tools.execute({ name: 'web_search', arguments: { queries: ['x'] } })
    expect(gone.isError && gone.error.code).toBe('WEB_PROVIDER_CONFIGURED_MISSING')
  })
})

