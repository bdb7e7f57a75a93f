/** Nesting past this is not converted: the DOM walk is synchronous and grows badly with depth. */
export const MAX_HTML_DEPTH = 512

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr'])
const RAW_TEXT = new Set(['script', 'style', 'noscript'])

/**
 * One lexical pass that says whether `html` nests deeper than `limit`, in time linear in its length
 * on any input. It over-counts on purpose (opening tags inside comments still push) so comments
 * cannot hide nesting from it.
 */
export function nestsTooDeep(html: string, limit = MAX_HTML_DEPTH): boolean {
  const text = html.toLowerCase()
  const stack: string[] = []
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
      if (!inComment && stack[stack.length - 1] === name) stack.pop()
      continue
    }
    if (VOID.has(name) || lastNonSpace(text, end) === '/') continue
    if (RAW_TEXT.has(name) && !inComment) {
      const after = rawTextEnd(text, name, i)
      if (after < 0) return false
      i = after
      continue
    }
    stack.push(name)
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
