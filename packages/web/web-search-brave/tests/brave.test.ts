import { Lifetime } from 'dsh-core'
import * as brave from 'dsh-web-search-brave'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { hang, json, type Reply } from '../../web/tests/loopback-api.ts'
import { providerHost, type ProviderHost } from '../../web/tests/provider-host.ts'
import { rejection } from '../../web/tests/rejection.ts'
import { CORDIS, fakeBrave, halfAnswer, invalidToken, rateLimited, results, validation, type BraveResult, type FakeBrave } from './fake-brave.ts'

// dsh-web-search-brave against a Brave-shaped server on loopback: the request, the mapping, every
// error answer with the fault it means for failover, the key's path (credentials per search,
// never in a message, a record or a redirect), readiness, config, unloading.

const KEY = 'BSA-test-key-0123456789'
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function api(reply?: Reply): Promise<FakeBrave> {
  const created = await fakeBrave(reply)
  cleanups.push(() => created.close())
  return created
}

/** Pinned to brave with no cooldown, so every search reaches the provider (the seam's tests cover cooldowns). */
async function host(config: Record<string, unknown>, web: Record<string, unknown> = { searchProvider: 'brave', searchCooldownMs: 0, searchMaxCooldownMs: 0 }): Promise<ProviderHost> {
  const created = await providerHost(brave, { apiKeyEnv: 'DSH_TEST_BRAVE_KEY', ...config }, web)
  cleanups.push(() => created.stop())
  return created
}

/** A search through ctx.web, pinned to brave, with the key in the environment. */
async function withKey(server: FakeBrave, config: Record<string, unknown> = {}): Promise<ProviderHost> {
  vi.stubEnv('DSH_TEST_BRAVE_KEY', KEY)
  return host({ baseURL: server.baseURL, ...config })
}

describe('one search', () => {
  it('GET /web/search with q, count, web results only, plain snippets; the key in X-Subscription-Token; the answer mapped and named', async () => {
    const server = await api()
    const { app } = await withKey(server)
    const session = app.sessions.create({ cwd: process.cwd() })
    const result = await app.tools.execute({ name: 'web_search', arguments: { queries: ['cordis'] }, session })
    expect(result.isError).toBe(false)
    expect(result.isError || result.value).toEqual({
      sources: [
        { url: 'https://cordis.io/', title: 'Cordis', snippet: 'Meta-framework for modern JavaScript applications.', publishedAt: '2026-01-02T00:00:00' },
        { url: 'https://github.com/cordiverse/cordis', title: 'cordiverse/cordis' },
      ],
      truncated: false,
      provider: 'brave',
    })
    expect(result.isError || result.meta).toMatchObject({ provider: 'brave' })
    const [request] = server.received
    expect([request?.method, `${request?.url.pathname}${request?.url.search}`]).toEqual(['GET', '/res/v1/web/search?q=cordis&count=8&result_filter=web&text_decorations=false'])
    expect(request?.headers['x-subscription-token']).toBe(KEY)
    expect(request?.headers.accept).toBe('application/json')
    // The record is the URL sent, and nothing of the key.
    const events = session.events.filter((event) => event.type === brave.REQUEST_EVENT)
    expect(events.map((event) => event.data)).toEqual([{ url: `${server.baseURL}/web/search?q=cordis&count=8&result_filter=web&text_decorations=false` }])
    expect(JSON.stringify(session.events)).not.toContain(KEY)
  })

  it('count is maxResults up to Brave’s 20; country, search_lang and safesearch when configured', async () => {
    const server = await api()
    const { app } = await withKey(server, { country: 'DE', searchLang: 'de', safesearch: 'strict' })
    await app.web.search({ query: 'ein Test', maxResults: 50 })
    await app.web.search({ query: 'q' })
    expect(server.received.map((request) => Object.fromEntries(request.url.searchParams))).toEqual([
      { q: 'ein Test', count: '20', result_filter: 'web', text_decorations: 'false', country: 'DE', search_lang: 'de', safesearch: 'strict' },
      { q: 'q', count: '20', result_filter: 'web', text_decorations: 'false', country: 'DE', search_lang: 'de', safesearch: 'strict' },
    ])
  })

  it('an answer without web results has no sources; duplicate and non-web URLs are dropped', async () => {
    const server = await api(json(200, { type: 'search', query: { original: 'zzz' } }))
    const { app } = await withKey(server)
    expect(await app.web.search({ query: 'zzz' })).toEqual({ sources: [], truncated: false, provider: 'brave' })
    server.reply = results([...CORDIS, { url: 'https://cordis.io/', title: 'again' }, { url: 'javascript:alert(1)', title: 'x' }])
    expect((await app.web.search({ query: 'q' })).sources.map((source) => source.url)).toEqual(['https://cordis.io/', 'https://github.com/cordiverse/cordis'])
  })
})

