// Pages a hostile or careless web server sends, fetched through the `dsh` command (the CLI's main in
// this worker, test-support/dsh-in-process.ts) from a real loopback server: each ends in a clear
// coded error or an answer the model can use.
import { createServer, type Server } from 'node:http'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dshInProcess } from '../../../../test-support/dsh-in-process.ts'

const PAGES: Record<string, { readonly type: string; readonly body: string }> = {
  '/app-shell': { type: 'text/html', body: `<!doctype html><html><head><script>${'var a = 1;'.repeat(5000)}</script></head><body><div id="root"></div><script src="/app.js"></script><noscript>Enable JavaScript</noscript></body></html>` },
  '/empty': { type: 'text/html', body: '' },
  // An app shell whose title is the one clue to what it is (the conversion drops <head>).
  '/titled-shell': { type: 'text/html', body: '<!doctype html><html><head><title>Orders &mdash; Acme\n Admin</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>' },
  '/titled-markup': { type: 'text/html', body: '<html><head><title>Status</title></head><body><div><span></span></div></body></html>' },
  // Pages whose content is at another URL: a static host's redirect page, a frameset, an iframe wrapper.
  '/moved': { type: 'text/html', body: '<html><head><meta http-equiv="Refresh" content="0; URL=\'/docs/new page.html\'"><title>Moved</title></head><body></body></html>' },
  '/frames': { type: 'text/html', body: '<html><frameset cols="20%,80%"><frame src="nav.html"><frame src=/main.html></frameset></html>' },
  '/wrapper': { type: 'text/html', body: '<html><body><iframe src="javascript:void 0"></iframe><iframe src="https://viewer.test/doc?id=7" width=100%></iframe><script>resize()</script></body></html>' },
  '/empty-text': { type: 'text/plain', body: '  \n' },
  // Nothing a reader sees: zero-width spaces and joiners, a BOM and a word joiner, which trim() keeps.
  '/invisible': { type: 'text/html', body: '<p>\u200b\u200b</p><p>&#8203;\u200d</p><div>\ufeff\u2060</div>' },
  '/invisible.txt': { type: 'text/plain; charset=utf-8', body: '\u200b \u200c\n' },
  '/long-links': { type: 'text/html', body: `<p>Read <a href="/${'x'.repeat(4_000_000)}">the long one</a>, <a href="/short">the short one</a> and <img alt="a chart" src="/${'y'.repeat(5000)}.png"> here.</p>` },
  '/markup': { type: 'text/html', body: '<html><body><div><span></span></div><img src="data:image/png;base64,AAAA"></body></html>' },
  '/deep': { type: 'text/html', body: `<html><body><h1>Deep</h1><p>before</p>${'<div>'.repeat(2000)}<p>deep <b>text</b> &amp; more</p><!-- a comment --><script>var x = "<div>"</script>${'</div>'.repeat(2000)}<p>after</p></body></html>` },
  '/bold-deep': { type: 'text/html', body: `<p>${'<b>'.repeat(512)}deep${'</b>'.repeat(512)} and ${'<em>'.repeat(300)}${'</em>'.repeat(300)}after</p>` },
  // Tags inside a CDATA section, a declaration, a processing instruction or `</1 …>` open nothing for the parser (linkedom), and `</ div>` closes a div.
  '/hidden-tags': { type: 'text/html', body: `<![CDATA[${'<div>'.repeat(600)}]]>${'<!x <div>'.repeat(600)}${'<?x <div>'.repeat(600)}${'</1 <div>'.repeat(600)}${'<div></ div>'.repeat(600)}<h1>Title</h1><ul><li>one</li><li><b>two</b></li></ul>` },
  // A login page under the type of the PDF it guards.
  '/report.pdf': { type: 'application/pdf', body: '<!doctype html><html><body><h1>Sign in</h1><p>to read this report.</p></body></html>' },
  '/self-closing': { type: 'text/html', body: `<p>start</p>${'<div/>'.repeat(3000)}<p>end</p>` },
  // Past the first 1024 bytes, where the provider looks for a NUL (it refuses a body with one there).
  '/controls.html': { type: 'text/html', body: `<p>${'word '.repeat(300)}</p><p>nul\u0000 gone, bell\u0007 gone, escape\u001b gone, reference&#1; gone, del\u007f gone, c1\u0085 gone.</p>` },
  '/controls.txt': { type: 'text/plain', body: `${'word '.repeat(300)}\nnul\u0000 gone, bell\u0007 gone, escape\u001b gone, del\u007f gone, c1\u0085 gone.\fpage two\ttabbed\r\nend` },
  // A build log and a page with terminal colours, a window title and a hyperlink (OSC 8), as 7-bit and 8-bit (C1 CSI) sequences.
  '/ansi.txt': { type: 'text/plain; charset=utf-8', body: '\u001b]0;build log\u0007\u001b[1;31mERROR\u001b[0m disk full\n\u001b]8;;https://x.test/\u001b\\link\u001b]8;;\u001b\\ here\n\u009b32mOK\u009b0m done\n\u001b(B\u001b[mplain \u001b[2Kline\n' },
  // A stray OSC introducer with a BEL 4 KB further on (past readable-text's bound on a control string), and a `‛` (E2 80 9B) decoded twice next to a real 8-bit CSI.
  '/stray-osc.txt': { type: 'text/plain; charset=utf-8', body: `title: \u001b]${'kept line\n'.repeat(400)}bell\u0007 end\nthe \u00e2\u0080\u009bsingle\u00e2\u0080\u0099 quote, \u009b1;32mgreen\u009b0m\n` },
  '/ansi.html': { type: 'text/html; charset=utf-8', body: '<p>\u001b[31mERROR\u001b[0m in red, &#27;[1mbold&#27;[22m by reference, \u001b]0;title\u001b\\titled</p><pre>\u001b[32mgreen\u001b[0m code</pre>' },
}

