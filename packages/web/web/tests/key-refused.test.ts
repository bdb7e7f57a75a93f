import type { Context } from 'cordis'
import WebService, { httpFault, type WebSearchProvider } from 'dsh-web'
import { registerKeyedSearch, type KeyedSearchOptions } from 'dsh-web/keyed-search'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { json, loopbackApi, type LoopbackApi } from './loopback-api.ts'
import { providerHost } from './provider-host.ts'
import { rejection } from './rejection.ts'

// Issue 31 item 7: a provider whose key the API refuses (401/403) is `failing` with that reason
// until its key changes, not retried with the same key once per cooldown forever; a search served
// by the next provider says in its metadata which provider was passed over and why; and no status
// calls a key `ready` that no search has verified (dsh status never calls the API).

const T0 = Date.parse('2026-03-01T12:00:00.000Z')
const GOOD = 'good-key-5b1f0c'
const BAD = 'bad-key-93ad7e'
let now = T0

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  now = T0
  vi.unstubAllEnvs()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** An API that accepts GOOD and refuses every other key with 401. */
async function api(): Promise<LoopbackApi> {
  const server = await loopbackApi((request, response) => {
    if (request.headers.authorization === `Bearer ${GOOD}`) return json(200, { results: [{ url: 'https://keyed.test/' }] })(request, response)
    return json(401, { message: `invalid key ${String(request.headers.authorization)}` })(request, response)
  })
  cleanups.push(() => server.close())
  return server
}

function keyedPlugin(server: LoopbackApi) {
  return {
    name: 'web-search-keyed',
    inject: ['web'],
    apply(ctx: Context) {
      const options: KeyedSearchOptions = { apiKeyEnv: 'DSH_TEST_KEYED_KEY', timeoutMs: 5_000, maxResponseBytes: 100_000 }
      registerKeyedSearch(ctx, {
        id: 'keyed',
        name: 'Keyed',
        row: 'web-search-keyed',
        event: 'web/keyed-search-request',
        options: () => options,
        endpoint: () => `${server.origin}/search`,
        request: (search, _options, key) => ({ url: new URL(`${server.origin}/search?q=${encodeURIComponent(search.query)}`), method: 'GET', headers: { authorization: `Bearer ${key}` }, record: {} }),
        refusal: (status, headers, body) => ({ detail: (body as { message?: string } | undefined)?.message, fault: status === 401 || status === 403 ? { kind: 'key_refused' } : httpFault(status, headers) }),
        map: (body) => ({ sources: (body as { results: { url: string }[] }).results, truncated: false }),
      })
    },
  }
}

const standBy: WebSearchProvider = { id: 'standby', available: () => true, search: async () => ({ sources: [{ url: 'https://standby.test/' }], truncated: false }) }

async function host(server: LoopbackApi, searchProvider: string | string[]) {
  class ClockedWeb extends WebService {
    constructor(ctx: Context, settings: Record<string, unknown>) {
      super(ctx, settings, { now: () => now })
    }
  }
  const { app, stop } = await providerHost(keyedPlugin(server), {}, { searchProvider, searchCooldownMs: 60_000 }, ClockedWeb)
  app.web.registerSearchProvider(standBy)
  cleanups.push(stop)
  const row = async (probe: boolean) => (await app.readiness.report({ probe })).find((entry) => entry.id === 'search:keyed')
  return { app, row }
}

