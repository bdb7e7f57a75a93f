import { createRequire } from 'node:module'
import { characterEnd, clusterBoundary, fitsWithin, lazy, readableText } from 'dsh-core'

/**
 * HTML's character reference decoding (every named reference, the legacy ones without `;`, numeric
 * ones as HTML maps them): the `entities` package linkedom's parser already uses. Loaded on first
 * use: its tables (55 KB of module) are for a page without text, which `dsh tools` never renders.
 */
const decodeHtml = lazy(() => (createRequire(import.meta.url)('entities/decode') as typeof import('entities/decode')).decodeHTML)

/**
 * A page's `<title>`, as a browser shows it on the tab: the first `<title>` element's text, its
 * character references decoded, whitespace collapsed, at most `MAX_TITLE_CHARS`; undefined when it
 * has none. Only a page without text reads it (`noText` in fetch.ts): the conversion drops `<title>`
 * with `<head>`, so an app shell titled "Acme — Orders" reached the model as "markup only". A
 * `<title` inside a script, a style or a comment is none (`document.write('<title>…')` in an early
 * script was taken for the page's). Found by searches that each start where the last ended, so a
 * page of unclosed tags is read once: linear.
 */
export function pageTitle(html: string): string | undefined {
  // Searched case-blind in the page itself: a lower-cased copy can differ in length (`İ` is two
  // code units lower-cased), which moves every index after it.
  const open = titleStart(html)
  if (open === undefined) return undefined
  // Its text runs to `</title` or, unclosed, to the end (RCDATA: no tag inside ends it).
  const close = indexAfter(html, /<\/title/gi, open) ?? html.length
  // Cut between whole characters: a title of spaces then an emoji at the bound was half an emoji.
  const raw = html.slice(open + 1, close - open - 1 <= MAX_RAW_CHARS ? close : clusterBoundary(html, open + 1 + MAX_RAW_CHARS))
  const text = readableText(decodeHtml()(raw)).replace(/\s+/g, ' ').trim()
  // Nothing a reader sees (spaces, zero-width characters, which trim keeps): no title.
  if (!/[^\s\u200b-\u200d\u2060\ufeff]/.test(text)) return undefined
  if (fitsWithin(text, MAX_TITLE_CHARS)) return text
  // Characters, cut between two a reader sees: not half an emoji, not a letter without its accent.
  return `${text.slice(0, clusterBoundary(text, characterEnd(text, MAX_TITLE_CHARS - 1))).trimEnd()}…`
}

/**
 * The index of the `>` that opens the first `<title>` outside scripts, styles, comments, SVG and
 * templates. An inline SVG icon's `<title>` (its accessible name, as common as the icon) is SVG's,
 * not the page's, and a template's content is not in the document: a browser's tab shows neither.
 */
function titleStart(html: string): number | undefined {
  const next = /<(title|script|style|svg|template)[\s/>]|<!--/gi
  for (let match = next.exec(html); match; match = next.exec(html)) {
    const tag = match[1]?.toLowerCase()
    if (tag === 'title') {
      const open = html.indexOf('>', match.index)
      return open < 0 ? undefined : open
    }
    // A script's or style's text runs to its end tag, a comment to `-->` (`<!-->` and `<!--->` end
    // where they start, as HTML's parser reads them); unclosed, to the end of the page.
    const end = tag === undefined ? commentEnd(html, match.index) : indexAfter(html, END_TAGS[tag as keyof typeof END_TAGS], match.index + match[0].length)
    if (end === undefined || end < 0) return undefined
    next.lastIndex = end
  }
  return undefined
}

/** Where a skipped element's text ends (global: searched from where it opened). */
const END_TAGS = { script: /<\/script/gi, style: /<\/style/gi, svg: /<\/svg/gi, template: /<\/template/gi } as const

/** Where the comment opening at `start` ends (just past it); -1 when it never does. */
function commentEnd(html: string, start: number): number {
  if (html.startsWith('>', start + 4)) return start + 5
  if (html.startsWith('->', start + 4)) return start + 6
  const close = html.indexOf('-->', start + 4)
  return close < 0 ? -1 : close + 3
}

/** Where `pattern` (global) first matches in `html` from `from`; undefined when it does not. */
function indexAfter(html: string, pattern: RegExp, from: number): number | undefined {
  pattern.lastIndex = from
  return pattern.exec(html)?.index
}

/** A tab's title is short; a page's 100 KB "title" is not one, and is cut. */
const MAX_TITLE_CHARS = 300
/** Raw characters read of the element: enough for MAX_TITLE_CHARS after references and spaces shrink it. */
const MAX_RAW_CHARS = 4 * MAX_TITLE_CHARS
