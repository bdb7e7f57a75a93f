import { errorMessage, FsError, quote, throwIfAborted, type Workspace } from 'dsh-core'
import { LspError, type CallProofs } from 'dsh-lsp'
import { exactLine } from './line-collector.ts'
import type { ResolvedSymbol } from './output.ts'
import { readSourceLines, type SourceLines } from './source-lines.ts'
import { findSymbol, lineIdentifiers, nearbyLines, symbolUses, type SymbolSearch } from './symbol-search.ts'

export interface SymbolRequest {
  readonly filePath: string
  readonly symbol: string
  /** One-based, as the model gave them. */
  readonly line: number
  readonly character?: number | undefined
  readonly occurrence?: number | undefined
}

export interface SymbolLimits {
  readonly symbolSearchLines: number
  readonly maxLineFileBytes: number
}

/** Identifiers listed in a not-found message, and the characters they may take together. */
const LISTED_IDENTIFIERS = 40
const LISTED_CHARS = 600
/** Characters of one identifier listed; a longer one is cut, with its length. */
const LISTED_IDENTIFIER_CHARS = 60

/**
 * Where `symbol` is, found on the named line (or near it) of a file read through the tool's one
 * source read: contained in the session workspace, streamed only as far as the search window,
 * byte-capped. The workspace and the file are proven through the call's `proofs`, so the provider
 * and the line text that follow reuse those proofs instead of making their own. A symbol found nowhere in the window is `LSP_SYMBOL_NOT_FOUND`, listing the
 * identifiers that are on the line so the next call can name one of them.
 */
export async function resolveSymbol(proofs: CallProofs, request: SymbolRequest, limits: SymbolLimits, signal: AbortSignal): Promise<ResolvedSymbol> {
  const search: SymbolSearch = {
    symbol: request.symbol,
    line: request.line - 1,
    character: request.character === undefined ? undefined : request.character - 1,
    occurrence: request.occurrence,
    window: limits.symbolSearchLines,
  }
  const source = await readWindow(proofs, request.filePath, search, limits.maxLineFileBytes, signal)
  const match = findSymbol(source.lines, search) ?? inOtherForm(source.lines, search)
  if (source.cut && !searchedBeforeCut(search, match?.line, source.cut.line)) {
    // A line the search would look at before (or instead of) the match lies past maxLineFileBytes.
    throw new LspError(`source ${quote(request.filePath)} cannot be used: ${source.cut.error.message}${TOO_LARGE_HINT}`, 'LSP_SOURCE_INVALID', { cause: source.cut.error })
  }
  if (!match) throw new LspError(notFoundMessage(request.filePath, search, source), 'LSP_SYMBOL_NOT_FOUND')
  return {
    filePath: request.filePath,
    symbol: request.symbol,
    line: match.line + 1,
    character: match.character + 1,
    occurrence: match.occurrence,
    ...(match.line === search.line ? {} : { requestedLine: request.line }),
  }
}

/**
 * The symbol written in the other Unicode normal form: a model writes `é` composed (NFC), and a
 * file may hold it decomposed (NFD: `e` and U+0301, as some editors and macOS tools write it), or
 * the other way round. Both look alike in the not-found message's list, so without this the model
 * was told its symbol was missing while the list showed it. The column found is the file's own.
 */
function inOtherForm(lines: SourceLines['lines'], search: SymbolSearch): ReturnType<typeof findSymbol> {
  for (const form of ['NFC', 'NFD'] as const) {
    const symbol = search.symbol.normalize(form)
    if (symbol === search.symbol) continue
    const match = findSymbol(lines, { ...search, symbol })
    if (match) return match
  }
  return undefined
}