let dir: string
let base: string
let overlay: string
let server: Server

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-web-hostile-')))
  server = createServer((request, response) => {
    const page = PAGES[new URL(request.url ?? '/', 'http://127.0.0.1').pathname]
    if (!page) return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': page.type }).end(page.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  overlay = join(dir, 'loopback.yml')
  await writeFile(overlay, '- id: web-fetch-http\n  config:\n    allowedCidrs: [127.0.0.0/8]\n')
})

afterAll(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  await rm(dir, { recursive: true, force: true })
})

async function fetchText(path: string): Promise<string> {
  const run = await dshInProcess(['call', 'web_fetch', JSON.stringify({ url: `${base}${path}` }), '--preset', 'base', '--config', overlay, '--cwd', dir], { cwd: dir, env: { DSH_HOME: dir } })
  expect(run.code, run.stderr).toBe(0)
  return run.stdout.trimEnd()
}

describe('web_fetch of a page with no text, through dsh', () => {
  it('a page built by its scripts says so, and where to look instead, rather than answering nothing', async () => {
    expect(await fetchText('/app-shell')).toBe(
      `Fetched ${base}/app-shell (HTTP 200)\n\n(The page has no text to read: its HTML is markup and scripts only. It is likely built by JavaScript in a browser, which web_fetch does not run; look for the same content at another URL, such as an API, a feed, or a plain or printable version.)`,
    )
  })

  it('a page without text is named by its <title>, which the conversion drops with <head> (the note said only "markup")', async () => {
    expect(await fetchText('/titled-shell')).toBe(
      `Fetched ${base}/titled-shell (HTTP 200)\n\n(The page "Orders — Acme Admin" has no text to read: its HTML is markup and scripts only. It is likely built by JavaScript in a browser, which web_fetch does not run; look for the same content at another URL, such as an API, a feed, or a plain or printable version.)`,
    )
    expect(await fetchText('/titled-markup')).toBe(`Fetched ${base}/titled-markup (HTTP 200)\n\n(The page "Status" has no text to read: its HTML is markup only.)`)
  })

  it('an empty body (HTML or text) and a page of markup only say which they are', async () => {
    expect(await fetchText('/empty')).toBe(`Fetched ${base}/empty (HTTP 200)\n\n(The response body is empty.)`)
    expect(await fetchText('/empty-text')).toBe(`Fetched ${base}/empty-text (HTTP 200)\n\n(The response body is empty.)`)
    expect(await fetchText('/markup')).toBe(`Fetched ${base}/markup (HTTP 200)\n\n(The page has no text to read: its HTML is markup only.)`)
    expect(await fetchText('/invisible')).toBe(`Fetched ${base}/invisible (HTTP 200)\n\n(The page has no text to read: its HTML is markup only.)`)
    expect(await fetchText('/invisible.txt')).toBe(`Fetched ${base}/invisible.txt (HTTP 200)\n\n(The response body is empty.)`)
  })

  it('a page that sends its reader elsewhere (a meta refresh, frames, an iframe) names the URL that holds its content', async () => {
    expect(await fetchText('/moved')).toBe(`Fetched ${base}/moved (HTTP 200)\n\n(The page "Moved" has no text to read: it sends the reader on to ${base}/docs/new%20page.html (a meta refresh), which web_fetch does not follow; fetch that URL.)`)
    expect(await fetchText('/frames')).toBe(`Fetched ${base}/frames (HTTP 200)\n\n(The page has no text to read: its content is in frames, which web_fetch does not load; fetch ${base}/nav.html, ${base}/main.html.)`)
    expect(await fetchText('/wrapper')).toBe(`Fetched ${base}/wrapper (HTTP 200)\n\n(The page has no text to read: its content is in frames, which web_fetch does not load; fetch https://viewer.test/doc?id=7.)`)
  })
})

