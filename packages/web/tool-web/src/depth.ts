/** Nesting past this is not converted: the DOM walk is synchronous and grows badly with depth. */
export const MAX_HTML_DEPTH = 512

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr'])
/**
 * Elements whose content the parser (linkedom's) reads as text, not markup: no tag and no comment
 * inside them counts. Not `<noscript>`: linkedom parses its content as elements, so nesting there
 * is nesting (the cleaning drops it later, after the parse).
 */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp'])
/**
 * Foreign content, where `<x/>` closes itself. Anywhere else the HTML parser (linkedom's too) ignores
 * the slash and opens the element: 3,000 `<div/>` nest 3,000 deep.
 */
const FOREIGN = new Set(['svg', 'math'])

/**
 * What the tag walk reports, each part with its place in the input (`start` to `end`, exclusive).
 * `depth` is how many elements are open around it.
 */
interface TagVisitor {
  /**
   * Markup that holds no element: a comment, a CDATA section, a declaration or a processing
   * instruction (`markupEnd`), or `</1 …>`, each to after its end (the input's end when unterminated).
   */
  comment?(start: number, end: number): void
  /** A raw-text element whole (`<script>` to after its `</script>`, or the input's end). */
  rawText?(start: number, end: number, depth: number): void
  /**
   * Any other opening tag. `opens` when it opens an element the walk then counts (not a void
   * element, not `<x/>` in foreign content). True stops the walk.
   */
  open(start: number, end: number, depth: number, opens: boolean): boolean
  /** A closing tag that closes the innermost open element; `depth` is after it closed. Other closing tags are not reported. */
  close?(start: number, end: number, depth: number): void
}

/**
 * One lexical pass over `html`, in time linear in its length on any input, reading it as the parser
 * does where nesting is concerned: comments end at the first `-->` after their `<!` (so `<!-->` and
 * `<!--->` are whole, as linkedom reads them), CDATA sections, declarations and processing
 * instructions hold no tags (`markupEnd`), raw-text elements hold no tags, void elements and
 * `<x/>` in `<svg>` or `<math>` open nothing, and a closing tag closes the innermost element only
 * when it names it. `nestsTooDeep` and `flattenDeep` both read pages through it, so the flattening
 * acts on the nesting the check found.
 */
function walkTags(html: string, visitor: TagVisitor): void {
  const open: string[] = []
  // Open svg and math elements: inside one, `<x/>` closes itself.
  let foreign = 0
  let i = 0
  while (i < html.length) {
    const start = html.indexOf('<', i)
    if (start < 0) return
    const markup = markupEnd(html, start)
    if (markup >= 0) {
      i = markup
      visitor.comment?.(start, i)
      continue
    }
    const closing = html.charCodeAt(start + 1) === 47 // '/'
    // `</ div>` closes a div for linkedom's parser (htmlparser2 skips the whitespace).
    let nameStart = closing ? start + 2 : start + 1
    if (closing) while (nameStart < html.length && isSpace(html.charCodeAt(nameStart))) nameStart++
    if (!isLetter(html.charCodeAt(nameStart))) {
      // `</1 …>` is a comment to its `>` for that parser (a "special comment"); `</>` and `</ >` are text.
      if (closing && nameStart < html.length && html.charCodeAt(nameStart) !== 62) {
        const close = html.indexOf('>', nameStart)
        i = close < 0 ? html.length : close + 1
        visitor.comment?.(start, i)
        continue
      }
      i = start + 1
      continue
    }
    let nameEnd = nameStart + 1
    while (nameEnd < html.length && isNameChar(html.charCodeAt(nameEnd))) nameEnd++
    const name = html.slice(nameStart, nameEnd).toLowerCase()
    const end = tagEnd(html, nameEnd)
    if (end < 0) return
    i = end + 1
    if (closing) {
      if (open[open.length - 1] !== name) continue
      open.pop()
      if (FOREIGN.has(name)) foreign--
      visitor.close?.(start, i, open.length)
      continue
    }
    if (RAW_TEXT.has(name)) {
      const after = rawTextEnd(html, name, i)
      i = after < 0 ? html.length : after
      visitor.rawText?.(start, i, open.length)
      continue
    }
    const opens = !VOID.has(name) && !(foreign > 0 && lastNonSpace(html, end) === '/')
    if (visitor.open(start, i, open.length, opens)) return
    if (opens) {
      open.push(name)
      if (FOREIGN.has(name)) foreign++
    }
  }
}

/**
 * Where markup that holds no element ends when a comment, a CDATA section, a declaration or a
 * processing instruction starts at `start` (after it; the input's end when unterminated); -1 for
 * anything else. As linkedom's parser (htmlparser2) reads them: a comment `<!--` to the first `-->`
 * after its `<!`; `<![CDATA[` (those capitals) to its `]]>` (a comment in an HTML page); any other
 * `<!` (`<!doctype …>`, `<!x …>`, `<![cdata[`) and `<?` to the first `>`, quotes or not. Tags inside
 * them are text, so the nesting check counted `<div>`s no parser opens.
 */