async function readWindow(proofs: CallProofs, filePath: string, search: SymbolSearch, maxBytes: number, signal: AbortSignal): Promise<SourceLines> {
  let workspace: Workspace
  try {
    workspace = await proofs.workspace(signal)
  } catch (error) {
    throwIfAborted(signal)
    throw new LspError(`workspace ${quote(proofs.workspaceRoot)} cannot be used: ${errorMessage(error)}`, 'LSP_WORKSPACE_INVALID', { cause: error })
  }
  const wanted = new Set<number>()
  for (let line = Math.max(0, search.line - search.window); line <= search.line + search.window; line++) wanted.add(line)
  try {
    const path = await proofs.contained(workspace, filePath, signal)
    return await readSourceLines(proofs.fs, workspace, path, wanted, exactLine, maxBytes, signal, undefined, true)
  } catch (error) {
    throwIfAborted(signal)
    if (error instanceof FsError && error.code === 'FS_OUTSIDE_WORKSPACE') {
      throw new LspError(`source ${quote(filePath)} resolves outside the workspace ${workspace.path}`, 'LSP_SOURCE_OUTSIDE_WORKSPACE', { cause: error })
    }
    const hint = error instanceof FsError && error.code === 'FS_TOO_LARGE' ? TOO_LARGE_HINT : ''
    throw new LspError(`source ${quote(filePath)} cannot be used: ${errorMessage(error)}${hint}`, 'LSP_SOURCE_INVALID', { cause: error })
  }
}

const TOO_LARGE_HINT = ' (the lsp tool reads at most maxLineFileBytes to find a symbol; pass character without symbol)'

/**
 * Whether every line the search looks at up to the match (every line of the window, without one)
 * ends before the bound: then the lines past it could not have changed the answer.
 */
function searchedBeforeCut(search: SymbolSearch, matched: number | undefined, cut: number): boolean {
  for (const line of nearbyLines(search.line, search.window)) {
    if (line >= cut) return false
    if (line === matched) return true
  }
  return true
}

/** Says what was looked for and where, and what is on the named line instead. */
function notFoundMessage(filePath: string, search: SymbolSearch, source: SourceLines): string {
  const line = search.line + 1
  const symbol = JSON.stringify(search.symbol)
  const sought = search.occurrence !== undefined && search.occurrence > 1 ? `occurrence ${search.occurrence} of symbol ${symbol}` : `symbol ${symbol}`
  const around = search.window > 0 ? ` or within ${search.window} ${search.window === 1 ? 'line' : 'lines'} of it` : ''
  const sentences = [`${sought} is not on line ${line} of ${filePath}${around}.`]
  const text = source.lines.get(search.line)
  // A missing line means the read reached the end of the file, so the line count is known.
  if (text === undefined) return [...sentences, `The file has ${source.lineCount} lines.`].join(' ')
  const count = symbolUses(text, search.symbol).length
  if (count > 0) sentences.push(`Line ${line} has it ${count === 1 ? 'once' : `${count} times`}.`)
  const bare = bareName(search.symbol)
  if (bare !== undefined && symbolUses(text, bare).length > 0) sentences.push(`Give the name alone, as written at the place: symbol ${JSON.stringify(bare)}.`)
  const identifiers = lineIdentifiers(text, filePath)
  if (identifiers.length) sentences.push(`Identifiers on line ${line}: ${listed(identifiers)}.`)
  else sentences.push(text.trim() ? `Line ${line} has no identifiers outside strings and comments.` : `Line ${line} is blank.`)
  return sentences.join(' ')
}

/**
 * The name a qualified or called symbol ends in (`Circle.area`, `Shape::area`, `self->area`,
 * `area()`, `Circle#area` give `area`), or undefined when it is already bare: a model writes the
 * name as it thinks of it, and the line holds only its last part. Index scans, no regex
 * backtracking over the model's text.
 */
function bareName(symbol: string): string | undefined {
  const open = symbol.indexOf('(')
  const called = open > 0 ? symbol.slice(0, open) : symbol
  let start = 0
  for (const separator of ['.', '::', '->', '#']) {
    const at = called.lastIndexOf(separator)
    if (at >= 0 && at + separator.length > start) start = at + separator.length
  }
  const bare = called.slice(start)
  return bare && bare !== symbol ? bare : undefined
}

/** `a, b, c`, cut to a bounded count and length with `… and N more`. */
function listed(identifiers: readonly string[]): string {
  const shown: string[] = []
  let chars = 0
  for (const full of identifiers.slice(0, LISTED_IDENTIFIERS)) {
    // One very long name (generated code, a minified line) is named by its start, not dropped.
    const identifier = full.length > LISTED_IDENTIFIER_CHARS ? `${full.slice(0, LISTED_IDENTIFIER_CHARS)}\u2026 (${full.length} characters)` : full
    if (chars + identifier.length > LISTED_CHARS) break
    shown.push(identifier)
    chars += identifier.length + 2
  }
  const more = identifiers.length - shown.length
  return more > 0 ? `${shown.join(', ')} \u2026 and ${more} more` : shown.join(', ')
}
