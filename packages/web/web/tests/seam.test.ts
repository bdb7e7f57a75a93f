import { Context, type ForkScope, type Plugin } from 'cordis'
import { HarnessError, Lifetime } from 'dsh-core'
import ReadinessService from 'dsh-core/readiness'
import WebService, { WebError, type WebFetchProvider, type WebFetchResult, type WebSearchProvider, type WebSearchResult } from 'dsh-web'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { rejection } from './rejection.ts'

// Reference checklist (reference/web.md §8, W01–W24) against a real cordis Context, plus the
// readiness rows the seam adds for `dsh status`.

interface Recording<P> {
  provider: P
  calls: { request: unknown; signal: AbortSignal | undefined }[]
  usable: boolean
}

/** A provider of either kind that records its calls and answers `result`. */
function recording<P>(id: string, method: 'search' | 'fetch', result: unknown, usable: boolean): Recording<P> {
  const recorded: Recording<P> = {
    calls: [] as Recording<P>['calls'],
    usable,
    provider: {
      id,
      available: (): boolean => recorded.usable,
      [method]: async (request: unknown, signal: AbortSignal | undefined) => {
        recorded.calls.push({ request, signal })
        return result
      },
    } as unknown as P,
  }
  return recorded
}

const searchProvider = (id: string, result: WebSearchResult = { sources: [], truncated: false }, usable = true) => recording<WebSearchProvider>(id, 'search', result, usable)
const OK_PAGE: WebFetchResult = { url: 'https://a.test/', statusCode: 200, body: { kind: 'text', content: 'ok' }, truncated: false }
const fetchProvider = (id: string, result: WebFetchResult = OK_PAGE) => recording<WebFetchProvider>(id, 'fetch', result, true)

const sources = (...urls: string[]) => urls.map((url) => ({ url }))


async function codeOf(promise: Promise<unknown>): Promise<string> {
  return (await rejection(promise)).code
}

function thrownCode(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(WebError)
    return (error as WebError).code
  }
  throw new Error('expected a synchronous throw')
}

const apps: Context[] = []
async function boot(config: Record<string, unknown> = {}, options: { readiness?: boolean } = {}): Promise<Context> {
  const app = new Context()
  apps.push(app)
  if (options.readiness) app.plugin(ReadinessService)
  ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(WebService as unknown as Plugin, config)
  await app.start()
  return app
}

afterEach(async () => {
  vi.unstubAllEnvs()
  await Promise.all(apps.splice(0).map((app) => app.stop()))
})

describe('registration', () => {
  it('W01: the disposer unregisters the provider', async () => {
    const app = await boot()
    const dispose = app.web.registerSearchProvider(searchProvider('a').provider)
    await app.web.search({ query: 'q' })
    dispose()
    expect(await codeOf(app.web.search({ query: 'q' }))).toBe('WEB_PROVIDER_UNAVAILABLE')
  })

  it('W02, W03: a duplicate id is refused synchronously for either kind; the first stays', async () => {
    const app = await boot()
    const first = searchProvider('a', { sources: sources('https://first.test'), truncated: false })
    app.web.registerSearchProvider(first.provider)
    expect(thrownCode(() => app.web.registerSearchProvider(searchProvider('a').provider))).toBe('WEB_DUPLICATE_PROVIDER')
    expect(() => app.web.registerSearchProvider(searchProvider('a').provider)).toThrow('"a"')
    expect((await app.web.search({ query: 'q' })).sources).toEqual(sources('https://first.test'))
    app.web.registerFetchProvider(fetchProvider('f').provider)
    expect(thrownCode(() => app.web.registerFetchProvider(fetchProvider('f').provider))).toBe('WEB_DUPLICATE_PROVIDER')
  })

  it('W04: a search and a fetch provider may share an id', async () => {
    const app = await boot()
    app.web.registerSearchProvider(searchProvider('shared').provider)
    expect(() => app.web.registerFetchProvider(fetchProvider('shared').provider)).not.toThrow()
  })

  it('W05: unloading the registering plugin unregisters its provider; the id can be registered again', async () => {
    const app = await boot()
    const fork = app.plugin({
      inject: ['web'],
      apply: (ctx: Context) => {
        ctx.web.registerSearchProvider(searchProvider('a').provider)
      },
    })
    await app.events.flush()
    await app.web.search({ query: 'q' })
    fork.dispose()
    expect(await codeOf(app.web.search({ query: 'q' }))).toBe('WEB_PROVIDER_UNAVAILABLE')
    expect(() => app.web.registerSearchProvider(searchProvider('a').provider)).not.toThrow()
  })

  it('a malformed provider is refused with WEB_INVALID_PROVIDER', async () => {
    const app = await boot()
    expect(thrownCode(() => app.web.registerSearchProvider({ id: ' ', available: () => true, search: async () => ({ sources: [], truncated: false }) }))).toBe('WEB_INVALID_PROVIDER')
    expect(thrownCode(() => app.web.registerFetchProvider({ id: 'x', available: () => true } as unknown as WebFetchProvider))).toBe('WEB_INVALID_PROVIDER')
  })
})