describe('web_fetch of a page served as a PDF, through dsh', () => {
  it('an HTML page under application/pdf (no %PDF- header) reads as the page, not "the PDF could not be read"', async () => {
    expect(await fetchText('/report.pdf')).toBe(`Fetched ${base}/report.pdf (HTTP 200)\n\n# Sign in\n\nto read this report.`)
  })
})

describe('web_fetch of a page with URLs no one could fetch, through dsh', () => {
  it('a link or image URL over 2,048 characters (a 4 MB href) keeps its text and loses the URL; a short link stays a link', async () => {
    expect(await fetchText('/long-links')).toBe(`Fetched ${base}/long-links (HTTP 200)\n\nRead the long one, [the short one](${base}/short) and a chart here.`)
  })
})

describe('web_fetch of a page nested too deep to walk, through dsh', () => {
  it('nesting past 512 levels is flattened: the page reads as text, the deepest part as its text, no markup', async () => {
    const text = await fetchText('/deep')
    expect(text).toBe(`Fetched ${base}/deep (HTTP 200)\n\n# Deep\n\nbefore\n\ndeep text & more\n\nafter`)
  })

  it('512 levels of <b> read as one bold word, not a run of `**`; 300 empty <em> render nothing', async () => {
    expect(await fetchText('/bold-deep')).toBe(`Fetched ${base}/bold-deep (HTTP 200)\n\n**deep** and after`)
  })

  it('tags in a CDATA section, a declaration (`<!x <div>`), a processing instruction or `</1 <div>`, and divs closed by `</ div>`, nest nothing, as linkedom reads them: the page converts whole, not flattened', async () => {
    expect(await fetchText('/hidden-tags')).toBe(`Fetched ${base}/hidden-tags (HTTP 200)\n\n# Title\n\n-   one\n-   **two**`)
  })

  it('3,000 `<div/>` nest 3,000 deep (the slash opens a div, as in a browser): flattened too, not passed on raw', async () => {
    expect(await fetchText('/self-closing')).toBe(`Fetched ${base}/self-closing (HTTP 200)\n\nstart\n\nend`)
  })
})

describe('web_fetch of a body with control characters past its first 1024 bytes, through dsh', () => {
  it('NUL, the other C0 controls but TAB, LF and CR, DEL and C1 controls are taken out of HTML (raw or as references) and text; a form feed is a line break', async () => {
    const html = await fetchText('/controls.html')
    expect(html).toBe(`Fetched ${base}/controls.html (HTTP 200)\n\n${'word '.repeat(300).trim()}\n\nnul gone, bell gone, escape gone, reference gone, del gone, c1 gone.`)
    const text = await fetchText('/controls.txt')
    expect(text).toBe(`Fetched ${base}/controls.txt (HTTP 200)\n\n${'word '.repeat(300)}\nnul gone, bell gone, escape gone, del gone, c1 gone.\npage two\ttabbed\r\nend`)
    for (const answer of [html, text]) expect(answer).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/)
  })
})

describe('web_fetch of a log or page with terminal escape sequences, through dsh', () => {
  it('whole CSI sequences (colours, ESC [ … m; 8-bit 0x9B), OSC strings (a title, a hyperlink; ended by BEL or ESC \\) and charset shifts are taken out, not only their ESC', async () => {
    const text = await fetchText('/ansi.txt')
    expect(text).toBe(`Fetched ${base}/ansi.txt (HTTP 200)\n\nERROR disk full\nlink here\nOK done\nplain line`)
    const html = await fetchText('/ansi.html')
    expect(html).toBe(`Fetched ${base}/ansi.html (HTTP 200)\n\nERROR in red, bold by reference, titled\n\n\`\`\`\ngreen code\n\`\`\``)
  })

  it('a stray ESC ] whose BEL is 4 KB on loses only its introducer, not the text between; U+009B of a `‛` decoded twice goes alone, keeping the letter after it, while a real 8-bit CSI goes whole', async () => {
    expect(await fetchText('/stray-osc.txt')).toBe(`Fetched ${base}/stray-osc.txt (HTTP 200)\n\ntitle: ${'kept line\n'.repeat(400)}bell end\nthe \u00e2single\u00e2 quote, green`)
  })
})
