import { Context, type ForkScope, type Plugin } from 'cordis'
import ReadinessService from 'dsh-core/readiness'
import WebService, { WebError, type ProviderFault, type WebSearchProvider, type WebSearchRequest, type WebSearchResult } from 'dsh-web'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { rejection } from './rejection.ts'

// Search selection as data (issue 23): a failover list, cooldowns from Retry-After or a default,
// shared by every caller of the host's ctx.web, a clock the test owns (no waiting), and one row per
// provider in `dsh status`. The providers here are scripted; the packages' own tests and the
// tool's dsh test run the same paths over HTTP against loopback fakes of Brave and Tavily.

const T0 = Date.parse('2026-03-01T12:00:00.000Z')

interface Scripted {
  readonly provider: WebSearchProvider
  readonly calls: WebSearchRequest[]
  /** What the next calls do; the default answers one source named after the provider. */
  next: (request: WebSearchRequest, signal: AbortSignal | undefined) => Promise<WebSearchResult>
}

function scripted(id: string): Scripted {
  const entry: Scripted = {
    calls: [],
    next: async () => ({ sources: [{ url: `https://${id}.test/` }], truncated: false }),
    provider: {
      id,
      available: () => true,
      search: (request, signal) => {
        entry.calls.push(request)
        return entry.next(request, signal)
      },
    },
  }
  return entry
}

const fault = (message: string, value: ProviderFault) => async (): Promise<never> => {
  throw new WebError(message, 'WEB_PROVIDER_ERROR', { fault: value })
}

let now = T0
const apps: Context[] = []

/** The seam with the test's clock, as a harness would construct it. */
async function boot(config: Record<string, unknown>, options: { readiness?: boolean } = {}): Promise<Context> {
  class ClockedWeb extends WebService {
    constructor(ctx: Context, settings: Record<string, unknown>) {
      super(ctx, settings, { now: () => now })
    }
  }
  const app = new Context()
  apps.push(app)
  if (options.readiness) app.plugin(ReadinessService)
  ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(ClockedWeb as unknown as Plugin, config)
  await app.start()
  return app
}

async function withProviders(config: Record<string, unknown>, ids: string[], options: { readiness?: boolean } = {}): Promise<{ app: Context; providers: Scripted[] }> {
  const app = await boot(config, options)
  const providers = ids.map(scripted)
  for (const entry of providers) app.web.registerSearchProvider(entry.provider)
  return { app, providers }
}


afterEach(async () => {
  now = T0
  vi.unstubAllEnvs()
  await Promise.all(apps.splice(0).map((app) => app.stop()))
})