describe('selection', () => {
  it('W06, W07: nothing registered, or nothing usable, is WEB_PROVIDER_UNAVAILABLE with the reasons', async () => {
    const app = await boot()
    expect(await codeOf(app.web.search({ query: 'q' }))).toBe('WEB_PROVIDER_UNAVAILABLE')
    app.web.registerSearchProvider({ ...searchProvider('a', undefined, false).provider, status: () => ({ state: 'unavailable', detail: 'no key' }) })
    app.web.registerSearchProvider(searchProvider('b', undefined, false).provider)
    const error = await rejection(app.web.search({ query: 'q' }))
    expect(error.code).toBe('WEB_PROVIDER_UNAVAILABLE')
    expect(error.message).toBe('no usable web search provider is registered (a: no key; b: unavailable)')
  })

  it('W08: a configured id that is not registered fails even when another provider is usable', async () => {
    const app = await boot({ searchProvider: 'missing' })
    app.web.registerSearchProvider(searchProvider('a').provider)
    const error = await rejection(app.web.search({ query: 'q' }))
    expect(error.code).toBe('WEB_PROVIDER_CONFIGURED_MISSING')
    // The message names what is registered instead, so a typo in the id shows beside the right one.
    expect(error.message).toBe('configured web search provider "missing" is not registered (registered: a)')
    const bare = await boot({ searchProvider: 'missing' })
    expect((await rejection(bare.web.search({ query: 'q' }))).message).toBe('configured web search provider "missing" is not registered (no web search provider is registered; is its row mounted?)')
  })

  it('W09: a configured but unavailable provider fails without falling back', async () => {
    const app = await boot({ searchProvider: 'a' })
    const a = searchProvider('a', undefined, false)
    const b = searchProvider('b')
    app.web.registerSearchProvider(a.provider)
    app.web.registerSearchProvider(b.provider)
    expect(await codeOf(app.web.search({ query: 'q' }))).toBe('WEB_PROVIDER_CONFIGURED_UNAVAILABLE')
    expect(b.calls).toHaveLength(0)
  })

  it('W10: two usable providers and none configured is ambiguous, naming both', async () => {
    const app = await boot()
    app.web.registerSearchProvider(searchProvider('b').provider)
    app.web.registerSearchProvider(searchProvider('a').provider)
    const error = await rejection(app.web.search({ query: 'q' }))
    expect(error.code).toBe('WEB_PROVIDER_AMBIGUOUS')
    expect(error.message).toContain('(a, b)')
  })

  it('W11: a configured id wins over another usable provider', async () => {
    const app = await boot({ searchProvider: 'b' })
    const a = searchProvider('a')
    const b = searchProvider('b')
    app.web.registerSearchProvider(a.provider)
    app.web.registerSearchProvider(b.provider)
    await app.web.search({ query: 'q' })
    expect([a.calls.length, b.calls.length]).toEqual([0, 1])
  })

  it('W12, W13: auto-selection ignores unavailable providers, whatever the registration order', async () => {
    for (const order of [0, 1]) {
      const app = await boot()
      const usable = searchProvider('usable')
      const broken = searchProvider('broken', undefined, false)
      for (const recording of order ? [broken, usable] : [usable, broken]) app.web.registerSearchProvider(recording.provider)
      await app.web.search({ query: 'q' })
      expect([usable.calls.length, broken.calls.length]).toEqual([1, 0])
    }
  })

  it('W24: availability is asked on every call', async () => {
    const app = await boot()
    const late = searchProvider('late', undefined, false)
    app.web.registerSearchProvider(late.provider)
    expect(await codeOf(app.web.search({ query: 'q' }))).toBe('WEB_PROVIDER_UNAVAILABLE')
    late.usable = true
    await app.web.search({ query: 'q' })
    expect(late.calls).toHaveLength(1)
  })

  it('a provider whose available() throws is treated as unusable, with the reason', async () => {
    const app = await boot()
    app.web.registerSearchProvider({ ...searchProvider('bad').provider, available: () => { throw new Error('boom') } })
    await expect(app.web.search({ query: 'q' })).rejects.toThrow('bad: available() threw: boom')
  })

  it('W22, W23: the environment supplies the id when config does not; config wins', async () => {
    vi.stubEnv('DSH_WEB_SEARCH_PROVIDER', 'b')
    vi.stubEnv('DSH_WEB_FETCH_PROVIDER', 'g')
    const fromEnv = await boot()
    expect([fromEnv.web.configured('search'), fromEnv.web.configured('fetch')]).toEqual(['b', 'g'])
    const a = searchProvider('a')
    const b = searchProvider('b')
    fromEnv.web.registerSearchProvider(a.provider)
    fromEnv.web.registerSearchProvider(b.provider)
    await fromEnv.web.search({ query: 'q' })
    expect(b.calls).toHaveLength(1)
    const fromConfig = await boot({ searchProvider: 'a', fetchProvider: 'f' })
    expect([fromConfig.web.configured('search'), fromConfig.web.configured('fetch')]).toEqual(['a', 'f'])
  })

  it('an empty environment override counts as unset; a blank configured id is refused at load', async () => {
    vi.stubEnv('DSH_WEB_SEARCH_PROVIDER', '')
    const app = await boot()
    expect(app.web.configured('search')).toBeUndefined()
    expect(() => WebService.Config({ searchProvider: ' ' })).toThrow('searchProvider')
    expect(() => WebService.Config({ searchProviders: 'a' })).toThrow('searchProviders')
  })
})