function markupEnd(html: string, start: number): number {
  const next = html.charCodeAt(start + 1)
  if (next !== 33 && next !== 63) return -1 // '!', '?'
  let close: number
  let length = 1
  if (next === 33 && html.startsWith('<!--', start)) {
    close = html.indexOf('-->', start + 2)
    length = 3
  } else if (next === 33 && html.startsWith('<![CDATA[', start)) {
    close = html.indexOf(']]>', start + 9)
    length = 3
  } else {
    close = html.indexOf('>', start + 2)
  }
  return close < 0 ? html.length : close + length
}

/** Whether `html` nests deeper than `limit` (`walkTags`'s reading of it). */
export function nestsTooDeep(html: string, limit = MAX_HTML_DEPTH): boolean {
  let deep = false
  walkTags(html, { open: (_start, _end, depth, opens) => (deep = opens && depth >= limit) })
  return deep
}

/**
 * Index of the `>` closing a tag that starts scanning at `from`; -1 at the input's end. A quote
 * quotes only an attribute value (after `=` and any whitespace), where it may hold `>`, as the
 * parser reads it: in a name (`<div it's>`) it is a character, and taken as a quote it hid all that
 * followed, up to the page's next `'`, from the scan (the nesting there and, flattened, the text).
 */
function tagEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 62) return i // '>'
    if (code !== 61) continue // '='
    let value = i + 1
    while (value < text.length && isSpace(text.charCodeAt(value))) value++
    const quote = text.charCodeAt(value)
    if (quote !== 34 && quote !== 39) {
      i = value - 1
      continue
    }
    const close = text.indexOf(quote === 34 ? '"' : "'", value + 1)
    if (close < 0) return -1
    i = close
  }
  return -1
}

/**
 * Where scanning resumes after `</name>`, the name in any case; it must be followed by `>`, `/`,
 * whitespace or the end. -1 when there is none (the element runs to the input's end).
 */
function rawTextEnd(html: string, name: string, from: number): number {
  for (let at = html.indexOf('</', from); at >= 0; at = html.indexOf('</', at + 2)) {
    if (!namedAt(html, at + 2, name)) continue
    const after = at + 2 + name.length
    if (after >= html.length) return html.length
    const next = html.charCodeAt(after)
    if (next === 62 || next === 47 || isSpace(next)) {
      const end = tagEnd(html, after)
      return end < 0 ? html.length : end + 1
    }
  }
  return -1
}

/** Whether `html` holds `name` (lower-case ASCII) at `at`, in any case. */
function namedAt(html: string, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) {
    if (lower(html.charCodeAt(at + k)) !== name.charCodeAt(k)) return false
  }
  return true
}

function lastNonSpace(text: string, end: number): string {
  let i = end - 1
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--
  return text[i] ?? ''
}

/** ASCII whitespace, as the HTML tokenizer knows it: tab, LF, FF, CR, space. */
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13
}

/** An ASCII letter lower-cased; any other code as it is (a line break is not a name character). */
function lower(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code
}

function isLetter(code: number): boolean {
  const folded = lower(code)
  return folded >= 97 && folded <= 122
}

function isNameChar(code: number): boolean {
  return isLetter(code) || (code >= 48 && code <= 57) || code === 45
}

/**
 * `html` with every tag nested deeper than `limit` taken out and its text kept in place: the page
 * then converts like any other, its deepest parts as the text of their nearest kept ancestor. The
 * html itself when `nestsTooDeep` finds none too deep (the common case); otherwise comments go
 * everywhere (they hold no text), a raw-text element past the limit goes whole, and a closing tag
 * goes with the opening tag it matches. One `walkTags` reading serves both, so what is flattened
 * is what the check counted.
 */
export function flattenDeep(html: string, limit = MAX_HTML_DEPTH): string {
  if (!nestsTooDeep(html, limit)) return html
  const out: string[] = []
  let copied = 0
  const drop = (from: number, to: number) => {
    out.push(html.slice(copied, from))
    copied = to
  }
  walkTags(html, {
    comment: drop,
    rawText: (start, end, depth) => {
      if (depth >= limit) drop(start, end)
    },
    open: (start, end, depth) => {
      if (depth >= limit) drop(start, end)
      return false
    },
    // The element it closes was opened at this depth.
    close: (start, end, depth) => {
      if (depth >= limit) drop(start, end)
    },
  })
  out.push(html.slice(copied))
  return out.join('')
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/**
 * A page's text without its markup, for a page the converter throws on: every tag out, scripts and
 * styles with their content, the common character references decoded, whitespace collapsed. Not
 * Markdown, but text the model can read rather than markup.
 */
export function plainText(html: string): string {
  return flattenDeep(html, 0)
    .replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]+));/gi, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name) return ENTITIES[name.toLowerCase()] ?? whole
      const code = decimal ? Number(decimal) : Number.parseInt(hex!, 16)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd'
    })
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n\n')
    .trim()
}
