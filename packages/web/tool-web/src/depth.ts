/** Nesting past this is not converted: the DOM walk is synchronous and grows badly with depth. */
export const MAX_HTML_DEPTH = 512

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr'])
const RAW_TEXT = new Set(['script', 'style', 'noscript'])
/**
 * Foreign content, where `<x/>` closes itself. Anywhere else the HTML parser (linkedom's too) ignores
 * the slash and opens the element: 3,000 `<div/>` nest 3,000 deep.
 */
const FOREIGN = new Set(['svg', 'math'])

/**
 * One lexical pass that says whether `html` nests deeper than `limit`, in time linear in its length
 * on any input. It over-counts on purpose (opening tags inside comments still push) so comments
 * cannot hide nesting from it.
 */
export function nestsTooDeep(html: string, limit = MAX_HTML_DEPTH): boolean {
  const text = html.toLowerCase()
  const stack: string[] = []
  // Open svg and math elements: inside one, `<x/>` closes itself.
  let foreign = 0
  // Where the open comment ends (its `-->`, or the input's end when unterminated); -1 outside one.
  let commentEnd = -1
  let i = 0
  while (i < text.length) {
    const open = text.indexOf('<', i)
    if (commentEnd >= 0 && (open < 0 || commentEnd < open)) {
      i = commentEnd + 3
      commentEnd = -1
      continue
    }
    if (open < 0) break
    if (commentEnd < 0 && text.startsWith('<!--', open)) {
      const close = text.indexOf('-->', open + 4)
      commentEnd = close < 0 ? text.length : close
      i = open + 4
      continue
    }
    const inComment = commentEnd >= 0
    const closing = text[open + 1] === '/'
    const nameStart = closing ? open + 2 : open + 1
    if (!isLetter(text.charCodeAt(nameStart))) {
      i = open + 1
      continue
    }
    let nameEnd = nameStart
    while (nameEnd < text.length && isNameChar(text.charCodeAt(nameEnd))) nameEnd++
    const name = text.slice(nameStart, nameEnd)
    const end = tagEnd(text, nameEnd)
    if (end < 0) return false
    i = end + 1
    if (closing) {
      if (!inComment && stack[stack.length - 1] === name) {
        stack.pop()
        if (FOREIGN.has(name)) foreign--
      }
      continue
    }
    if (VOID.has(name) || (foreign > 0 && lastNonSpace(text, end) === '/')) continue
    if (RAW_TEXT.has(name) && !inComment) {
      const after = rawTextEnd(text, name, i)
      if (after < 0) return false
      i = after
      continue
    }
    stack.push(name)
    if (FOREIGN.has(name)) foreign++
    if (stack.length > limit) return true
  }
  return false
}

/** Index of the `>` closing a tag that starts scanning at `from`; quoted values may hold `>`. -1 at end of input. */
function tagEnd(text: string, from: number): number {
  let quote = ''
  for (let i = from; i < text.length; i++) {
    const char = text[i]!
    if (quote) {
      if (char === quote) quote = ''
    } else if (char === '"' || char === "'") {
      quote = char
    } else if (char === '>') {
      return i
    }
  }
  return -1
}

/** Where scanning resumes after `</name>`; the name must be followed by `>`, `/`, whitespace or the end. */
function rawTextEnd(text: string, name: string, from: number): number {
  const needle = `</${name}`
  for (let at = text.indexOf(needle, from); at >= 0; at = text.indexOf(needle, at + 1)) {
    const next = text[at + needle.length]
    if (next === undefined) return text.length
    if (next === '>' || next === '/' || /\s/.test(next)) {
      const end = tagEnd(text, at + needle.length)
      return end < 0 ? text.length : end + 1
    }
  }
  return -1
}

function lastNonSpace(text: string, end: number): string {
  let i = end - 1
  while (i >= 0 && /\s/.test(text[i]!)) i--
  return text[i] ?? ''
}

function isLetter(code: number): boolean {
  return code >= 97 && code <= 122
}

function isNameChar(code: number): boolean {
  return isLetter(code) || (code >= 48 && code <= 57) || code === 45
}

/**
 * `html` with every tag nested deeper than `limit` taken out and its text kept in place: the page
 * then converts like any other, its deepest parts as the text of their nearest kept ancestor. The
 * same lexical pass as `nestsTooDeep` decides the depth (the html itself when that finds none too
 * deep, the common case); comments go everywhere (they hold no text, and the scan counts the tags
 * inside them), a `<script>` or `<style>` past the limit goes whole, and a closing tag goes with the
 * opening tag it matches.
 */
export function flattenDeep(html: string, limit = MAX_HTML_DEPTH): string {
  if (!nestsTooDeep(html, limit)) return html
  // For finding `</script` whatever its case; the same length as `html`, so its indexes hold there.
  const lower = html.replace(/[A-Z]+/g, (run) => run.toLowerCase())
  const out: string[] = []
  const stack: { readonly name: string; readonly kept: boolean }[] = []
  let foreign = 0
  let copied = 0
  const drop = (from: number, to: number) => {
    out.push(html.slice(copied, from))
    copied = to
  }
  let i = 0
  while (i < html.length) {
    const open = html.indexOf('<', i)
    if (open < 0) break
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4)
      i = close < 0 ? html.length : close + 3
      drop(open, i)
      continue
    }
    const closing = html[open + 1] === '/'
    const nameStart = closing ? open + 2 : open + 1
    if (!isLetter(html.charCodeAt(nameStart) | 0x20)) {
      i = open + 1
      continue
    }
    let nameEnd = nameStart
    while (nameEnd < html.length && isNameChar(html.charCodeAt(nameEnd) | 0x20)) nameEnd++
    const name = html.slice(nameStart, nameEnd).toLowerCase()
    const end = tagEnd(html, nameEnd)
    if (end < 0) break
    i = end + 1
    if (closing) {
      const top = stack[stack.length - 1]
      if (top?.name !== name) continue
      stack.pop()
      if (FOREIGN.has(name)) foreign--
      if (!top.kept) drop(open, i)
      continue
    }
    const deep = stack.length >= limit
    if (RAW_TEXT.has(name)) {
      const after = rawTextEnd(lower, name, i)
      i = after < 0 ? html.length : after
      if (deep) drop(open, i)
      continue
    }
    if (!VOID.has(name) && !(foreign > 0 && lastNonSpace(html, end) === '/')) {
      stack.push({ name, kept: !deep })
      if (FOREIGN.has(name)) foreign++
    }
    if (deep) drop(open, i)
  }
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
