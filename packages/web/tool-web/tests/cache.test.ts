import { afterEach, describe, expect, it } from 'vitest'
import { FetchCache, type FetchValue } from '../src/index.ts'
import { boot, fetchProvider, page, textOf, type Harness } from './harness.ts'

// Issue 19 item 12: a web_fetch cache (lru-cache): the same URL and conversion within cacheTtlMs is
// answered from memory, bounded by cacheMaxBytes, keyed by the final URL too; never an error
// status or a truncated body.

let host: Harness | undefined
afterEach(async () => {
  await host?.stop()
  host = undefined
})

const metaOf = (result: Awaited<ReturnType<Harness['fetch']>>) => (result.isError ? undefined : result.meta)

describe('the fetch cache', () => {
  it('a second fetch of the same URL is answered from memory with meta.cached; the final URL finds it too', async () => {
    host = await boot()
    const scripted = fetchProvider(page('<h1>Cached</h1>', 'html', { url: 'https://a.test/final' }))
    host.app.web.registerFetchProvider(scripted.provider)
    const first = await host.fetch({ url: 'https://a.test/start' })
    const second = await host.fetch({ url: 'https://a.test/start' })
    const byFinal = await host.fetch({ url: 'https://a.test/final' })
    expect(scripted.calls).toHaveLength(1)
    expect(metaOf(first)).toEqual({ url: 'https://a.test/final', statusCode: 200, truncated: false })
    expect(metaOf(second)).toEqual({ url: 'https://a.test/final', statusCode: 200, truncated: false, cached: true })
    expect(metaOf(byFinal)).toMatchObject({ cached: true })
    expect(textOf(second)).toBe(textOf(first))
  })

  it('the conversion is part of the key: main content and the whole page are cached apart', async () => {
    host = await boot()
    const scripted = fetchProvider(page('<p>x</p>'))
    host.app.web.registerFetchProvider(scripted.provider)
    await host.fetch({ url: 'https://a.test' })
    await host.fetch({ url: 'https://a.test', mainContent: true })
    await host.fetch({ url: 'https://a.test', mainContent: true })
    expect(scripted.calls).toHaveLength(2)
  })

  it('error statuses and truncated bodies are never cached; cacheTtlMs 0 turns it off', async () => {
    for (const answer of [page('gone', 'text', { statusCode: 404 }), page('<p>cut</p>', 'html', { truncated: true }), page('server error', 'text', { statusCode: 500 })]) {
      host = await boot()
      const scripted = fetchProvider(answer)
      host.app.web.registerFetchProvider(scripted.provider)
      await host.fetch({ url: 'https://a.test' })
      await host.fetch({ url: 'https://a.test' })
      expect(scripted.calls, JSON.stringify(answer)).toHaveLength(2)
      await host.stop()
    }
    host = await boot({ cacheTtlMs: 0 })
    const scripted = fetchProvider(page('<p>x</p>'))
    host.app.web.registerFetchProvider(scripted.provider)
    await host.fetch({ url: 'https://a.test' })
    await host.fetch({ url: 'https://a.test' })
    expect(scripted.calls).toHaveLength(2)
  })

  it('entries expire after ttlMs and the least recently used go first past maxBytes', () => {
    // lru-cache reads a start time of 0 as "no time-to-live": the clock starts later.
    let now = 10_000
    const clock = { now: () => now }
    const value = (url: string, size: number): FetchValue => ({ url, statusCode: 200, body: { kind: 'text', content: 'x'.repeat(size) }, truncated: false })
    const cache = new FetchCache({ ttlMs: 1000, maxBytes: 13_000 }, clock)
    cache.put('https://a.test/', value('https://a.test/', 1000), false)
    now = 10_999
    expect(cache.get('https://a.test/', false)).toBeDefined()
    now = 11_001
    expect(cache.get('https://a.test/', false)).toBeUndefined()
    for (const name of ['one', 'two', 'three']) cache.put(`https://${name}.test/`, value(`https://${name}.test/`, 2000), false)
    cache.get('https://one.test/', false)
    cache.put('https://four.test/', value('https://four.test/', 2000), false)
    expect(['one', 'two', 'three', 'four'].map((name) => !!cache.get(`https://${name}.test/`, false))).toEqual([true, false, true, true])
  })

  it('cacheTtlMs and cacheMaxBytes are checked at load', async () => {
    const { Config } = await import('../src/index.ts')
    expect(() => Config({ cacheTtlMs: -1 })).toThrow('cacheTtlMs')
    expect(() => Config({ cacheMaxBytes: 0 })).toThrow('cacheMaxBytes')
    expect(Config({})).toMatchObject({ cacheTtlMs: 900_000, cacheMaxBytes: 50_000_000 })
  })
})
