import { readableText } from 'dsh-core'

/**
 * A page's `<title>`, as a browser shows it on the tab: the first `<title>` element's text, its
 * character references decoded, whitespace collapsed, at most `MAX_TITLE_CHARS`; undefined when it
 * has none. Only a page without text reads it (`noText` in fetch.ts): the conversion drops `<title>`
 * with `<head>`, so an app shell titled "Acme — Orders" reached the model as "markup only". Found
 * by three searches (to `<title`, its `>`, its `</title`), so a page of unclosed tags is read once: linear.
 */
export function pageTitle(html: string): string | undefined {
  // Searched case-blind in the page itself: a lower-cased copy can differ in length (`İ` is two
  // code units lower-cased), which moves every index after it.
  const start = /<title[\s/>]/i.exec(html)
  if (!start) return undefined
  const open = html.indexOf('>', start.index)
  if (open < 0) return undefined
  // Its text runs to `</title` or, unclosed, to the end (RCDATA: no tag inside ends it).
  const end = /<\/title/gi
  end.lastIndex = open
  const close = end.exec(html)?.index ?? html.length
  const raw = html.slice(open + 1, Math.min(close, open + 1 + MAX_RAW_CHARS))
  const text = readableText(decodeReferences(raw)).replace(/\s+/g, ' ').trim()
  // Nothing a reader sees (spaces, zero-width characters, which trim keeps): no title.
  if (!/[^\s\u200b-\u200d\u2060\ufeff]/.test(text)) return undefined
  if (text.length <= MAX_TITLE_CHARS) return text
  // Not half a surrogate pair at the cut.
  const cut = text.slice(0, MAX_TITLE_CHARS)
  return `${(/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut).trimEnd()}…`
}

/** A tab's title is short; a page's 100 KB "title" is not one, and is cut. */
const MAX_TITLE_CHARS = 300
/** Raw characters read of the element: enough for MAX_TITLE_CHARS after references and spaces shrink it. */
const MAX_RAW_CHARS = 4 * MAX_TITLE_CHARS

/**
 * Numeric references and the named ones titles use (separators and quotes: `&mdash;`, `&middot;`,
 * `&raquo;` …); any other name stays as written, as it would be a word to the model anyway.
 */
function decodeReferences(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));/g, (match, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return Object.hasOwn(NAMED, name) ? NAMED[name]! : match
    const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex!, 16)
    // NUL, surrogates and code points past Unicode read as U+FFFD, as in HTML.
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code)
  })
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ',
  mdash: '—', ndash: '–', middot: '·', bull: '•', hellip: '…', laquo: '«', raquo: '»',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', copy: '©', reg: '®', trade: '™', verbar: '|',
}