describe('a result whose URL carries credentials', () => {
  it('is dropped by web_search (value, text and meta): https://www.example.com@evil.test/ reads as example.com and goes to evil.test, and web_fetch refuses it', async () => {
    const server = await api(results([{ url: 'https://www.example.com@evil.test/login', title: 'Example sign-in' }, { url: 'https://user:pw@d.test/', title: 'creds' }, ...CORDIS]))
    const { app } = await withKey(server)
    const session = app.sessions.create({ cwd: process.cwd() })
    const result = await app.tools.execute({ name: 'web_search', arguments: { queries: ['cordis'] }, session })
    const urls = ['https://cordis.io/', 'https://github.com/cordiverse/cordis']
    expect(result.isError || (result.value as { sources: { url: string }[] }).sources.map((source) => source.url)).toEqual(urls)
    expect((result.meta as { sources: { url: string }[] }).sources.map((source) => source.url)).toEqual(urls)
    const text = result.content.map((block) => block.text).join('')
    expect(text).not.toContain('evil.test')
    expect(text).not.toContain('d.test')
  })
})

describe('a result with a field of another type', () => {
  it('a title, description or page_age that is not a string leaves the field out, not the result: the source is kept with its URL and labelled by its host', async () => {
    const odd = [
      { url: 'https://numbers.test/a', title: 42, description: 'kept snippet' },
      { url: 'https://objects.test/b', title: { text: 'x' }, description: ['y'], page_age: 7 },
      { url: 42, title: 'no url' },
    ] as unknown as BraveResult[]
    const server = await api(results([...odd, ...CORDIS]))
    const { app } = await withKey(server)
    const session = app.sessions.create({ cwd: process.cwd() })
    const result = await app.tools.execute({ name: 'web_search', arguments: { queries: ['cordis'] }, session })
    expect(result.isError || (result.value as { sources: unknown }).sources).toEqual([
      { url: 'https://numbers.test/a', snippet: 'kept snippet' },
      { url: 'https://objects.test/b' },
      { url: 'https://cordis.io/', title: 'Cordis', snippet: 'Meta-framework for modern JavaScript applications.', publishedAt: '2026-01-02T00:00:00' },
      { url: 'https://github.com/cordiverse/cordis', title: 'cordiverse/cordis' },
    ])
    const text = result.content.map((block) => block.text).join('')
    expect(text).toContain('- [numbers.test](https://numbers.test/a) — kept snippet\n- [objects.test](https://objects.test/b)\n')
  })
})

