import { describe, expect, it } from 'vitest'
import { flattenDeep, htmlToMarkdown } from '../src/convert.ts'

// Issue 31 item 3: what a browser shows is what the model gets. Text after `</html>` is kept
// (browsers put it in the body); `javascript:` and `data:` links are not links (their text stays);
// `visibility: hidden` text is dropped like `display: none` text.

describe('text a browser shows, and only that (issue 31 item 3)', () => {
  it('text after </body> and after </html> is kept, in order', () => {
    const markdown = htmlToMarkdown('<!doctype html><html><head><title>t</title></head><body><p>first</p></body></html>\n<p>after the end</p>tail words', { url: 'https://a.test/' })
    expect(markdown).toContain('first')
    expect(markdown).toContain('after the end')
    expect(markdown).toContain('tail words')
    expect(markdown.indexOf('first')).toBeLessThan(markdown.indexOf('after the end'))
    expect(htmlToMarkdown('<html><body><p>in</p></body><p>between</p></html>')).toContain('between')
  })

  it('javascript: and data: links keep their text but are not Markdown links, however spelled', () => {
    const hrefs = ['javascript:alert(1)', ' JavaScript:void(0)', 'java\tscript:alert(2)', 'data:text/html,<script>alert(3)</script>', 'DATA:text/plain;base64,SGk=', 'vbscript:msgbox(1)']
    for (const href of hrefs) {
      const markdown = htmlToMarkdown(`<p>Go <a href="${href.replace(/"/g, '&quot;')}">there now</a>.</p>`, { url: 'https://a.test/' })
      expect(markdown, href).toBe('Go there now.')
    }
    // Web links stay links.
    expect(htmlToMarkdown('<p><a href="/x">x</a> <a href="mailto:a@b.test">mail</a></p>', { url: 'https://a.test/' })).toBe('[x](https://a.test/x) [mail](mailto:a@b.test)')
  })

  it('an image whose source is data: or javascript: is its alt text, not an image link', () => {
    const markdown = htmlToMarkdown(`<p>A <img alt="chart" src="data:image/png;base64,${'A'.repeat(5000)}"> and <img alt="x" src="javascript:alert(1)"></p>`, { url: 'https://a.test/' })
    expect(markdown).not.toContain('data:')
    expect(markdown).not.toContain('javascript:')
    expect(markdown).toContain('chart')
  })

  it('visibility: hidden (or collapse) text is dropped; visible text around it stays', () => {
    for (const style of ['visibility:hidden', 'color: red; visibility: hidden !important', 'VISIBILITY : collapse']) {
      const markdown = htmlToMarkdown(`<p>seen <span style="${style}">secret instructions</span> also seen</p>`)
      expect(markdown, style).not.toContain('secret')
      expect(markdown).toContain('seen')
      expect(markdown).toContain('also seen')
    }
    expect(htmlToMarkdown('<p style="visibility: visible">shown</p>')).toBe('shown')
  })
})

describe('emphasis renders its markers once (nested or empty emphasis makes no runs of them)', () => {
  it('512 levels of <b>, <i> or <em> (flattened at the depth limit, as the tool does) read as one emphasis, not a run of ** or _', () => {
    const deep = (open: string, close: string) => htmlToMarkdown(flattenDeep(`<p>${open.repeat(512)}deep${close.repeat(512)}</p>`))
    expect(deep('<b>', '</b>')).toBe('**deep**')
    expect(deep('<strong>', '</strong>')).toBe('**deep**')
    expect(deep('<i>', '</i>')).toBe('_deep_')
    expect(deep('<em><i>', '</i></em>')).toBe('_deep_')
    expect(deep('<b><i>', '</i></b>')).toBe('**_deep_**')
    expect(deep('<s>', '</s>')).toBe('~~deep~~')
  })

  it('emphasis inside emphasis of the same kind adds no markers (they would close the outer one); other kinds still nest', () => {
    expect(htmlToMarkdown('<p><b>x<b>y</b>z</b> and <strong>a<b>b</b>c</strong></p>')).toBe('**xyz** and **abc**')
    expect(htmlToMarkdown('<p><i>a<em>b</em>c</i> <del>d<s>e</s></del></p>')).toBe('_abc_ ~~de~~')
    expect(htmlToMarkdown('<p><b>bold <i>both</i></b> <i>it <b>both</b></i></p>')).toBe('**bold _both_** _it **both**_')
  })

  it('emphasis right after emphasis of the same kind continues it, with no run of markers between', () => {
    expect(htmlToMarkdown('<p><b>bold</b><b>bold2</b> <i>a</i><i>b</i> <strong>c</strong><b>d</b> <s>x</s><del>y</del></p>')).toBe('**boldbold2** _ab_ **cd** ~~xy~~')
    expect(htmlToMarkdown('<p><b>a </b><b>b</b> <i>c</i><em> d</em></p>')).toBe('**a b** _c d_')
    // A bold image has no text: it keeps its own markers, and its neighbour its own.
    expect(htmlToMarkdown('<p><b>x</b><b><img src="https://a.test/i.png" alt=""></b> z</p>')).toBe('**x****![](https://a.test/i.png)** z')
  })

  it('empty or blank emphasis (strikethrough too) renders nothing', () => {
    expect(htmlToMarkdown('<p>a <b></b>b <i> </i>c <s></s>d <del> </del>e <b><i></i></b>f</p>')).toBe('a b c d e f')
    expect(htmlToMarkdown(`<p>x${'<b></b>'.repeat(100)}${'<em><b> </b></em>'.repeat(100)}y</p>`)).toBe('x y')
  })
})