describe('results', () => {
  it('W14, W15: the provider result passes unchanged, named by its provider; the signal arrives as the same object', async () => {
    const app = await boot()
    const result = { content: 'answer', sources: sources('https://a.test'), truncated: false }
    const a = searchProvider('a', result)
    app.web.registerSearchProvider(a.provider)
    const signal = new AbortController().signal
    expect(await app.web.search({ query: 'q' }, signal)).toEqual({ ...result, provider: 'a' })
    expect(a.calls[0]?.signal).toBe(signal)
  })

  it('W16–W18: maxResults cuts and marks truncated; a smaller list or no bound passes unchanged', async () => {
    const app = await boot()
    app.web.registerSearchProvider(searchProvider('a', { sources: sources('1', '2', '3'), truncated: false }).provider)
    expect(await app.web.search({ query: 'q', maxResults: 2 })).toEqual({ sources: sources('1', '2'), truncated: true, provider: 'a' })
    expect(await app.web.search({ query: 'q', maxResults: 8 })).toEqual({ sources: sources('1', '2', '3'), truncated: false, provider: 'a' })
    expect(await app.web.search({ query: 'q' })).toEqual({ sources: sources('1', '2', '3'), truncated: false, provider: 'a' })
  })

  it('W19, W20: fetch uses the fetch registry only and returns the provider result', async () => {
    const app = await boot()
    app.web.registerSearchProvider(searchProvider('a').provider)
    expect(await codeOf(app.web.fetch({ url: 'https://a.test' }))).toBe('WEB_PROVIDER_UNAVAILABLE')
    const f = fetchProvider('f')
    app.web.registerFetchProvider(f.provider)
    const signal = new AbortController().signal
    expect(await app.web.fetch({ url: 'https://a.test' }, signal)).toEqual({ url: 'https://a.test/', statusCode: 200, body: { kind: 'text', content: 'ok' }, truncated: false })
    expect(f.calls[0]).toEqual({ request: { url: 'https://a.test' }, signal })
  })

  it('a lifetime reaches fetchWithin as the same object; a provider without it gets the lifetime\'s signal', async () => {
    const app = await boot()
    const within: unknown[] = []
    const signals: unknown[] = []
    app.web.registerFetchProvider({ id: 'f', available: () => true, fetch: async () => Promise.reject(new Error('not this way')), fetchWithin: async (_request, lifetime) => (within.push(lifetime), OK_PAGE) })
    const lifetime = Lifetime.following(undefined)
    expect(await app.web.fetch({ url: 'https://a.test' }, lifetime)).toEqual(OK_PAGE)
    expect(within).toEqual([lifetime])
    const plain = await boot()
    plain.web.registerFetchProvider({ id: 'g', available: () => true, fetch: async (_request, signal) => (signals.push(signal), OK_PAGE) })
    expect(await plain.web.fetch({ url: 'https://a.test' }, lifetime)).toEqual(OK_PAGE)
    expect(signals).toEqual([lifetime.signal])
    expect(() => plain.web.registerFetchProvider({ id: 'h', available: () => true, fetch: async () => OK_PAGE, fetchWithin: 'no' } as unknown as WebFetchProvider)).toThrow(
      expect.objectContaining({ code: 'WEB_INVALID_PROVIDER', message: 'web fetch provider "h": fetchWithin must be a function when given' }),
    )
    lifetime.dispose()
  })

  it('W21: WebError is a HarnessError with its code and name', () => {
    const error = new WebError('boom', 'WEB_INVALID_URL')
    expect(error).toBeInstanceOf(HarnessError)
    expect([error.code, error.name, error.message]).toEqual(['WEB_INVALID_URL', 'WebError', 'boom'])
  })
})

