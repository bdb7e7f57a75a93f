import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ForkScope, Plugin } from 'cordis'
import * as fetchHttp from 'dsh-web-fetch-http'
import type { Lifetime } from 'dsh-core'
import type { WebFetchProvider } from 'dsh-web'
import { parseHTML } from 'linkedom'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flattenDeep, htmlToMarkdown, nestsTooDeep, withMarkdown } from '../src/convert.ts'
import { renderFetch, type FetchValue } from '../src/fetch.ts'
import { Config as toolWebConfig } from '../src/index.ts'
import { onwardUrls } from '../src/onward.ts'
import { pageTitle } from '../src/page-title.ts'
import { boot, codeOf, fetchProvider, page, textOf, type Harness } from './harness.ts'

// web_fetch (reference/web.md §8 T27, T39–T60): rendering, HTML → Markdown, the depth preflight,
// and integration with the real http provider on loopback.

let host: Harness | undefined
const servers: Server[] = []
afterEach(async () => {
  await host?.stop()
  host = undefined
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

// An HTML value gets its Markdown as the tool gives it one (the whole page converted).
const value = (content: string, kind: 'html' | 'text' = 'html', extra: Partial<FetchValue> = {}): FetchValue => withMarkdown({ url: 'https://a.test', statusCode: 200, body: { kind, content }, truncated: false, ...extra })
const HEADER = 'Fetched https://a.test (HTTP 200)\n\n'

describe('the call', () => {
  it('T27: sends exactly { url } with the caller signal and returns the provider value', async () => {
    host = await boot()
    const scripted = fetchProvider(page('<h1>Title</h1>'))
    host.app.web.registerFetchProvider(scripted.provider)
    const result = await host.fetch({ url: ' https://a.test ' })
    expect(scripted.calls[0]?.request).toEqual({ url: ' https://a.test ' })
    expect(result.isError ? undefined : result.value).toEqual({ ...page('<h1>Title</h1>'), markdown: '# Title' })
    expect(textOf(result)).toBe(`${HEADER}# Title`)
  })

  it('the provider gets the call\'s own lifetime (fetchWithin), which the caller\'s abort ends', async () => {
    host = await boot()
    let given: Lifetime | undefined
    const provider: WebFetchProvider = {
      id: 'within',
      available: () => true,
      fetch: async () => Promise.reject(new Error('a tool call fetches through fetchWithin')),
      fetchWithin: async (_request, lifetime) => {
        given = lifetime
        return new Promise((_resolve, reject) => lifetime.onAbort(reject))
      },
    }
    host.app.web.registerFetchProvider(provider)
    const controller = new AbortController()
    const call = host.fetch({ url: 'https://a.test' }, controller.signal)
    await vi.waitFor(() => expect(given?.active).toBe(true))
    controller.abort()
    expect(codeOf(await call)).toBe('ABORTED')
    expect(given!.aborted).toBe(true)
  })

  it('T57: a blank url is refused; T07: the schema has exactly `url`', async () => {
    host = await boot()
    const result = await host.fetch({ url: '  ' })
    expect([textOf(result), codeOf(result)]).toEqual(['Error: url must be a non-empty string', 'INVALID_ARGS'])
    const entry = host.app.tools.catalog().find((tool) => tool.name === 'web_fetch')!
    expect([Object.keys(entry.parameters.properties as object), entry.parameters.required]).toEqual([['url', 'mainContent'], ['url']])
  })

  it('T58: through the registry the text is capped exactly', async () => {
    host = await boot({ fetchMaxOutputChars: 100 })
    host.app.web.registerFetchProvider(fetchProvider(page(`<p>${'word '.repeat(500)}</p>`)).provider)
    expect(textOf(await host.fetch({ url: 'https://a.test' }))).toHaveLength(100)
  })
})

describe('rendering', () => {
  it('T39, T40: html becomes Markdown under the header; text passes through; provider truncation adds the footer', () => {
    expect(renderFetch(value('<h1>Title</h1>'), 1000).text).toBe(`${HEADER}# Title`)
    expect(renderFetch(value('x', 'text'), 1000)).toEqual({ text: `${HEADER}x`, truncated: false })
    const cut = renderFetch(value('x', 'text', { truncated: true }), 1000)
    expect(cut.truncated).toBe(true)
    expect(cut.text).toContain('(Content truncated.')
  })

  it('T41, T52: the output cap holds the header and footer; the converter sees only `cap` source characters', () => {
    const out = renderFetch(value(`<p>${'_'.repeat(1000)}</p>`), 500)
    expect(out.text.length).toBeLessThanOrEqual(500)
    expect(out.text.startsWith(HEADER)).toBe(true)
    expect(out.text).toContain('\\_\\_')
    expect(out.text).toContain('Content truncated')
    const source = renderFetch(value(`<p>${'x'.repeat(1000)}</p>`), 500)
    expect(source.text.length).toBeLessThanOrEqual(500)
    expect(source.truncated).toBe(true)
  })

  it('the output cap counts characters and cuts between them: never half an emoji, never an accent without its letter', () => {
    const footer = '\n\n(Content truncated. Fetch a more specific URL or section to see the rest.)'
    for (const unit of ['😀', 'e\u0301']) {
      for (let cap = 200; cap < 206; cap++) {
        const out = renderFetch(value(unit.repeat(2000), 'text'), cap)
        expect(out.truncated).toBe(true)
        expect([...out.text].length, `${unit} ${cap}`).toBeLessThanOrEqual(cap)
        // The text cut at UTF-16 units ended in half an emoji (\ud83d) at every other cap.
        expect(out.text, `${unit} ${cap}`).toMatch(new RegExp(`^${HEADER.replace(/[.()]/g, '\\$&')}(?:${unit})+${footer.replace(/[.()]/g, '\\$&')}$`, 'u'))
      }
    }
    // An emoji counts once: 150 of them fit a cap of 200 with the header, whole.
    expect(renderFetch(value('😀'.repeat(150), 'text'), 200)).toEqual({ text: `${HEADER}${'😀'.repeat(150)}`, truncated: false })
  })

  it('T42: exactly at the cap there is no footer; a cap shorter than the footer is the footer\'s start', () => {
    const exact = `${HEADER}abc`
    expect(renderFetch(value('abc', 'text'), exact.length)).toEqual({ text: exact, truncated: false })
    expect(renderFetch(value('abc', 'text', { truncated: true }), 10).text).toBe('(Content t')
  })

  it('an HTML value without its Markdown is refused, not converted while rendering (the converter is dsh-tool-web/convert)', () => {
    const bare: FetchValue = { url: 'https://a.test', statusCode: 200, body: { kind: 'html', content: '<h1>Title</h1>' }, truncated: false }
    expect(() => renderFetch(bare, 1000)).toThrow(/carries no markdown; give it one with withMarkdown/)
    expect(withMarkdown(bare).markdown).toBe('# Title')
    expect(renderFetch(withMarkdown(bare), 1000).text).toBe(`${HEADER}# Title`)
    const text = value('x', 'text')
    expect(withMarkdown(text)).toBe(text)
  })

  it('T53, T54: the effective truncation flag covers provider, source and output cuts', () => {
    expect(renderFetch(value('x', 'text', { statusCode: 404, truncated: true }), 1000).truncated).toBe(true)
    expect(renderFetch(value('y'.repeat(2000), 'text'), 1000).truncated).toBe(true)
    expect(renderFetch(value('y', 'text'), 1000).truncated).toBe(false)
  })
})

describe('HTML → Markdown', () => {
  it('T43, T45: drops script/style/noscript, decodes entities, keeps links, headings, lists, emphasis and quotes', () => {
    const markdown = htmlToMarkdown('<h2>Heading</h2><script>alert(1)</script><style>p{}</style><noscript>enable js</noscript><p>Tom &amp; Jerry &copy; R&eacute;sum&eacute; <a href="https://a.test/">link</a></p><ul><li>one</li></ul><p><strong>bold <em>italic</em></strong></p><blockquote>quoted</blockquote>')
    expect(markdown).toBe('## Heading\n\nTom & Jerry © Résumé [link](https://a.test/)\n\n-   one\n\n**bold _italic_**\n\n> quoted')
  })

  it('T44, T46: tables, aligned headers, and colspan ignored', () => {
    expect(htmlToMarkdown('<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>')).toBe('| A   | B   |\n| --- | --- |\n| 1   | 2   |')
    expect(htmlToMarkdown('<table><thead><tr><th align="left">L</th><th align="right">R</th><th style="text-align:center">C</th></tr></thead></table>')).toContain('| :--- | ---: | :---: |')
    expect(htmlToMarkdown('<table><tr><th colspan="1000000">A</th></tr><tr><td>B</td></tr></table>')).toBe('| A   |\n| --- |\n| B   |')
    expect(htmlToMarkdown('<table><tr><td>a||b<br>c</td></tr></table>')).toMatch(/^\| a\\\|b\s*<br>c \|\n\| --- \|$/)
  })

  it('GFM extras from the plugin: strikethrough and task lists', () => {
    expect(htmlToMarkdown('<p><del>gone</del></p>')).toBe('~~gone~~')
    expect(htmlToMarkdown('<ul><li><input type="checkbox" checked>done</li></ul>')).toContain('[x]')
  })

  it('T47, T48: deep or comment-hidden nesting is found, and flattened: the text stays, the tags past 512 levels go, never raw markup', () => {
    const deep = '<div>'.repeat(20_000)
    expect(renderFetch(value(deep), 200_000).text).toBe(`${HEADER}(The page has no text to read: its HTML is markup only.)`)
    expect(renderFetch(value(`<h1>Top</h1>${'<div>'.repeat(20_000)}<em>deep</em> text${'</div>'.repeat(20_000)}<p>after</p>`), 200_000).text).toBe(`${HEADER}# Top\n\ndeep text\n\nafter`)
    for (const hidden of ['<div><!-- </div> --></span>'.repeat(600), '<div><!-->'.repeat(600), '<div/>'.repeat(600)]) expect(nestsTooDeep(hidden)).toBe(true)
    // Kept: the first 512 levels; the slash of `<div/>` opens a div, as in browsers.
    expect(flattenDeep(`${'<div>'.repeat(513)}x`)).toBe(`${'<div>'.repeat(512)}x`)
    expect(flattenDeep(`${'<DIV/>'.repeat(513)}x${'</div>'.repeat(513)}`)).toBe(`${'<DIV/>'.repeat(512)}x${'</div>'.repeat(512)}`)
  })

  it('the scan reads comments and raw text as the parser (linkedom) does, so flattening keeps the text it shows', () => {
    const deep = `${'<div>'.repeat(600)}d${'</div>'.repeat(600)}`
    const kept = `${'<div>'.repeat(512)}d${'</div>'.repeat(512)}`
    // `<!-->` and `<!--->` are whole (empty) comments: what follows them is page text, not a comment to the next `-->`.
    expect(flattenDeep(`${deep}<p>a</p><!--><p>visible</p><!---><p>too</p><!-- x --><p>z</p>`)).toBe(`${kept}<p>a</p><p>visible</p><p>too</p><p>z</p>`)
    // A line break after a tag's name ends the name: each `<p\r\n…>` is closed by its `</p>` and nests nothing.
    const crlf = '<p\r\nclass="x">y</p>'.repeat(600)
    expect(flattenDeep(`${deep}${crlf}`)).toBe(`${kept}${crlf}`)
    // A <title>'s content is text (`<!--` there opens no comment), so nesting after it is counted and flattened, its text kept.
    const titled = `<p>a</p><title><!--</title>${'<div>'.repeat(20_000)}x${'</div>'.repeat(20_000)}<p>b</p>-->`
    expect(renderFetch(value(titled), 200_000).text).toBe(`${HEADER}a\n\nx\n\nb\n\n\\-->`)
  })

  it('a quote in a tag is a quote only around an attribute value, as the parser reads it: one in a name hides no nesting and no text', () => {
    const html = `<p>a</p><div it's>${'<div>'.repeat(20_000)}x${'</div>'.repeat(20_000)}</div><p>b's end</p>`
    expect(nestsTooDeep(html)).toBe(true)
    expect(renderFetch(value(html), 200_000).text).toBe(`${HEADER}a\n\nx\n\nb's end`)
    expect(flattenDeep(`<p title="a>b" data-x='c>d' e=f'g>${'<i>'.repeat(513)}x`)).toBe(`<p title="a>b" data-x='c>d' e=f'g>${'<i>'.repeat(511)}x`)
  })

  it('T49: normal markup and raw-text edge cases are not "too deep"', () => {
    const fine = [
      '<p title="a>b">x</p>'.repeat(600),
      '<br><img src=x><hr/><input/>'.repeat(600),
      '<p>x</p>'.repeat(600),
      `<script>${'<div>'.repeat(600)}</script>`,
      `<script>${'<div>'.repeat(600)}</script/>`,
      `<script>${'<div>'.repeat(600)}</script`,
      'plain text',
      '<!-- unfinished',
      `<script>${'<div>'.repeat(600)}`,
      `<svg>${'<path/>'.repeat(600)}</svg>`,
      // Content the parser reads as a comment or as text holds no elements.
      `<!--${'<div>'.repeat(600)}-->`,
      `<textarea>${'<div>'.repeat(600)}</textarea>`,
      `<TITLE>${'<div>'.repeat(600)}</Title>`,
    ]
    for (const html of fine) expect(nestsTooDeep(html), html.slice(0, 40)).toBe(false)
  })

  it('CDATA sections, declarations, processing instructions and `</1 …>` hold no tags and `</ div>` closes a div, as linkedom parses them (each form 600 times over a `<div>`)', () => {
    const depthOf = (html: string) => {
      type Node = { readonly children: ArrayLike<Node> }
      const deepest = (node: Node): number => Math.max(0, ...Array.from(node.children, (child) => 1 + deepest(child)))
      return deepest(parseHTML(`<html><body>${html}</body></html>`).document.body)
    }
    const forms = {
      cdata: `<![CDATA[${'<div>'.repeat(600)}]]><p>x</p>`,
      'cdata unterminated': `<![CDATA[${'<div>'.repeat(600)}`,
      declaration: `${'<!x <div>'.repeat(600)}<p>x</p>`,
      'lower-case cdata (a declaration)': `${'<![cdata[<div>'.repeat(600)}<p>x</p>`,
      'processing instruction': `${'<?x <div>'.repeat(600)}<p>x</p>`,
      'special comment': `${'</1 <div>'.repeat(600)}<p>x</p>`,
      'closing tag after whitespace': `${'<div></ div>'.repeat(300)}${'<div></\ndiv>'.repeat(300)}<p>x</p>`,
    }
    for (const [name, html] of Object.entries(forms)) {
      expect([nestsTooDeep(html), depthOf(html) > 512], name).toEqual([false, false])
    }
    // What they hide is only what linkedom hides: a `<div>` after each still counts.
    const after = `<![CDATA[x]]]>${'<!x><div>'.repeat(600)}`
    expect([nestsTooDeep(after), depthOf(after) > 512]).toEqual([true, true])
  })

  it('the markup scan is linear on 400 KB of each unterminated form (one scan to the end, not one per `<`)', () => {
    for (const unit of ['<![CDATA[', '<!x', '<?', '</1', '</ ', '</ >', '<![CDATA[]]]>', '<!--']) {
      const html = unit.repeat(Math.ceil(400_000 / unit.length)) + '<div>'.repeat(600)
      // An unterminated CDATA section or comment runs to the end, over the divs; the others end at the first div's `>`.
      expect(nestsTooDeep(html), unit).toBe(unit !== '<![CDATA[' && unit !== '<!--')
      flattenDeep(html, 0)
    }
  }, 60_000)

  it('T50: hostile input scans in bounded time and the output stays capped', () => {
    const hostile = '<a'.repeat(100_000)
    const started = performance.now()
    const out = renderFetch(value(hostile), 200_000)
    expect(out.text.length).toBeLessThanOrEqual(200_000)
    // A generous bound: this is about not being quadratic, not about speed.
    expect(performance.now() - started).toBeLessThan(10_000)
  })
})

describe('onwardUrls: where a page without text sends its reader', () => {
  it('reads a refresh and frames, and is linear on 400 KB of the worst inputs (unclosed tags, unclosed quotes, bare <)', () => {
    expect(onwardUrls('<META HTTP-EQUIV=refresh CONTENT="5;url=https://a.test/x">', 'https://b.test/')).toEqual({ refresh: 'https://a.test/x', frames: [] })
    expect(onwardUrls('<meta http-equiv="refresh" content="30">', 'https://b.test/')).toEqual({ frames: [] })
    expect(onwardUrls('<iframe src="about:blank"></iframe><frame src="/a"><frame src="/a">', 'https://b.test/p/')).toEqual({ frames: ['https://b.test/a'] })
    for (const worst of ['<meta http-equiv=refresh content="0; url=', '<iframe src="', ' src="x', '<', '<iframe ', "<frame src='"]) {
      // Linear work on 400 KB is milliseconds; a quadratic scan would run past the test's timeout.
      expect(onwardUrls(worst.repeat(Math.ceil(400_000 / worst.length)), 'https://b.test/').frames.length, worst).toBeLessThanOrEqual(5)
    }
  })
})

describe('pageTitle: the <title> a page without text is named by', () => {
  it('decodes every named reference HTML has (a table of 21 left the rest as written), legacy ones without ";" and numeric ones as HTML maps them', () => {
    expect(pageTitle('<title>&hearts; &Eacute;t&eacute; &frac12; &rarr; &euro;&nbsp;5 &NotEqualTilde; &copy 2026 &#150; &#x80;</title>')).toBe('♥ Été ½ → € 5 ≂̸ © 2026 – €')
  })

  it('skips a <title> inside a script, a style or a comment: a browser does not take it for the page\'s', () => {
    expect(pageTitle(`<head><script>document.write('<title>Loading…</title>')</script><title>Orders</title>`)).toBe('Orders')
    expect(pageTitle('<!-- <title>Old name</title> --><title>New name</title>')).toBe('New name')
    expect(pageTitle('<STYLE>/* <title>x</title> */</STYLE><Title>Styled</Title>')).toBe('Styled')
    expect(pageTitle('<script type="module">const t = "<title>";</script ><title>After</title>')).toBe('After')
    // Unclosed, a script or a comment runs to the end of the page: no title after it.
    expect(pageTitle("<script>'<title>x</title>'")).toBeUndefined()
    expect(pageTitle('<!-- <title>x</title>')).toBeUndefined()
    // `<!-->` and `<!--->` are whole comments to HTML's parser: what follows them is the page.
    expect(pageTitle('<!--><title>After an empty comment</title><!-- -->')).toBe('After an empty comment')
    expect(pageTitle('<!---><title>After another</title>')).toBe('After another')
    // An inline SVG icon's accessible name and a template's content are not the page's title.
    expect(pageTitle('<body><svg viewBox="0 0 1 1"><title>Company logo</title></svg><template><title>Row</title></template></body>')).toBeUndefined()
    expect(pageTitle('<svg><title>Icon</title></svg><title>The app</title>')).toBe('The app')
    // Not a script: <scripts>, <scripted>.
    expect(pageTitle('<scripts></scripts><title>Named</title>')).toBe('Named')
  })

  it('reads the first title element case-blind, decodes its references, collapses its spaces, cuts a long one; linear on 400 KB of the worst inputs', () => {
    expect(pageTitle('<html><HEAD><TITLE data-x=1>\n  Orders &mdash; Acme &amp; Co &#x2022; &#8220;beta&#8221; &nope; &toString;\n</Title><title>second</title>')).toBe('Orders — Acme & Co • “beta” &nope; &toString;')
    expect(pageTitle('<titles>no</titles><title-bar>no</title-bar><p>x</p>')).toBeUndefined()
    expect(pageTitle('<title>  \u200b </title>')).toBeUndefined()
    expect(pageTitle('<title>bidi &#x202E;gone\u202e</title>')).toBe('bidi gone')
    // İ lower-cases to two code units: the page is searched as written, not as a lower-cased copy.
    expect(pageTitle(`${'İ'.repeat(50)}<title>after</title>`)).toBe('after')
    expect(pageTitle(`<title>${'long '.repeat(200)}`)).toBe(`${'long '.repeat(60).trim()}…`)
    // 300 characters with the ellipsis, cut between two a reader sees: a letter keeps its accent (the
    // cut at 300 UTF-16 units left "e" without it), an emoji counts once (150 of them were kept).
    expect(pageTitle(`<title>a${'e\u0301'.repeat(400)}</title>`)).toBe(`a${'e\u0301'.repeat(149)}…`)
    expect(pageTitle(`<title>${'😀'.repeat(400)}</title>`)).toBe(`${'😀'.repeat(299)}…`)
    // The raw text read (1,200 units) ended inside the emoji after 1,199 spaces: the title was a lone \ud83d.
    expect(pageTitle(`<title>${' '.repeat(1199)}😀 more</title>`)).toBeUndefined()
    expect(pageTitle(`<title>${' '.repeat(1198)}😀 more</title>`)).toBe('😀')
    for (const worst of ['<title', '<title>&#', '<title>&#x1', '<title>&amp', '</title', '<titl', '&', '<script>', '<!--', '<!---->', '<style>a</style>', '<script></script>', '<svg>', '<template></template>']) {
      // Linear work on 400 KB is milliseconds; a quadratic scan would run past the test's timeout.
      expect(typeof (pageTitle(worst.repeat(Math.ceil(400_000 / worst.length))) ?? ''), worst).toBe('string')
    }
  })
})

describe('with the real http provider on loopback', () => {
  async function site(routes: Record<string, [number, Record<string, string>, string]>): Promise<string> {
    const server = createServer((request, response) => {
      const [status, headers, body] = routes[request.url ?? ''] ?? [404, { 'content-type': 'text/plain' }, 'not here']
      response.writeHead(status, headers)
      response.end(body)
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  async function withHttp(config: Record<string, unknown> = {}, providerConfig: Record<string, unknown> = { allowedCidrs: ['127.0.0.1'] }) {
    host = await boot(config)
    ;(host.app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(fetchHttp as unknown as Plugin, providerConfig)
    await host.app.events.flush()
    return host
  }

  it('T59: html renders, a 404 is a result, ftp is invalid, a cross-origin redirect is blocked', async () => {
    const origin = await site({ '/': [200, { 'content-type': 'text/html' }, '<h1>Hello</h1><p>World</p>'], '/away': [302, { location: 'http://127.0.0.2:9/' }, ''] })
    const h = await withHttp()
    const ok = await h.fetch({ url: `${origin}/` })
    expect(textOf(ok)).toBe(`Fetched ${origin}/ (HTTP 200)\n\n# Hello\n\nWorld`)
    const missing = await h.fetch({ url: `${origin}/nope` })
    expect([missing.isError, textOf(missing)]).toEqual([false, `Fetched ${origin}/nope (HTTP 404)\n\nnot here`])
    expect(codeOf(await h.fetch({ url: 'ftp://a.test/' }))).toBe('WEB_INVALID_URL')
    expect(codeOf(await h.fetch({ url: `${origin}/away` }))).toBe('WEB_REDIRECT_BLOCKED')
  })

  it('a fetch makes no AbortSignal: the call\'s lifetime bounds it end to end', async () => {
    const origin = await site({ '/': [200, { 'content-type': 'text/plain' }, 'plain'] })
    const h = await withHttp({ cacheTtlMs: 0 })
    // The first fetch loads undici; count only what a warm fetch makes.
    expect(textOf(await h.fetch({ url: `${origin}/` }))).toContain('plain')
    let made = 0
    vi.stubGlobal(
      'AbortController',
      class extends AbortController {
        constructor() {
          super()
          made++
        }
      },
    )
    try {
      expect(textOf(await h.fetch({ url: `${origin}/` }))).toContain('plain')
    } finally {
      vi.unstubAllGlobals()
    }
    expect(made).toBe(0)
  })

  it('the default guard refuses loopback through the tool with WEB_BLOCKED_URL', async () => {
    const origin = await site({ '/': [200, { 'content-type': 'text/plain' }, 'secret'] })
    const h = await withHttp({}, {})
    const result = await h.fetch({ url: `${origin}/` })
    expect(result.isError && result.error).toMatchObject({ code: 'WEB_BLOCKED_URL', name: 'WebError' })
  })

  it('bidi controls (dsh-core\'s BIDI_CONTROL_CLASS) are taken out of a text body, a page\'s Markdown and the rendered text, as from web_search; 400 KB of them in one call', async () => {
    const bidi = '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069'
    // 400 KB of nothing but bidi controls between two words (the worst input: every character a match).
    const flood = `start ${bidi.repeat(Math.ceil(400_000 / bidi.length))} end`
    const origin = await site({
      '/plain': [200, { 'content-type': 'text/plain; charset=utf-8' }, `Safe \u202Etxt.exe\u202C name \u2066iso\u2069 \u200fmark`],
      '/page': [200, { 'content-type': 'text/html; charset=utf-8' }, `<h1>Title \u202egnp.exe</h1><p>a\u202db \u2067c\u2069</p>`],
      '/flood': [200, { 'content-type': 'text/plain; charset=utf-8' }, flood],
    })
    const h = await withHttp({ cacheTtlMs: 0, fetchMaxOutputChars: 500_000 }, { allowedCidrs: ['127.0.0.1'], maxBodyChars: 1_000_000 })
    const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
    const plain = await h.fetch({ url: `${origin}/plain` })
    expect(textOf(plain)).toBe(`Fetched ${origin}/plain (HTTP 200)\n\nSafe txt.exe name iso mark`)
    const page = await h.fetch({ url: `${origin}/page` })
    expect(page.isError || (page.value as FetchValue).markdown).toBe('# Title gnp.exe\n\nab c')
    expect(textOf(page)).toBe(`Fetched ${origin}/page (HTTP 200)\n\n# Title gnp.exe\n\nab c`)
    // The page's HTML kept in the value (printed by dsh call --json, shown by a harness, converted by withMarkdown) is folded too.
    expect(page.isError || (page.value as FetchValue).body.content).toBe('<h1>Title gnp.exe</h1><p>ab c</p>')
    // A value stored without Markdown (another version's, or made by hand) holding raw controls is converted and cleaned as the call cleans it.
    const stored = withMarkdown({ url: `${origin}/page`, statusCode: 200, truncated: false, body: { kind: 'html', content: `<h1>Title \u202egnp.exe</h1><p>\u001b[31mred\u009b2J</p>` } })
    expect(stored.markdown).toBe('# Title gnp.exe\n\nred')
    expect(renderFetch(stored, 10_000).text).not.toMatch(BIDI)
    // The same strip runs on a page's Markdown; a 400 KB page is left out only for the conversion's own time.
    const result = await h.fetch({ url: `${origin}/flood` })
    const shown = textOf(result)
    expect(shown).not.toMatch(BIDI)
    expect(shown).toBe(`Fetched ${origin}/flood (HTTP 200)\n\nstart  end`)
    expect(result.isError || (result.value as FetchValue).body.content).toBe('start  end')
  })

  it('XHTML served as application/xhtml+xml: its CDATA sections are text the model reads (an HTML parser dropped them as comments); under text/html they stay hidden, as in a browser', async () => {
    const xhtml = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Spec</h1><p><![CDATA[if a < b && c > d then <swap>]]></p><p>after</p><script>//<![CDATA[\nvar x = 1 < 2;\n//]]></script></body></html>'
    const origin = await site({
      '/x': [200, { 'content-type': 'application/xhtml+xml; charset=utf-8' }, xhtml],
      '/h': [200, { 'content-type': 'text/html' }, xhtml],
      '/cut': [200, { 'content-type': 'application/xhtml+xml' }, '<html><body><p>before</p><p><![CDATA[unterminated & cut'],
    })
    const h = await withHttp({ cacheTtlMs: 0 })
    const read = await h.fetch({ url: `${origin}/x` })
    expect(textOf(read)).toBe(`Fetched ${origin}/x (HTTP 200)\n\n# Spec\n\nif a < b && c > d then <swap>\n\nafter`)
    // In HTML a CDATA section is a bogus comment, hidden by browsers too.
    expect(textOf(await h.fetch({ url: `${origin}/h` }))).toBe(`Fetched ${origin}/h (HTTP 200)\n\n# Spec\n\nafter`)
    expect(textOf(await h.fetch({ url: `${origin}/cut` }))).toBe(`Fetched ${origin}/cut (HTTP 200)\n\nbefore\n\nunterminated & cut`)
  })

  it('a body the provider\'s deadline stops, or a cut connection ends, mid-way: the text that arrived, a footer saying it is incomplete, why and its code, the code in meta and the card', async () => {
    const page = `<html><body><h1>Report</h1><p>${'First part. '.repeat(100)}</p>`
    // Each body is written in part and then never finished (/cut is reset after it), so the deadline
    // lands mid-body however late it fires; the three wait out one deadline side by side. The second
    // request for /slow is answered whole: it shows the incomplete answer was not cached.
    let slowRequests = 0
    const server = createServer((request, response) => {
      if (request.url === '/ok') return void response.end('ok')
      response.writeHead(200, { 'content-type': request.url === '/text' ? 'text/plain' : 'text/html' })
      if (request.url === '/slow' && ++slowRequests > 1) return void response.end(`${page}</body></html>`)
      response.write(request.url === '/text' ? 'log line 1\nlog line 2\n' : page, () => {
        if (request.url === '/cut') setTimeout(() => response.socket?.resetAndDestroy(), 30)
      })
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const h = await withHttp({ cacheTtlMs: 60_000 }, { allowedCidrs: ['127.0.0.1'], timeoutMs: 1000 })
    // The first fetch loads undici inside its deadline; the cases below time the body alone.
    expect(textOf(await h.fetch({ url: `${origin}/ok` }))).toContain('ok')
    const [slow, text, cut] = await Promise.all([h.fetch({ url: `${origin}/slow` }), h.fetch({ url: `${origin}/text` }), h.fetch({ url: `${origin}/cut` })])
    const note = `(Incomplete: the fetch timed out (timeoutMs 1000 ms) after ${page.length} bytes of the body [WEB_FETCH_TIMEOUT]. The text above is what arrived; fetching again may give the rest.)`
    expect(textOf(slow)).toBe(`Fetched ${origin}/slow (HTTP 200)\n\n# Report\n\n${'First part. '.repeat(100).trim()}\n\n${note}`)
    const incomplete = { code: 'WEB_FETCH_TIMEOUT', reason: `the fetch timed out (timeoutMs 1000 ms) after ${page.length} bytes of the body` }
    expect(slow.meta).toEqual({ url: `${origin}/slow`, statusCode: 200, truncated: true, incomplete })
    expect(h.app.tools.presentResult('web_fetch', { url: `${origin}/slow` }, slow)).toMatchObject({ card: 'web', kind: 'fetch', truncated: true, incomplete })
    expect(textOf(text)).toMatch(/^Fetched \S+ \(HTTP 200\)\n\nlog line 1\nlog line 2\n\n\(Incomplete: the fetch timed out .+ \[WEB_FETCH_TIMEOUT\]/)
    expect(textOf(cut)).toContain(`(Incomplete: the body broke off after ${page.length} bytes, before its end (`)
    expect(textOf(cut)).toContain('[WEB_FETCH_CUT]. The text above is what arrived')
    expect((cut.meta as { incomplete?: { code: string } }).incomplete?.code).toBe('WEB_FETCH_CUT')
    // Not cached: the next call fetches again, and gets the whole page.
    const again = await h.fetch({ url: `${origin}/slow` })
    expect([slowRequests, again.meta]).toEqual([2, { url: `${origin}/slow`, statusCode: 200, truncated: false }])
    server.closeAllConnections()
  })

  it('one blank line between a text body that ends in line breaks and its footer, truncated at the byte cap or at the output cap (it had three newlines)', async () => {
    const origin = await site({ '/log': [200, { 'content-type': 'text/plain' }, 'line\n'.repeat(100)] })
    const capped = await withHttp({ cacheTtlMs: 0 }, { allowedCidrs: ['127.0.0.1'], maxResponseBytes: 50 })
    expect(textOf(await capped.fetch({ url: `${origin}/log` }))).toBe(`Fetched ${origin}/log (HTTP 200)\n\n${'line\n'.repeat(9)}line\n\n(Content truncated. Fetch a more specific URL or section to see the rest.)`)
    await capped.stop()
    const header = `Fetched ${origin}/log (HTTP 200)\n\n`
    const footer = '\n\n(Content truncated. Fetch a more specific URL or section to see the rest.)'
    // The output cap falls just after the tenth line's break.
    const h = await withHttp({ cacheTtlMs: 0, fetchMaxOutputChars: header.length + 50 + footer.length })
    expect(textOf(await h.fetch({ url: `${origin}/log` }))).toBe(`${header}${'line\n'.repeat(9)}line${footer}`)
  })

  // The runtime answers TOOL_TIMEOUT, dropping whatever the body returns, once the call's budget is
  // out: only a provider deadline that comes first gives a slow body's first part back at the defaults.
  it("at the defaults, the fetch provider's deadline comes before web_fetch's budget, with time left to convert", async () => {
    const fetchBudget = toolWebConfig(undefined).fetchTimeoutMs
    const providerDeadline = fetchHttp.Config(undefined).timeoutMs
    expect(providerDeadline).toBeLessThan(fetchBudget)
    expect(fetchBudget - providerDeadline).toBeGreaterThanOrEqual(5_000)
  })

  it('T60: the tool budget wins over the provider timeout: TOOL_TIMEOUT', async () => {
    const server = createServer(() => {})
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const h = await withHttp({ fetchTimeoutMs: 50 })
    const result = await h.fetch({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(textOf(result)).toContain('timed out after 50 ms')
    server.closeAllConnections()
  })

  it('a warm fetch arms one timer: the provider\'s backstop inherits the call\'s equal deadline; a sooner backstop still fires as WEB_FETCH_TIMEOUT', async () => {
    const origin = await site({ '/': [200, { 'content-type': 'text/plain' }, 'plain'] })
    const h = await withHttp({ cacheTtlMs: 0, fetchTimeoutMs: 30_000 }, { allowedCidrs: ['127.0.0.1'], timeoutMs: 30_000 })
    expect(textOf(await h.fetch({ url: `${origin}/` }))).toContain('plain')
    const armed = vi.spyOn(globalThis, 'setTimeout')
    let bounds: unknown[]
    try {
      expect(textOf(await h.fetch({ url: `${origin}/` }))).toContain('plain')
    } finally {
      bounds = armed.mock.calls.map(([, ms]) => ms).filter((ms) => ms === 30_000)
      armed.mockRestore()
    }
    expect(bounds).toHaveLength(1)

    await h.stop()
    const hanging = createServer(() => {})
    servers.push(hanging)
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    const sooner = await withHttp({ fetchTimeoutMs: 30_000 }, { allowedCidrs: ['127.0.0.1'], timeoutMs: 50 })
    const result = await sooner.fetch({ url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/` })
    expect(codeOf(result)).toBe('WEB_FETCH_TIMEOUT')
    hanging.closeAllConnections()
  })
})