describe('failover along a searchProvider list', () => {
  it('429 with Retry-After in seconds: the next provider serves, the first cools down for exactly that long', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('A API error (HTTP 429)', { kind: 'rate_limited', retryAfter: '30' })
    expect(await app.web.search({ query: 'q' })).toEqual({ sources: [{ url: 'https://b.test/' }], truncated: false, provider: 'b', skipped: [{ id: 'a', state: 'cooling_down', reason: 'A API error (HTTP 429)' }] })
    expect(app.web.searchProviderStates()).toEqual([
      { id: 'a', state: 'cooling_down', until: T0 + 30_000, reason: 'A API error (HTTP 429)' },
      { id: 'b', state: 'ready', reason: '' },
    ])
    expect([a!.calls.length, b!.calls.length]).toEqual([1, 1])
  })

  it('429 with Retry-After as an HTTP date: cools down until that date', async () => {
    const { app, providers: [a] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: new Date(T0 + 90_000).toUTCString() })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toMatchObject({ state: 'cooling_down', until: T0 + 90_000 })
  })

  it('429 without Retry-After (or with one that is not a delay): the default cooldown, searchCooldownMs', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'], searchCooldownMs: 5_000 }, ['a', 'b'])
    a!.next = fault('rate limited', { kind: 'rate_limited' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toMatchObject({ state: 'cooling_down', until: T0 + 5_000 })
    now = T0 + 5_000
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: 'soon' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toMatchObject({ state: 'cooling_down', until: T0 + 10_000 })
    expect([a!.calls.length, b!.calls.length]).toEqual([2, 2])
  })

  it('a Retry-After past searchMaxCooldownMs is cut to it; a spent quota without one cools for the longest', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b', 'c'], searchMaxCooldownMs: 600_000 }, ['a', 'b', 'c'])
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: '86400' })
    b!.next = fault('quota spent', { kind: 'quota_exhausted' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('c')
    expect(app.web.searchProviderStates().map((report) => report.until)).toEqual([T0 + 600_000, T0 + 600_000, undefined])
  })

  it('503: fails over and cools down', async () => {
    const { app, providers: [a] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('A API error (HTTP 503)', { kind: 'unavailable', retryAfter: '7' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toEqual({ id: 'a', state: 'cooling_down', until: T0 + 7_000, reason: 'A API error (HTTP 503)' })
  })

  it("the provider's own timeout (WEB_SEARCH_TIMEOUT): fails over and cools down", async () => {
    const { app, providers: [a] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = async () => {
      throw new WebError('A search timed out after 10000 ms', 'WEB_SEARCH_TIMEOUT')
    }
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toMatchObject({ state: 'cooling_down', reason: 'A search timed out after 10000 ms' })
  })

  it('400 (the query is bad everywhere): no failover, the error reaches the caller, nobody cools down', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = async () => {
      throw new WebError('A API error (HTTP 400): query too long', 'WEB_PROVIDER_ERROR')
    }
    const error = await rejection(app.web.search({ query: 'q' }))
    expect([error.code, error.message]).toEqual(['WEB_PROVIDER_ERROR', 'A API error (HTTP 400): query too long'])
    expect(b!.calls).toHaveLength(0)
    expect(app.web.searchProviderStates().map((report) => report.state)).toEqual(['ready', 'ready'])
  })

  it('a missing key moves on without a cooldown: the next search looks for the key again', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = async () => {
      throw new WebError('A has no API key for "A_KEY"', 'WEB_PROVIDER_CREDENTIAL_MISSING')
    }
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toEqual({ id: 'a', state: 'no_credential', reason: 'A has no API key for "A_KEY"' })
    a!.next = async () => ({ sources: [], truncated: false })
    expect((await app.web.search({ query: 'q' })).provider).toBe('a')
    expect([a!.calls.length, b!.calls.length, app.web.searchProviderStates()[0]?.state]).toEqual([2, 1, 'ready'])
  })

  it("an unreadable answer is failing: skipped for the default cooldown, tried again after it", async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'], searchCooldownMs: 1_000 }, ['a', 'b'])
    a!.next = fault('A refused the key (HTTP 401)', { kind: 'failing' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(app.web.searchProviderStates()[0]).toEqual({ id: 'a', state: 'failing', until: T0 + 1_000, reason: 'A refused the key (HTTP 401)' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(a!.calls).toHaveLength(1)
    now = T0 + 1_000
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect([a!.calls.length, b!.calls.length]).toEqual([2, 3])
  })

  it('a failure after the provider began its answer (partial): no failover, the error reaches the caller, the provider cools down', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = async () => {
      throw new WebError('A search answer broke off before its end: terminated', 'WEB_PROVIDER_ERROR', { fault: { kind: 'unavailable' }, partial: true })
    }
    const error = await rejection(app.web.search({ query: 'q' }))
    expect([error.code, error.message, error.partial]).toEqual(['WEB_PROVIDER_ERROR', 'A search answer broke off before its end: terminated', true])
    expect(b!.calls).toHaveLength(0)
    expect(app.web.searchProviderStates()[0]).toEqual({ id: 'a', state: 'cooling_down', until: T0 + 60_000, reason: 'A search answer broke off before its end: terminated' })
    // The next search starts afresh: the cooling provider is skipped.
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
  })

  it("the caller's abort during an attempt: no failover and no cooldown", async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    const controller = new AbortController()
    a!.next = async (_request, signal) => {
      controller.abort()
      throw new WebError('A search aborted', 'WEB_ABORTED', { cause: signal?.reason })
    }
    expect((await rejection(app.web.search({ query: 'q' }, controller.signal))).code).toBe('WEB_ABORTED')
    expect([b!.calls.length, app.web.searchProviderStates()[0]?.state]).toEqual([0, 'ready'])
  })

  it('a provider that is not registered or not available is passed over', async () => {
    const { app, providers: [off, b] } = await withProviders({ searchProvider: ['gone', 'off', 'b'] }, ['off', 'b'])
    app.web.registerSearchProvider({ ...off!.provider, id: 'off2' })
    Object.assign(off!.provider, { available: () => false })
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect([off!.calls.length, b!.calls.length]).toEqual([0, 1])
  })
})

describe('cooldowns over time and across callers', () => {
  it('when the cooldown ends the provider is tried again, and a success makes it ready', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: '60' })
    await app.web.search({ query: 'q' })
    now = T0 + 59_999
    expect((await app.web.search({ query: 'q' })).provider).toBe('b')
    expect(a!.calls).toHaveLength(1)
    now = T0 + 60_000
    a!.next = async () => ({ sources: [], truncated: false })
    expect((await app.web.search({ query: 'q' })).provider).toBe('a')
    expect(app.web.searchProviderStates()[0]).toEqual({ id: 'a', state: 'ready', reason: '' })
    expect([a!.calls.length, b!.calls.length]).toEqual([2, 2])
  })

  it('20 concurrent searches during a cooldown send nothing to the cooling provider', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: '60' })
    await app.web.search({ query: 'first' })
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => app.web.search({ query: `q${index}` })))
    expect(results.every((result) => result.provider === 'b')).toBe(true)
    expect([a!.calls.length, b!.calls.length]).toEqual([1, 21])
  })

  it('20 concurrent searches when the cooldown ends send one trial request; the others fail over meanwhile', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: '60' })
    await app.web.search({ query: 'first' })
    now = T0 + 60_000
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    a!.next = async () => {
      await held
      return { sources: [], truncated: false }
    }
    const searches = Array.from({ length: 20 }, (_, index) => app.web.search({ query: `q${index}` }))
    await vi.waitFor(() => expect(b!.calls).toHaveLength(1 + 19))
    expect(a!.calls).toHaveLength(2)
    expect(app.web.searchProviderStates()[0]?.state).toBe('cooling_down')
    release()
    const served = (await Promise.all(searches)).map((result) => result.provider)
    expect(served.filter((id) => id === 'a')).toHaveLength(1)
    expect(app.web.searchProviderStates()[0]?.state).toBe('ready')
  })

  it('the cooldown belongs to the host: a search from another plugin of the same app skips the provider too', async () => {
    const { app, providers: [a] } = await withProviders({ searchProvider: ['a', 'b'] }, ['a', 'b'])
    a!.next = fault('rate limited', { kind: 'rate_limited', retryAfter: '60' })
    await app.web.search({ query: 'q' })
    let fromPlugin: WebSearchResult | undefined
    app.plugin({ inject: ['web'], apply: async (ctx: Context) => void (fromPlugin = await ctx.web.search({ query: 'other session' })) })
    await vi.waitFor(() => expect(fromPlugin?.provider).toBe('b'))
    expect(a!.calls).toHaveLength(1)
  })

  it('every provider cooling down or without a key: one coded error at once, listing each state', async () => {
    const { app, providers: [a, b, c] } = await withProviders({ searchProvider: ['a', 'b', 'c', 'gone'] }, ['a', 'b', 'c'])
    a!.next = fault('A API error (HTTP 429)', { kind: 'rate_limited', retryAfter: '30' })
    b!.next = fault('B API error (HTTP 503)', { kind: 'unavailable' })
    c!.next = async () => {
      throw new WebError('C has no API key for "C_KEY"', 'WEB_PROVIDER_CREDENTIAL_MISSING')
    }
    const first = await rejection(app.web.search({ query: 'q' }))
    const expected =
      'no web search provider can serve this search now (' +
      'a: cooling down until 2026-03-01T12:00:30.000Z: A API error (HTTP 429); ' +
      'b: cooling down until 2026-03-01T12:01:00.000Z: B API error (HTTP 503); ' +
      'c: no credential: C has no API key for "C_KEY"; ' +
      'gone: unavailable: not registered)'
    expect([first.code, first.message]).toEqual(['WEB_PROVIDER_UNAVAILABLE', expected])
    const second = await rejection(app.web.search({ query: 'q' }))
    expect([second.code, second.message]).toEqual(['WEB_PROVIDER_UNAVAILABLE', expected])
    // The cooling providers were not asked again; the one without a key looked for its key again.
    expect([a!.calls.length, b!.calls.length, c!.calls.length]).toEqual([1, 1, 2])
  })
})