describe('readiness rows', () => {
  it('one row per provider, with its state and whether selection uses it', async () => {
    const app = await boot({ searchProvider: 'pinned' }, { readiness: true })
    const report = () => app.readiness.report().then((rows) => rows.map(({ id, state, detail }) => ({ id, state, detail })))
    expect(await report()).toEqual([{ id: 'search:pinned', state: 'unavailable', detail: 'searchProvider is "pinned", but no provider with that id is registered (is its row mounted?)' }])
    app.web.registerSearchProvider({ ...searchProvider('pinned', undefined, false).provider, status: () => ({ state: 'unavailable', detail: 'no API key' }) })
    app.web.registerSearchProvider(searchProvider('other').provider)
    const one = fetchProvider('one')
    const disposeOne = app.web.registerFetchProvider(one.provider)
    app.web.registerFetchProvider(fetchProvider('two').provider)
    expect(await report()).toEqual([
      { id: 'fetch:one', state: 'ready', detail: 'ambiguous: one, two are all usable; set fetchProvider' },
      { id: 'fetch:two', state: 'ready', detail: 'ambiguous: one, two are all usable; set fetchProvider' },
      { id: 'search:other', state: 'ready', detail: 'not selected: searchProvider is "pinned"' },
      { id: 'search:pinned', state: 'unavailable', detail: 'no API key' },
    ])
    disposeOne()
    expect((await report()).map((row) => row.id)).toEqual(['fetch:two', 'search:other', 'search:pinned'])
  })

  it('a probe runs the provider probe', async () => {
    const app = await boot({}, { readiness: true })
    app.web.registerSearchProvider({ ...searchProvider('a').provider, probe: async () => ({ state: 'ready', detail: 'key from env' }) })
    expect(await app.readiness.report({ probe: true })).toMatchObject([{ surface: 'web', id: 'search:a', state: 'ready', detail: 'key from env' }])
  })
})
