import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { parseHTML } from 'linkedom'
import { describe, expect, it } from 'vitest'
import { htmlToMarkdown } from '../src/convert.ts'

// Issue 31 item 2: a <pre> without <code> is a code block; a layout table around a <pre> is not a
// one-cell table joined with <br>.

const fences = (markdown: string) => [...markdown.matchAll(/^(`{3,})\n([\s\S]*?)\n\1$/gm)].map((match) => match[2]!)

describe('<pre> without <code> (item 2)', () => {
  it('a real <pre>-heavy page (zlib Usage Example, 30 blocks) keeps every block fenced and verbatim', () => {
    const html = gunzipSync(readFileSync(join(import.meta.dirname, 'fixtures/pages/zlib_how.html.gz'))).toString('latin1')
    const blocks = [...parseHTML(html).document.querySelectorAll('pre')].map((pre) => pre.textContent.replace(/^\n/, '').trimEnd())
    expect(blocks).toHaveLength(30)
    for (const mainContent of [false, true]) {
      const code = fences(htmlToMarkdown(html, { url: 'https://zlib.net/zlib_how.html', mainContent }))
      expect(code, `mainContent ${mainContent}`).toEqual(blocks)
    }
    expect(blocks.some((block) => block.includes('#include <stdio.h>'))).toBe(true)
  })

  it('its text is not escaped or reflowed; a backtick fence inside gets a longer fence', () => {
    expect(htmlToMarkdown('<pre>  a *b* [c]\n    d_e\n</pre>')).toBe('```\n  a *b* [c]\n    d_e\n```')
    expect(htmlToMarkdown('<pre>x\n```\ny</pre>')).toBe('````\nx\n```\ny\n````')
    expect(htmlToMarkdown('<pre>\n <code>z = 1</code></pre>')).toBe('```\n z = 1\n```')
    expect(htmlToMarkdown('<pre><code class="language-js">k()</code></pre>')).toBe('```js\nk()\n```')
  })

  it('a layout table around a <pre> renders its cells as blocks, the <pre> fenced', () => {
    expect(htmlToMarkdown('<table><tr><td><pre>line one\n  line two</pre></td></tr></table>')).toBe('```\nline one\n  line two\n```')
    const archive = '<table width="100%"><tr><td><b>From:</b> a@b.test</td></tr><tr><td><pre>Hello,\n\n&gt; quoted\nBye</pre></td></tr></table>'
    expect(htmlToMarkdown(archive)).toBe('**From:** a@b.test\n\n```\nHello,\n\n> quoted\nBye\n```')
    // Data tables stay tables.
    expect(htmlToMarkdown('<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>')).toBe('| a   | b   |\n| --- | --- |\n| 1   | 2   |')
  })
})