describe('what a cut says', () => {
  it('a title shortened (past 500 characters) says so and not "Showing the first N sources"; sources dropped at searchMaxResults say that; both say both', async () => {
    const long = { url: 'https://long.test/', title: `Long ${'t'.repeat(600)}`, description: 'short' }
    const server = await api(results([long, ...CORDIS]))
    const { app } = await withKey(server)
    const session = app.sessions.create({ cwd: process.cwd() })
    const search = async () => {
      const result = await app.tools.execute({ name: 'web_search', arguments: { queries: ['cordis'] }, session })
      const card = app.tools.presentResult('web_search', { queries: ['cordis'] }, result) as { cut?: string } | undefined
      const meta = result.meta as { cut?: string } | undefined
      return { value: result.isError ? undefined : (result.value as { truncated: boolean; cut?: string; sources: unknown[] }), text: result.content.map((block) => block.text).join(''), cuts: [meta?.cut, card?.cut] }
    }
    const shortened = await search()
    expect([shortened.value?.truncated, shortened.value?.cut, shortened.value?.sources.length]).toEqual([true, 'text', 3])
    // The meta a harness stores and the result card carry the same cut as the value.
    expect(shortened.cuts).toEqual(['text', 'text'])
    expect(shortened.text).not.toContain('Showing the first')
    expect(shortened.text).toContain('(Long provider text was shortened: the answer, a title or a snippet. Fetch the source to read it whole.)')

    // Brave sends more than were asked for: the seam keeps maxResults (8) and marks the rest dropped.
    const many = Array.from({ length: 10 }, (_, index) => ({ url: `https://many.test/${index}`, title: `Result ${index}` }))
    server.reply = results(many)
    const dropped = await search()
    expect([dropped.value?.truncated, dropped.value?.cut, dropped.value?.sources.length]).toEqual([true, 'sources', 8])
    expect(dropped.cuts).toEqual(['sources', 'sources'])
    expect(dropped.text).toContain('(Showing the first 8 sources. Refine the query to see others.)')
    expect(dropped.text).not.toContain('shortened')

    server.reply = results([long, ...many])
    const both = await search()
    expect([both.value?.truncated, both.value?.cut]).toEqual([true, 'both'])
    expect(both.cuts).toEqual(['both', 'both'])
    expect(both.text).toContain('(Showing the first 8 sources. Refine the query to see others.)\n\n(Long provider text was shortened')
  })
})