describe('a refused key', () => {
  it('is failing with the reason until the key changes: no request with that key again, however long; the next provider serves and meta says why', async () => {
    const server = await api()
    vi.stubEnv('DSH_TEST_KEYED_KEY', BAD)
    const { app, row } = await host(server, ['keyed', 'standby'])

    const first = await app.tools.execute({ name: 'web_search', arguments: { queries: ['q'] } })
    expect(first.isError).toBe(false)
    const meta = (first as unknown as { meta: { provider: string; skipped: { id: string; state: string; reason: string }[] } }).meta
    expect(meta.provider).toBe('standby')
    expect(meta.skipped).toEqual([{ id: 'keyed', state: 'failing', reason: expect.stringContaining('Keyed API error (HTTP 401)') }])
    expect(meta.skipped[0]!.reason).toContain('refused')
    expect(meta.skipped[0]!.reason).not.toContain(BAD)
    expect(server.received).toHaveLength(1)

    // Far past any cooldown: the same key is not sent again, and the provider stays failing.
    for (const hours of [1, 5, 48]) {
      now = T0 + hours * 3_600_000
      const again = await app.web.search({ query: 'q' })
      expect(again.provider).toBe('standby')
      expect(again.skipped).toEqual([{ id: 'keyed', state: 'failing', reason: expect.stringContaining('refused') }])
    }
    expect(server.received).toHaveLength(1)
    expect(app.web.searchProviderStates()[0]).toMatchObject({ id: 'keyed', state: 'failing' })
    for (const probe of [false, true]) {
      const status = await row(probe)
      expect(status?.state, `probe ${probe}`).toBe('failing')
      expect(status?.detail).toContain('refused')
      expect(status?.detail).not.toContain(BAD)
    }

    // Pinned, the caller gets the coded refusal at once, without a request.
    const pinned = await host(server, 'keyed')
    const refused = await rejection(pinned.app.web.search({ query: 'q' }))
    expect(server.received).toHaveLength(2)
    const again = await rejection(pinned.app.web.search({ query: 'q' }))
    expect([refused.code, again.code, again.fault]).toEqual(['WEB_PROVIDER_KEY_REFUSED', 'WEB_PROVIDER_KEY_REFUSED', { kind: 'key_refused' }])
    expect(server.received).toHaveLength(2)

    // A new key is tried at the next search, and serves.
    vi.stubEnv('DSH_TEST_KEYED_KEY', GOOD)
    expect((await row(true))?.state).toBe('idle')
    const served = await app.web.search({ query: 'q' })
    expect([served.provider, served.skipped]).toEqual(['keyed', undefined])
    expect(server.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${BAD}`, `Bearer ${BAD}`, `Bearer ${GOOD}`])
    expect(await row(true)).toMatchObject({ state: 'ready', detail: expect.stringContaining('accepted') })
    expect(await row(false)).toMatchObject({ state: 'ready' })
  })

  it('a key found but never used is not called ready: dsh status does not call the API', async () => {
    const server = await api()
    vi.stubEnv('DSH_TEST_KEYED_KEY', BAD)
    const { row } = await host(server, ['keyed', 'standby'])
    const status = await row(true)
    expect(status?.state).toBe('idle')
    expect(status?.detail).toContain('key DSH_TEST_KEYED_KEY found; not verified')
    expect(server.received).toHaveLength(0)
  })
})

describe('the key verdict', () => {
  it('knows the last key again by a string compare: searches hash nothing; a changed key is tried (and refused or served) as before', async () => {
    const server = await api()
    vi.stubEnv('DSH_TEST_KEYED_KEY', GOOD)
    const { app } = await host(server, 'keyed')
    const createHash = vi.spyOn(process.getBuiltinModule('node:crypto'), 'createHash')
    for (let i = 0; i < 5; i++) expect((await app.web.search({ query: 'q' })).provider).toBe('keyed')
    vi.stubEnv('DSH_TEST_KEYED_KEY', BAD)
    for (let i = 0; i < 3; i++) expect((await rejection(app.web.search({ query: 'q' }))).code).toBe('WEB_PROVIDER_KEY_REFUSED')
    expect(createHash).toHaveBeenCalledTimes(0)
    expect(server.received.map((request) => request.headers.authorization)).toEqual([...Array(5).fill(`Bearer ${GOOD}`), `Bearer ${BAD}`])
    createHash.mockRestore()
  })
})
