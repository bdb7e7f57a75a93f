import { afterEach, describe, expect, it } from 'vitest'
import { htmlToMarkdown } from '../src/convert.ts'
import { boot, fetchProvider, page, textOf, type Harness } from './harness.ts'

// Issue 19 items 4 and 9: HTML → Markdown bounded so it is linear in the page, inside the call's
// budget, and pages the model can use (tables, absolute links, no hidden or empty elements).

let host: Harness | undefined
afterEach(async () => {
  await host?.stop()
  host = undefined
})

const longestWhitespaceRun = (text: string) => Math.max(0, ...(text.match(/\s+/g) ?? []).map((run) => run.length))

describe('bounded conversion (item 4)', () => {
  it('a 100 kB whitespace run (the <pre> that took 17 s) keeps 256 characters; text around it survives', () => {
    for (const html of [`<pre>x${' '.repeat(100_000)}y</pre>`, `<p>x${'&nbsp; '.repeat(15_000)}y</p>`, `<pre><code>x${' \n'.repeat(50_000)}y</code></pre>`]) {
      const markdown = htmlToMarkdown(html)
      expect(longestWhitespaceRun(markdown)).toBeLessThanOrEqual(258)
      expect(markdown).toMatch(/x\s+y/)
    }
  })

  it('25 000 <br> followed by text render as at most two line breaks (the run turndown trimmed in 10 s)', () => {
    const markdown = htmlToMarkdown(`<p>a${'<br>'.repeat(25_000)}b</p>`)
    expect(markdown).toBe('a  \n  \nb')
    // Blank text between breaks does not end their run.
    const spaced = htmlToMarkdown(`<p>a<br>&nbsp;<br> <br>\n<br>b</p>`)
    expect([spaced.match(/\n/g)?.length, spaced.startsWith('a'), spaced.endsWith('b')]).toEqual([2, true, true])
  })

  it('comments and blank inline elements cannot split a whitespace run into pieces the cut misses', () => {
    for (const unit of [' '.repeat(200) + '<!-- -->', ' '.repeat(200) + '<i></i>', '<span>' + ' '.repeat(200) + '</span>']) {
      const markdown = htmlToMarkdown(`<pre>x${unit.repeat(400)}y</pre>`)
      expect(longestWhitespaceRun(markdown), unit).toBeLessThanOrEqual(258)
      expect(markdown).toMatch(/x\s+y/)
    }
    expect(htmlToMarkdown('foo<span> </span>bar <b> </b> baz<i></i>!')).toBe('foo bar baz!')
  })

  it('grouping long sibling runs changes nothing in the Markdown', () => {
    const lines = Array.from({ length: 300 }, (_, index) => `line ${index}`)
    expect(htmlToMarkdown(`<p>${lines.join('<br>')}</p>`)).toBe(lines.join('  \n'))
    const paragraphs = Array.from({ length: 300 }, (_, index) => `<p>para <b>${index}</b></p>`).join('')
    expect(htmlToMarkdown(paragraphs)).toBe(Array.from({ length: 300 }, (_, index) => `para **${index}**`).join('\n\n'))
    const items = Array.from({ length: 300 }, (_, index) => `<li>item ${index}</li>`).join('')
    expect(htmlToMarkdown(`<ol>${items}</ol>`).split('\n').at(-1)).toBe('300.  item 299')
  })

  it('the conversion happens inside the call, under its budget: the value carries the Markdown', async () => {
    host = await boot()
    host.app.web.registerFetchProvider(fetchProvider(page('<h1>Title</h1><p>body</p>')).provider)
    const result = await host.fetch({ url: 'https://a.test' })
    expect(result.isError ? undefined : (result.value as { markdown?: string }).markdown).toBe('# Title\n\nbody')
    expect(textOf(result)).toBe('Fetched https://a.test (HTTP 200)\n\n# Title\n\nbody')
  })
})

describe('pages the model can use (item 9)', () => {
  it('a table without <th> gets its first row as the GFM header', () => {
    expect(htmlToMarkdown('<table><tr><td>name</td><td>size</td></tr><tr><td>a</td><td>1</td></tr></table>')).toBe('| name | size |\n| --- | --- |\n| a   | 1   |')
    expect(htmlToMarkdown('<table><tbody><tr><td>x</td></tr></tbody><tbody><tr><td>y</td></tr></tbody></table>')).toBe('| x   |\n| --- |\n| y   |')
  })

  it('relative links and images become absolute against the final URL (and <base>)', async () => {
    host = await boot()
    const html = '<p><a href="../guide/intro.html#setup">intro</a> <a href="#top">top</a> <img src="/img/logo.png" alt="logo"> <a href="https://other.test/">other</a></p>'
    host.app.web.registerFetchProvider(fetchProvider(page(html, 'html', { url: 'https://docs.test/v2/api/page.html' })).provider)
    expect(textOf(await host.fetch({ url: 'https://docs.test/v2/api/page.html' }))).toContain(
      '[intro](https://docs.test/v2/guide/intro.html#setup) [top](https://docs.test/v2/api/page.html#top) ![logo](https://docs.test/img/logo.png) [other](https://other.test/)',
    )
    expect(htmlToMarkdown('<head><base href="https://cdn.test/assets/"></head><body><a href="x.html">x</a></body>', { url: 'https://a.test/p' })).toBe('[x](https://cdn.test/assets/x.html)')
  })

  it('hidden, aria-hidden and display:none elements are dropped, as are empty links', () => {
    const html = [
      '<p>shown</p>',
      '<p hidden>hidden attribute</p>',
      '<div aria-hidden="true">aria hidden</div>',
      '<span style="color: red; display : none !important">inline none</span>',
      '<span style="display:block">block stays</span>',
      '<p><a href="https://a.test/x"></a><a href="https://a.test/y">  </a><a href="https://a.test/z"><img src="https://a.test/i.png" alt="icon"></a></p>',
    ].join('')
    const markdown = htmlToMarkdown(html)
    expect(markdown).not.toMatch(/hidden attribute|aria hidden|inline none|\[\]\(/)
    expect(markdown).toContain('block stays')
    expect(markdown).toContain('[![icon](https://a.test/i.png)](https://a.test/z)')
  })
})