describe('error answers and the fault each one means', () => {
  it('429 on the per-second window: rate_limited, back after X-RateLimit-Reset’s first window', async () => {
    const server = await api(rateLimited())
    const { app } = await withKey(server)
    const error = await rejection(app.web.search({ query: 'q' }))
    expect([error.code, error.message, error.fault]).toEqual(['WEB_PROVIDER_ERROR', 'Brave Search API error (HTTP 429): RATE_LIMITED: Request rate limit exceeded for plan.', { kind: 'rate_limited', retryAfter: '1' }])
  })

  it('429 with Retry-After: that wins; 429 with the monthly window spent: quota_exhausted until it resets', async () => {
    const server = await api(rateLimited({ retryAfter: '17' }))
    const { app } = await withKey(server)
    expect((await rejection(app.web.search({ query: 'q' }))).fault).toEqual({ kind: 'rate_limited', retryAfter: '17' })
    server.reply = rateLimited({ remaining: '1, 0', reset: '1, 1419704' })
    expect((await rejection(app.web.search({ query: 'q' }))).fault).toEqual({ kind: 'quota_exhausted', retryAfter: '1419704' })
    server.reply = rateLimited({ remaining: 'garbage', reset: '' })
    expect((await rejection(app.web.search({ query: 'q' }))).fault).toEqual({ kind: 'rate_limited' })
  })

  it('a refused key (422 SUBSCRIPTION_TOKEN_INVALID, or 401/403) is key_refused, and not sent again; 402 a spent plan', async () => {
    const server = await api(invalidToken)
    const { app } = await withKey(server)
    const refused = await rejection(app.web.search({ query: 'q' }))
    expect([refused.code, refused.message, refused.fault]).toEqual([
      'WEB_PROVIDER_KEY_REFUSED',
      'Brave Search API error (HTTP 422): SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid.; its key DSH_TEST_BRAVE_KEY was refused and is not sent again until it changes',
      { kind: 'key_refused' },
    ])
    server.reply = json(200, { web: { results: [] } })
    expect((await rejection(app.web.search({ query: 'q' }))).code).toBe('WEB_PROVIDER_KEY_REFUSED')
    expect(server.received).toHaveLength(1)
    for (const status of [401, 403]) expect(brave.braveRefusal(status, new Headers(), { message: 'no' }).fault).toEqual({ kind: 'key_refused' })
    expect(brave.braveRefusal(402, new Headers(), {}).fault).toEqual({ kind: 'quota_exhausted' })
  })

  it('a query Brave refuses (422 VALIDATION) has no fault: it is bad everywhere', async () => {
    const server = await api(validation('Unable to validate request parameter(s): q too long'))
    const { app } = await withKey(server)
    const error = await rejection(app.web.search({ query: 'x'.repeat(500) }))
    expect([error.code, error.message, error.fault]).toEqual(['WEB_PROVIDER_ERROR', 'Brave Search API error (HTTP 422): VALIDATION: Unable to validate request parameter(s): q too long', undefined])
  })

  it('503 is unavailable, with its Retry-After; its own deadline is WEB_SEARCH_TIMEOUT', async () => {
    const server = await api(json(503, 'upstream down', { 'retry-after': '5' }))
    const { app } = await withKey(server)
    const down = await rejection(app.web.search({ query: 'q' }))
    expect([down.message, down.fault]).toEqual(['Brave Search API error (HTTP 503)', { kind: 'unavailable', retryAfter: '5' }])
    // A short deadline only where the server never answers: on a busy machine 300 ms can pass
    // before a prompt answer arrives.
    server.reply = hang
    const { app: impatient } = await withKey(server, { timeoutMs: 300 })
    const slow = await rejection(impatient.web.search({ query: 'q' }))
    expect([slow.code, slow.message]).toEqual(['WEB_SEARCH_TIMEOUT', 'Brave Search search timed out after 300 ms'])
  })

  it('an endpoint nobody listens on is unavailable, with the socket error', async () => {
    const closed = await fakeBrave()
    await closed.close()
    const { app } = await withKey(closed)
    const gone = await rejection(app.web.search({ query: 'q' }))
    expect([gone.code, gone.fault]).toEqual(['WEB_PROVIDER_ERROR', { kind: 'unavailable' }])
    expect(gone.message).toMatch(/^Brave Search request failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/)
  })

  it('a redirect is refused and its Location never contacted; a body that is not JSON or too large is failing', async () => {
    const elsewhere = await api(results())
    const server = await api((_request, response) => {
      response.writeHead(307, { location: `${elsewhere.baseURL}/web/search?q=stolen` })
      response.end()
    })
    const { app } = await withKey(server, { maxResponseBytes: 10_000 })
    const redirected = await rejection(app.web.search({ query: 'q' }))
    expect([redirected.message, redirected.fault]).toEqual(['Brave Search search was redirected (HTTP 307); redirects are not followed, so the key stays with the configured endpoint', { kind: 'failing' }])
    expect(elsewhere.received).toHaveLength(0)
    server.reply = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end('<html>captcha</html>')
    }
    const html = await rejection(app.web.search({ query: 'q' }))
    expect([html.message, html.fault]).toEqual(['Brave Search returned a body that is not JSON (content-type text/html)', { kind: 'failing' }])
    server.reply = json(200, { web: { results: 'x'.repeat(20_000) } })
    expect((await rejection(app.web.search({ query: 'q' }))).message).toBe('Brave Search returned more than 10000 bytes (maxResponseBytes)')
    server.reply = json(200, { web: { results: 'not a list' } })
    expect((await rejection(app.web.search({ query: 'q' }))).fault).toEqual({ kind: 'failing' })
  })

  it('an error answer that echoes the key shows it redacted, on one line', async () => {
    const server = await api(json(400, { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: `token ${KEY}\nis not allowed here` } }))
    const { app } = await withKey(server)
    const error = await rejection(app.web.search({ query: 'q' }))
    expect(error.message).toBe('Brave Search API error (HTTP 400): VALIDATION: token [redacted] is not allowed here')
  })
})