describe('other selections', () => {
  it('searchProvider: auto is every registered provider, in id order', async () => {
    const { app, providers: [z, m] } = await withProviders({ searchProvider: 'auto' }, ['z', 'm'])
    expect((await app.web.search({ query: 'q' })).provider).toBe('m')
    m!.next = fault('down', { kind: 'unavailable' })
    expect((await app.web.search({ query: 'q' })).provider).toBe('z')
    expect(app.web.searchProviderStates().map((report) => report.id)).toEqual(['m', 'z'])
    expect(z!.calls).toHaveLength(1)
  })

  it('a pinned provider that cools down fails at once, naming until when; its own error on the call that hit the limit', async () => {
    const { app, providers: [a, b] } = await withProviders({ searchProvider: 'a' }, ['a', 'b'])
    a!.next = fault('A API error (HTTP 429)', { kind: 'rate_limited', retryAfter: '30' })
    const hit = await rejection(app.web.search({ query: 'q' }))
    expect([hit.code, hit.message]).toEqual(['WEB_PROVIDER_ERROR', 'A API error (HTTP 429)'])
    const cooling = await rejection(app.web.search({ query: 'q' }))
    expect([cooling.code, cooling.message]).toEqual([
      'WEB_PROVIDER_CONFIGURED_UNAVAILABLE',
      'configured web search provider "a" is registered but unavailable: cooling down until 2026-03-01T12:00:30.000Z: A API error (HTTP 429)',
    ])
    expect([a!.calls.length, b!.calls.length]).toEqual([1, 0])
  })

  it('DSH_WEB_SEARCH_PROVIDER takes a comma-separated failover list, or auto; config wins', async () => {
    vi.stubEnv('DSH_WEB_SEARCH_PROVIDER', ' b , a ')
    const fromEnv = await withProviders({}, ['a', 'b'])
    expect(fromEnv.app.web.configured('search')).toBe('b,a')
    expect((await fromEnv.app.web.search({ query: 'q' })).provider).toBe('b')
    vi.stubEnv('DSH_WEB_SEARCH_PROVIDER', 'auto')
    expect((await boot({})).web.configured('search')).toBe('auto')
    expect((await boot({ searchProvider: ['x', 'y'] })).web.configured('search')).toBe('x,y')
  })

  it('config that cannot work fails the load naming the field', () => {
    const fails = (config: unknown) => () => WebService.Config(config)
    expect(fails({ searchProvider: [] })).toThrow('must list at least one provider id')
    expect(fails({ searchProvider: ['a', 'a'] })).toThrow('lists a provider id twice')
    expect(fails({ searchProvider: ['a', 'auto'] })).toThrow('stands alone, not in a list')
    expect(fails({ searchProvider: ['a', ' '] })).toThrow('must be a non-empty provider id')
    expect(fails({ searchCooldownMs: -1 })).toThrow('searchCooldownMs')
    expect(fails({ searchMaxCooldownMs: 1.5 })).toThrow('searchMaxCooldownMs')
  })
})

