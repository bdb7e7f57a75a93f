import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ForkScope, Plugin } from 'cordis'
import { deepFreeze } from 'dsh-core'
import * as fetchHttp from 'dsh-web-fetch-http'
import TurndownService from 'turndown'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { withMarkdown } from '../src/convert.ts'
import { renderFetch, type FetchValue } from '../src/fetch.ts'
import {
  fetchMeta,
  presentFetchCall,
  presentFetchResult,
  presentSearchCall,
  presentSearchResult,
  readFetchMeta,
  readSearchMeta,
  searchMeta,
} from '../src/index.ts'
import { boot, fetchProvider, page, searchProvider, textOf, type Harness } from './harness.ts'

// Presentation (reference/web.md §4.2–§4.3, §8 T34–T38, T53–T57): the meta kept with each result,
// its readers, and the UI cards, at unit level and through the real tools runtime.

let host: Harness | undefined
const servers: Server[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await host?.stop()
  host = undefined
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

const FOOTER = '(Content truncated.'
// An HTML value gets its Markdown as the tool gives it one (the whole page converted), unless `extra` names one.
const fetched = (content: string, kind: FetchValue['body']['kind'] = 'html', extra: Partial<FetchValue> = {}): FetchValue => withMarkdown({ url: 'https://a.test', statusCode: 200, body: { kind, content }, truncated: false, ...extra })

describe('web_search meta and cards', () => {
  const full = { content: 'the answer', sources: [{ url: 'https://a.test/x', title: 'A', snippet: 'about a', publishedAt: '2026-01-01' }, { url: 'https://b.test/y' }], truncated: true }

  it('T34: { answer, truncated, sources }, absent optional fields omitted, no answer without content', () => {
    expect(searchMeta(full)).toEqual({ answer: 'the answer', truncated: true, sources: full.sources })
    const bare = searchMeta({ sources: [{ url: 'https://b.test/y' }], truncated: false })
    expect(bare).toEqual({ sources: [{ url: 'https://b.test/y' }], truncated: false })
    expect('answer' in bare).toBe(false)
  })

  it('T35: the meta survives a round trip through the reader, the serving provider included', () => {
    const meta = searchMeta({ ...full, provider: 'brave' })
    expect(meta.provider).toBe('brave')
    expect(readSearchMeta(JSON.parse(JSON.stringify(meta)))).toEqual(meta)
    expect(readSearchMeta({ ...meta, provider: 7 })).toBeUndefined()
  })

  it('T36: the reader refuses every malformed shape and accepts the empty one', () => {
    const source = { url: 'https://a.test' }
    const malformed: unknown[] = [
      undefined,
      null,
      'meta',
      [],
      {},
      { sources: 'none', truncated: false },
      { sources: [], truncated: 'no' },
      { sources: [], truncated: false, answer: 1 },
      { sources: [null], truncated: false },
      { sources: [{ url: 1 }], truncated: false },
      { sources: [{ ...source, title: 1 }], truncated: false },
      { sources: [{ ...source, snippet: 1 }], truncated: false },
      { sources: [{ ...source, publishedAt: 1 }], truncated: false },
    ]
    for (const meta of malformed) expect(readSearchMeta(meta), JSON.stringify(meta)).toBeUndefined()
    expect(readSearchMeta({ sources: [], truncated: false })).toEqual({ sources: [], truncated: false })
  })

  it('T37: the web/search card is titled by the joined queries; undefined for an error or bad meta; no answer key without one', () => {
    const args = { queries: ['one', 'two'] }
    expect(presentSearchResult(args, { isError: false, meta: searchMeta(full) })).toEqual({ card: 'web', kind: 'search', title: 'one, two', sources: full.sources, truncated: true, answer: 'the answer' })
    const noAnswer = presentSearchResult(args, { isError: false, meta: { sources: [], truncated: false } })
    expect(noAnswer).toEqual({ card: 'web', kind: 'search', title: 'one, two', sources: [], truncated: false })
    expect(noAnswer && 'answer' in noAnswer).toBe(false)
    expect(presentSearchResult(args, { isError: true, meta: searchMeta(full) })).toBeUndefined()
    expect(presentSearchResult(args, { isError: false, meta: { sources: 'none' } })).toBeUndefined()
    expect(presentSearchResult(args, { isError: false })).toBeUndefined()
  })

  it('T38: the call card joins the queries', () => {
    expect(presentSearchCall({ queries: ['one', 'two'] })).toEqual({ card: 'generic', title: 'one, two', kind: 'search', rawInput: 'one, two' })
  })

  it('through the runtime: the result carries the meta, and ctx.tools presents both cards', async () => {
    host = await boot()
    host.app.web.registerSearchProvider(searchProvider({ content: 'the answer', sources: [{ url: 'https://a.test/x', title: 'A' }], truncated: false }).provider)
    const args = { queries: ['cordis'] }
    const result = await host.search(args)
    expect(result.meta).toEqual({ answer: 'the answer', sources: [{ url: 'https://a.test/x', title: 'A' }], truncated: false, provider: 'scripted' })
    expect(host.app.tools.presentCall('web_search', args)).toEqual({ card: 'generic', kind: 'search', title: 'cordis', rawInput: 'cordis' })
    expect(host.app.tools.presentResult('web_search', args, result)).toEqual({ card: 'web', kind: 'search', title: 'cordis', answer: 'the answer', sources: [{ url: 'https://a.test/x', title: 'A' }], truncated: false, provider: 'scripted' })
    const failed = await host.search({ queries: [] })
    expect([failed.isError, 'meta' in failed, host.app.tools.presentResult('web_search', args, failed)]).toEqual([true, false, undefined])
  })
})

describe('web_fetch meta and cards', () => {
  it('T53: { url, statusCode, truncated } reflects provider truncation', () => {
    expect(fetchMeta(fetched('missing', 'text', { statusCode: 404, truncated: true }), 1000)).toEqual({ url: 'https://a.test', statusCode: 404, truncated: true })
  })

  it('T54: truncated is the effective flag (true when only the output cap cut, false when nothing did) and agrees with the footer', () => {
    const cases: [FetchValue, number][] = [
      [fetched('<p>short</p>'), 1000],
      [fetched('x', 'text', { truncated: true }), 1000],
      // Only the output cap: the source fits the cap, but header plus Markdown does not.
      [fetched(`<p>${'_'.repeat(300)}</p>`), 400],
      [fetched('y'.repeat(2000), 'text'), 1000],
    ]
    const flags = cases.map(([value, cap]) => {
      const meta = fetchMeta(value, cap)
      expect(meta.truncated, value.body.content.slice(0, 20)).toBe(renderFetch(value, cap).text.includes(FOOTER))
      return meta.truncated
    })
    expect(flags).toEqual([false, true, true, true])
    expect(fetched(`<p>${'_'.repeat(300)}</p>`).body.content.length).toBeLessThan(400)
  })

  it('the flag agrees with the rendering around the cap, for text, PDF and HTML with its Markdown, frozen or not', () => {
    const header = 'Fetched https://a.test (HTTP 200)\n\n'.length
    for (const cap of [header - 1, header, header + 1, header + 10]) {
      for (let length = 0; length <= 12; length++) {
        const values = [fetched('t'.repeat(length), 'text'), fetched('<p>x</p>', 'html', { markdown: 'm'.repeat(length) }), Object.freeze(fetched('p'.repeat(length), 'pdf'))]
        for (const value of values) expect(fetchMeta(value, cap).truncated, `${value.body.kind} ${length} at ${cap}`).toBe(renderFetch(value, cap).truncated)
      }
    }
  })

  it('T55: a stored value without its Markdown is converted once, by withMarkdown; rendering and meta never convert', () => {
    const turndown = vi.spyOn(TurndownService.prototype, 'turndown')
    const stored = deepFreeze({ url: 'https://a.test', statusCode: 200, body: { kind: 'html', content: '<h1>Title</h1><p>body</p>' }, truncated: false }) as FetchValue
    expect(() => fetchMeta(stored, 1000)).toThrow(/carries no markdown/)
    const value = withMarkdown(stored)
    expect(Object.isFrozen(value)).toBe(true)
    expect(turndown).toHaveBeenCalledTimes(1)
    const text = renderFetch(value, 1000).text
    expect(fetchMeta(value, 1000)).toEqual({ url: 'https://a.test', statusCode: 200, truncated: false })
    expect(renderFetch(value, 500).text).toBe(text)
    expect(turndown).toHaveBeenCalledTimes(1)
  })

  it('T55 through the runtime: one call converts its page once and keeps the meta on the result', async () => {
    const turndown = vi.spyOn(TurndownService.prototype, 'turndown')
    host = await boot({ fetchMaxOutputChars: 100 })
    host.app.web.registerFetchProvider(fetchProvider(page(`<p>${'word '.repeat(500)}</p>`)).provider)
    const result = await host.fetch({ url: 'https://a.test' })
    expect(turndown).toHaveBeenCalledTimes(1)
    expect(result.meta).toEqual({ url: 'https://a.test', statusCode: 200, truncated: true })
    expect(textOf(result)).toContain(FOOTER)
  })

  it('T56: the web/fetch card; undefined for an error result and for every malformed meta', () => {
    const meta = { url: 'https://final.test/', statusCode: 404, truncated: true }
    expect(presentFetchResult({ url: 'https://asked.test' }, { isError: false, meta })).toEqual({ card: 'web', kind: 'fetch', title: 'https://asked.test', url: 'https://final.test/', statusCode: 404, truncated: true })
    expect(presentFetchResult({ url: 'https://asked.test' }, { isError: true, meta })).toBeUndefined()
    const malformed: unknown[] = [
      undefined,
      null,
      'meta',
      [],
      {},
      { ...meta, url: 1 },
      { ...meta, statusCode: '404' },
      { ...meta, truncated: 'yes' },
      { statusCode: 404, truncated: true },
      { url: 'https://final.test/', truncated: true },
      { url: 'https://final.test/', statusCode: 404 },
    ]
    for (const bad of malformed) {
      expect(readFetchMeta(bad), JSON.stringify(bad)).toBeUndefined()
      expect(presentFetchResult({ url: 'https://asked.test' }, { isError: false, meta: bad }), JSON.stringify(bad)).toBeUndefined()
    }
  })

  it('T57: the call card is titled by the url; a blank url fails as the call does', () => {
    expect(presentFetchCall({ url: 'https://a.test/x' })).toEqual({ card: 'generic', title: 'https://a.test/x', kind: 'fetch', rawInput: 'https://a.test/x' })
    expect(() => presentFetchCall({ url: '   ' })).toThrow('url must be a non-empty string')
  })

  it('through a booted host and the real http provider on loopback: meta on the ToolResult and both cards', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/html' })
      response.end('<h1>Gone</h1>')
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/missing`
    host = await boot()
    ;(host.app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(fetchHttp as unknown as Plugin, { allowedCidrs: ['127.0.0.1'] })
    await host.app.events.flush()

    const result = await host.fetch({ url })
    expect([result.isError, textOf(result)]).toEqual([false, `Fetched ${url} (HTTP 404)\n\n# Gone`])
    expect(result.meta).toEqual({ url, statusCode: 404, truncated: false })
    expect(Object.isFrozen(result.meta)).toBe(true)
    expect(host.app.tools.presentCall('web_fetch', { url })).toEqual({ card: 'generic', kind: 'fetch', title: url, rawInput: url })
    expect(host.app.tools.presentResult('web_fetch', { url }, result)).toEqual({ card: 'web', kind: 'fetch', title: url, url, statusCode: 404, truncated: false })
    // A blank url: the presenter throws, the runtime logs it and answers undefined.
    expect(host.app.tools.presentCall('web_fetch', { url: ' ' })).toBeUndefined()
  })
})
