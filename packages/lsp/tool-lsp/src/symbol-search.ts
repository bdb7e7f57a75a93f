import { finalExtension } from 'dsh-lsp'
import { inSpans, stringSpans, type Span } from './string-spans.ts'

/**
 * Finding a named symbol on a line, in UTF-16 code units (JavaScript string indices, which is
 * what LSP columns count). Pure: the lines come from the caller.
 */

/** A character that continues an identifier in the languages we serve (JS's `$` and joiners included). */
const IDENTIFIER_PART = /[\p{ID_Continue}$\u200C\u200D]/u
const DOLLAR = 0x24
/** Identifiers as the not-found message lists them. */
const IDENTIFIER = /[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*/gu

/** Where the symbol was found: zero-based line and column, and which occurrence on that line (one-based). */
export interface SymbolMatch {
  readonly line: number
  readonly character: number
  readonly occurrence: number
}

export interface SymbolSearch {
  readonly symbol: string
  /** Zero-based line the caller named. */
  readonly line: number
  /** Zero-based column the caller named, if any: picks the nearest occurrence. */
  readonly character?: number | undefined
  /** One-based; wins over `character`. */
  readonly occurrence?: number | undefined
  /** How many lines above and below `line` to try when the symbol is not on it. */
  readonly window: number
}

/**
 * The zero-based columns where `symbol` stands on its own in `text`: an edge of the symbol that is
 * an identifier character must not touch another identifier character, so `area` is not found
 * inside `areaSum` or `_area`, while a symbol like `$el` or `foo?` still has its own edges checked.
 * Code points are compared whole, so a letter outside the BMP counts as one identifier character.
 */
export function symbolColumns(text: string, symbol: string, options: { readonly dollarIsBoundary?: boolean } = {}): number[] {
  if (!symbol) return []
  const touches = (codePoint: number | undefined) => isIdentifierPart(codePoint) && !(options.dollarIsBoundary && codePoint === DOLLAR)
  const checkStart = isIdentifierPart(symbol.codePointAt(0))
  const checkEnd = isIdentifierPart(codePointBefore(symbol, symbol.length))
  const columns: number[] = []
  let from = 0
  for (let at = text.indexOf(symbol, from); at !== -1; at = text.indexOf(symbol, from)) {
    const end = at + symbol.length
    const standsAlone = !(checkStart && touches(codePointBefore(text, at))) && !(checkEnd && touches(text.codePointAt(end)))
    if (standsAlone) columns.push(at)
    from = standsAlone ? end : at + 1
  }
  return columns
}

/**
 * The uses of `symbol` on a line: where it stands alone (see `symbolColumns`), leaving out those
 * inside string literals when there are others, so `"width": width` has one use, the variable.
 */
export function symbolUses(text: string, symbol: string): number[] {
  let columns = symbolColumns(text, symbol)
  // A shell, Perl, PHP or Makefile variable is used as `$NAME` (`$` is no part of its name), while in
  // JavaScript `$name` is another identifier: so only a line without a use of its own counts `$` as an edge.
  if (!columns.length && !symbol.startsWith('$')) columns = symbolColumns(text, symbol, { dollarIsBoundary: true })
  if (columns.length < 2) return columns
  const strings = stringSpans(text)
  const inCode = columns.filter((column) => !inSpans(strings, column))
  return inCode.length ? inCode : columns
}

/**
 * The line, column and occurrence to ask at. The named line is tried first, then the lines around
 * it, nearest first, up to `window` away; of two lines equally near, the one below wins, because
 * both common slips (counting lines from zero, and lines inserted above since the file was read)
 * leave the symbol below the line named. A line qualifies when it has at least `occurrence` uses
 * of the symbol. Undefined when no line within the window qualifies.
 */
export function findSymbol(lines: ReadonlyMap<number, string>, search: SymbolSearch): SymbolMatch | undefined {
  for (const line of nearbyLines(search.line, search.window)) {
    const text = lines.get(line)
    if (text === undefined) continue
    const uses = symbolUses(text, search.symbol)
    const index = pick(uses, search)
    if (index !== undefined) return { line, character: uses[index]!, occurrence: index + 1 }
  }
  return undefined
}

const PYTHON_STRING_PREFIX = /^[rRbBuUfF]{1,2}$/

// Files whose line comments start with `#` (and which have no block comments); the rest use `//` and `/* … */`.
const HASH_COMMENT_EXTENSIONS = new Set(['.py', '.pyi', '.rb', '.sh', '.bash', '.zsh', '.yaml', '.yml', '.toml', '.r', '.pl', '.ex', '.exs', '.nix', '.cmake'])

/**
 * The identifiers on a line, each once, in order of first appearance, leaving out the words inside
 * string literals (see `stringSpans`) and comments: what the model could have meant. A lexical rule
 * by the file's extension, no server asked: `#` starts a comment in Python, Ruby, shell, YAML and the
 * like, `//` and `/* … *\/` everywhere else. Its limits: a block comment or string spanning lines is
 * seen only on the line it opens on (a JSDoc line starting with `*` still lists its words), and a
 * language whose comments are neither (Lua's `--`, SQL's) lists its comments' words.
 */
export function lineIdentifiers(text: string, filePath = ''): string[] {
  const skipped = stringSpans(text)
  const hash = HASH_COMMENT_EXTENSIONS.has(finalExtension(filePath))
  // Comments outside strings, in one pass; the spans stay sorted.
  let from = 0
  const out: Span[] = []
  for (let at = 0; at < text.length; at++) {
    while (from < skipped.length && skipped[from]![1] <= at) from += 1
    if (from < skipped.length && skipped[from]![0] <= at) {
      at = skipped[from]![1] - 1
      continue
    }
    const char = text[at]
    if (hash ? char === '#' : char === '/' && text[at + 1] === '/') {
      out.push([at, text.length])
      break
    }
    if (!hash && char === '/' && text[at + 1] === '*') {
      const close = text.indexOf('*/', at + 2)
      const end = close === -1 ? text.length : close + 2
      out.push([at, end])
      at = end - 1
    }
  }
  const spans = [...skipped, ...out].sort((a, b) => a[0] - b[0])
  const found = new Set<string>()
  let span = 0
  for (const match of text.matchAll(IDENTIFIER)) {
    while (span < spans.length && spans[span]![1] <= match.index) span += 1
    if (span < spans.length && spans[span]![0] <= match.index) continue
    // The `$` of a `${` interpolation opening, not jQuery's `$`.
    if (match[0] === '$' && text[match.index + 1] === '{' && span > 0 && spans[span - 1]![1] === match.index) continue
    // A Python string's prefix (`f` of `f'…'`), not a name.
    if (span < spans.length && spans[span]![0] === match.index + match[0].length && PYTHON_STRING_PREFIX.test(match[0]) && text[spans[span]![0]] !== '`') continue
    found.add(match[0])
  }
  return [...found]
}

/** `line`, then `line+1`, `line-1`, `line+2`, … up to `window` away, never below zero. */
export function* nearbyLines(line: number, window: number): Generator<number> {
  yield line
  for (let distance = 1; distance <= window; distance++) {
    yield line + distance
    if (line - distance >= 0) yield line - distance
  }
}

/**
 * Which use to take: the one asked for, else the one starting nearest `character`, else the first.
 * A column is a guess at where the symbol starts, so distance is measured to the start. On a tie
 * the later use wins: the usual miscount is short (an emoji counted as one unit instead of two).
 */
function pick(uses: readonly number[], search: SymbolSearch): number | undefined {
  if (search.occurrence !== undefined) return search.occurrence <= uses.length ? search.occurrence - 1 : undefined
  if (uses.length === 0) return undefined
  const character = search.character
  if (character === undefined) return 0
  let best = 0
  for (let index = 1; index < uses.length; index++) {
    if (Math.abs(uses[index]! - character) <= Math.abs(uses[best]! - character)) best = index
  }
  return best
}

function isIdentifierPart(codePoint: number | undefined): boolean {
  return codePoint !== undefined && IDENTIFIER_PART.test(String.fromCodePoint(codePoint))
}

/** The code point that ends just before `index` (a surrogate pair read whole). */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined
  const low = text.charCodeAt(index - 1)
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2)
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2)
  }
  return low
}