describe('dsh status rows', () => {
  it('one row per provider with its state, until when it cools down, and its place in the list', async () => {
    const { app, providers: [a] } = await withProviders({ searchProvider: ['a', 'b', 'missing'] }, ['a', 'b', 'other'], { readiness: true })
    a!.next = fault('A API error (HTTP 429)', { kind: 'rate_limited', retryAfter: '30' })
    await app.web.search({ query: 'q' })
    const rows = (await app.readiness.report()).map(({ id, state, detail }) => ({ id, state, detail }))
    expect(rows).toEqual([
      { id: 'search:a', state: 'cooling_down', detail: 'until 2026-03-01T12:00:30.000Z: A API error (HTTP 429); failover 1 of 3 (searchProvider)' },
      { id: 'search:b', state: 'ready', detail: 'failover 2 of 3 (searchProvider)' },
      { id: 'search:missing', state: 'unavailable', detail: 'searchProvider lists "missing", but no provider with that id is registered (is its row mounted?); failover 3 of 3 (searchProvider)' },
      { id: 'search:other', state: 'ready', detail: 'not selected: searchProvider is [a, b, missing]' },
    ])
    now = T0 + 30_000
    expect((await app.readiness.report()).find((row) => row.id === 'search:a')).toMatchObject({ state: 'ready', detail: 'failover 1 of 3 (searchProvider)' })
  })

  it("a provider's probe decides between ready and no_credential; a key the last search missed shows until then", async () => {
    const app = await boot({ searchProvider: ['a'] }, { readiness: true })
    let key: string | undefined
    const provider: WebSearchProvider = {
      id: 'a',
      available: () => true,
      status: () => ({ state: 'idle', detail: 'key A_KEY is looked up at each search' }),
      probe: async () => (key ? { state: 'ready', detail: 'key A_KEY found' } : { state: 'no_credential', detail: 'no A_KEY' }),
      search: async () => {
        throw new WebError('A has no API key for "A_KEY"', 'WEB_PROVIDER_CREDENTIAL_MISSING')
      },
    }
    app.web.registerSearchProvider(provider)
    await rejection(app.web.search({ query: 'q' }))
    expect(await app.readiness.report()).toMatchObject([{ id: 'search:a', state: 'no_credential', detail: 'A has no API key for "A_KEY"; failover 1 of 1 (searchProvider)' }])
    key = 'k'
    expect(await app.readiness.report({ probe: true })).toMatchObject([{ id: 'search:a', state: 'ready', detail: 'key A_KEY found; failover 1 of 1 (searchProvider)' }])
  })
})