describe('a key the API echoes (issue 31 item 6)', () => {
  const forms = [encodeURIComponent(`${KEY}/`).slice(0, -3), Buffer.from(KEY).toString('base64'), Buffer.from(KEY).toString('base64url'), KEY.toUpperCase(), KEY.toLowerCase(), `${KEY.slice(0, 9)}\n${KEY.slice(9)}`, `${KEY.slice(0, 4)} \r\n ${KEY.slice(4)}`]

  it('an error answer shows it redacted URL-encoded, in base64, upper- or lower-cased, and split across lines', async () => {
    for (const form of forms) {
      const server = await api(json(400, { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: `token ${form} is not allowed` } }))
      const { app } = await withKey(server)
      const error = await rejection(app.web.search({ query: 'q' }))
      expect(error.message, JSON.stringify(form)).toBe('Brave Search API error (HTTP 400): VALIDATION: token [redacted] is not allowed')
    }
  })

  it('a success answer that echoes it in a title, a snippet or a URL: redacted in the text and in meta.sources', async () => {
    const server = await api(
      results([
        { url: `https://echo.test/?key=${encodeURIComponent(KEY)}`, title: `Your key is ${KEY}`, description: `snippet ${Buffer.from(KEY).toString('base64')} end` },
        { url: 'https://clean.test/', title: `split ${KEY.slice(0, 5)}\n${KEY.slice(5)}` },
      ]),
    )
    const { app } = await withKey(server)
    const result = await app.tools.execute({ name: 'web_search', arguments: { queries: ['q'] } })
    const text = result.content.map((block) => block.text).join('')
    const meta = JSON.stringify(result.isError ? undefined : result.meta)
    for (const shown of [text, meta, JSON.stringify(result.isError ? undefined : result.value)]) {
      expect(shown).toContain('[redacted]')
      for (const form of [KEY, encodeURIComponent(KEY), Buffer.from(KEY).toString('base64'), KEY.slice(5)]) expect(shown).not.toContain(form)
    }
  })
})

describe('an answer under way is never handed to another provider', () => {
  /** Brave first in a failover list, a scripted provider standing by behind it; a cooldown no test outlives. */
  async function withStandby(server: FakeBrave, config: Record<string, unknown> = {}) {
    vi.stubEnv('DSH_TEST_BRAVE_KEY', KEY)
    const created = await host({ baseURL: server.baseURL, ...config }, { searchProvider: ['brave', 'standby'], searchCooldownMs: 3_600_000 })
    const standby: string[] = []
    created.app.web.registerSearchProvider({
      id: 'standby',
      available: () => true,
      search: async ({ query }) => {
        standby.push(query)
        return { sources: [{ url: 'https://standby.test/' }], truncated: false }
      },
    })
    return { app: created.app, standby }
  }

  it('the body stalls half-way past the deadline: WEB_SEARCH_TIMEOUT reaches the caller, the standby is not asked, brave cools down', async () => {
    const server = await api(halfAnswer('stall'))
    const { app, standby } = await withStandby(server, { timeoutMs: 300 })
    const error = await rejection(app.web.search({ query: 'q' }))
    expect([error.code, error.message, error.partial]).toEqual(['WEB_SEARCH_TIMEOUT', 'Brave Search search timed out after 300 ms while its answer was arriving', true])
    expect(standby).toEqual([])
    expect(app.web.searchProviderStates()[0]).toMatchObject({ id: 'brave', state: 'cooling_down' })
    // The next search skips the cooling provider.
    expect((await app.web.search({ query: 'next' })).provider).toBe('standby')
    expect([server.received.length, standby]).toEqual([1, ['next']])
  })

  it('the connection drops half-way through the body: WEB_PROVIDER_ERROR reaches the caller, the standby is not asked', async () => {
    const server = await api(halfAnswer('drop'))
    const { app, standby } = await withStandby(server)
    const error = await rejection(app.web.search({ query: 'q' }))
    expect([error.code, error.partial]).toEqual(['WEB_PROVIDER_ERROR', true])
    expect(error.message).toMatch(/^Brave Search answer broke off before its end: /)
    expect(standby).toEqual([])
  })

  it('a whole answer that cannot be read is not under way: the standby serves', async () => {
    const server = await api(json(200, { web: { results: 'not a list' } }))
    const { app, standby } = await withStandby(server)
    expect((await app.web.search({ query: 'q' })).provider).toBe('standby')
    expect(standby).toEqual(['q'])
  })
})

