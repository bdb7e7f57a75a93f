/**
 * Where a line holds string literal text, so a name inside `"width": width` can be told from the
 * variable after it. Approximate and language-agnostic on purpose: it only decides which of
 * several uses of a name to prefer, never whether a name is found.
 *
 * - `'`, `"` and `` ` `` open a string that must close on the same line (a backslash escapes);
 *   an unclosed quote opens nothing (nor does a later quote of its kind), and a `'` right after
 *   an identifier character (`x'`, `don't`) is not a quote unless the word is a Python string
 *   prefix (`f'`, `rb'`).
 * - Interpolations are code, not text: `${…}` in any string, and `{…}` (but not `{{`) in a string
 *   prefixed with `f` or `$` (Python f-strings, C# interpolated strings).
 */

const QUOTES = new Set(["'", '"', '`'])
const IDENTIFIER_PART = /[\p{ID_Continue}$]/u
/** String prefixes that make `{…}` an interpolation: Python's f, rf, fr, … and C#'s $, $@, @$. */
const BRACE_INTERPOLATING_PREFIX = /(?:^|[^\p{ID_Continue}$@])(?:[rRbB]?[fF][rRbB]?|\$@?|@\$)$/u

/** Python's string prefixes (`f'…'`, `rb'…'`): a `'` after one opens a string, unlike `don't`'s. */
const STRING_PREFIX = /(?:^|[^\p{ID_Continue}$@])[rRbBuUfF]{1,2}$/u

/** Half-open [start, end) spans of literal text (quotes included, interpolations excluded). */
export type Span = readonly [start: number, end: number]

export function stringSpans(text: string): Span[] {
  const spans: Span[] = []
  // A quote that did not close opens nothing after it either: each later one would scan to the
  // line's end again (400 KB of `"\\` took 100 s), so each kind scans in vain at most once.
  const unclosed = new Set<string>()
  let index = 0
  while (index < text.length) {
    const char = text[index]!
    if (!QUOTES.has(char) || unclosed.has(char)) {
      index += 1
      continue
    }
    const before = text.slice(Math.max(0, index - 3), index)
    if (char === "'" && index > 0 && IDENTIFIER_PART.test(text[index - 1]!) && !STRING_PREFIX.test(before)) {
      index += 1
      continue
    }
    const literal = scanString(text, index, BRACE_INTERPOLATING_PREFIX.test(before))
    if (!literal) {
      unclosed.add(char)
      index += 1
      continue
    }
    spans.push(...literal.spans)
    index = literal.end
  }
  return spans
}

/** True when `column` lies in one of `spans`. */
export function inSpans(spans: readonly Span[], column: number): boolean {
  return spans.some(([start, end]) => column >= start && column < end)
}

/** The string opened at `open`: its literal spans and where it ends, or undefined when it does not close on the line. */
function scanString(text: string, open: number, braceInterpolates: boolean): { spans: Span[]; end: number } | undefined {
  const quote = text[open]!
  const spans: Span[] = []
  let literalStart = open
  let index = open + 1
  while (index < text.length) {
    const char = text[index]!
    if (char === '\\') {
      index += 2
      continue
    }
    if (char === quote) {
      spans.push([literalStart, index + 1])
      return { spans, end: index + 1 }
    }
    if (braceInterpolates && char === '{' && text[index + 1] === '{') {
      // `{{` is a literal brace in an f-string.
      index += 2
      continue
    }
    const opening = char === '$' && text[index + 1] === '{' ? index + 1 : braceInterpolates && char === '{' ? index : -1
    if (opening !== -1) {
      const close = matchingBrace(text, opening)
      if (close === -1) return undefined
      spans.push([literalStart, index])
      literalStart = close + 1
      index = close + 1
      continue
    }
    index += 1
  }
  return undefined
}

/** The index of the `}` closing the `{` at `open`, or -1. */
function matchingBrace(text: string, open: number): number {
  let depth = 0
  for (let index = open; index < text.length; index++) {
    if (text[index] === '{') depth += 1
    else if (text[index] === '}' && --depth === 0) return index
  }
  return -1
}