describe('the key, readiness and lifetime', () => {
  it('no key: WEB_PROVIDER_CREDENTIAL_MISSING with the remedies, nothing sent; the probe says no_credential, then idle (found, not verified), ready once a search used it', async () => {
    const server = await api()
    vi.stubEnv('DSH_TEST_BRAVE_KEY', '')
    const { app } = await host({ baseURL: server.baseURL })
    const row = async (probe: boolean) => (await app.readiness.report({ probe })).find((entry) => entry.id === 'search:brave')
    expect(await row(false)).toMatchObject({ state: 'idle', detail: `key DSH_TEST_BRAVE_KEY is looked up at each search; ${server.baseURL}/web/search` })
    const missing = await rejection(app.web.search({ query: 'q' }))
    expect([missing.code, missing.message]).toEqual([
      'WEB_PROVIDER_CREDENTIAL_MISSING',
      'Brave Search has no API key for "DSH_TEST_BRAVE_KEY". Store it as DSH_TEST_BRAVE_KEY in ~/.dsh/.env, or in the project\'s .env once its workspace is trusted (dsh trust), for the credentials service, export DSH_TEST_BRAVE_KEY in the environment that launches dsh, or set a literal apiKey in the web-search-brave config.',
    ])
    expect(server.received).toHaveLength(0)
    // After that search the row says what it found; the probe looks again.
    expect(await row(false)).toMatchObject({ state: 'no_credential' })
    expect(await row(true)).toMatchObject({ state: 'no_credential', detail: missing.message })
    vi.stubEnv('DSH_TEST_BRAVE_KEY', KEY)
    expect(await row(true)).toMatchObject({ state: 'idle', detail: `key DSH_TEST_BRAVE_KEY found; not verified: dsh status does not call the API, a search does (a refused key then shows as failing); ${server.baseURL}/web/search` })
    // The probe never calls the API, and the next search uses the key found now.
    expect(server.received).toHaveLength(0)
    await app.web.search({ query: 'q' })
    expect(server.received.map((request) => request.headers['x-subscription-token'])).toEqual([KEY])
    expect(await row(true)).toMatchObject({ state: 'ready', detail: expect.stringMatching(/^key DSH_TEST_BRAVE_KEY found; accepted by a search at /) })
  })

  it('on a caller\'s Lifetime (searchWithin): its own deadline is WEB_SEARCH_TIMEOUT, the caller\'s abort and the plugin\'s unloading WEB_ABORTED, and the caller\'s lifetime lives on', async () => {
    const server = await api(hang)
    const { app: impatient } = await withKey(server, { timeoutMs: 300 })
    const caller = new Lifetime()
    const slow = await rejection(impatient.web.search({ query: 'q' }, caller))
    expect([slow.code, caller.active]).toEqual(['WEB_SEARCH_TIMEOUT', true])
    const { app, fork } = await withKey(server)
    const aborting = new Lifetime()
    const aborted = rejection(app.web.search({ query: 'q' }, aborting))
    await vi.waitFor(() => expect(server.received).toHaveLength(2))
    aborting.abort()
    expect((await aborted).code).toBe('WEB_ABORTED')
    const pending = rejection(app.web.search({ query: 'q' }, caller))
    await vi.waitFor(() => expect(server.received).toHaveLength(3))
    fork.dispose()
    expect([(await pending).code, (await pending).message, caller.active]).toEqual(['WEB_ABORTED', 'Brave Search search aborted: the provider was unloaded', true])
  })

  it('unloading the plugin ends a search in flight with WEB_ABORTED and removes the provider', async () => {
    const server = await api(hang)
    const { app, fork } = await withKey(server)
    const pending = rejection(app.web.search({ query: 'q' }))
    await vi.waitFor(() => expect(server.received).toHaveLength(1))
    fork.dispose()
    expect((await pending).code).toBe('WEB_ABORTED')
    expect((await rejection(app.web.search({ query: 'q' }))).code).toBe('WEB_PROVIDER_CONFIGURED_MISSING')
  })

  it('a bad config value fails the load naming the field', () => {
    for (const [config, field] of [[{ baseURL: 'ftp://x' }, 'baseURL'], [{ apiKeyEnv: 'not a name' }, 'apiKeyEnv'], [{ country: 'DEU' }, 'country'], [{ safesearch: 'on' }, 'safesearch'], [{ timeoutMs: 0 }, 'timeoutMs'], [{ apikey: 'x' }, 'apikey']] as const) {
      expect(() => brave.Config(config), field).toThrow(field)
    }
  })
})
