import { assertNever, oneLine } from 'dsh-core'
import type { LspSymbolKind } from 'dsh-lsp'
import { INDEXING_NOTE } from './render.ts'
import type { OutlineValue, SymbolsValue, WorkspaceMatchesValue } from './symbols-value.ts'
import { boundLines, ellipsize, type LinedAnswer } from './text-bound.ts'

export interface SymbolLimits {
  readonly maxSymbols: number
  readonly maxSymbolDepth: number
  readonly maxResultChars: number
  /** A name longer than this is shown cut (a generated name of 20000 characters was longer than the whole answer). */
  readonly maxNameChars: number
}

/** `enumMember` → `enum member`: kinds as a reader says them. */
export function kindWord(kind: LspSymbolKind): string {
  return kind.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)
}

/**
 * What the model sees for a successful lsp_symbols call, at most `maxResultChars` long: past it the
 * last entries are left out and counted, and the notes after them (servers that did not answer,
 * indexing) stay.
 */
export function renderSymbols(value: SymbolsValue, limits: SymbolLimits): string {
  const answer = (() => {
    switch (value.kind) {
      case 'outline':
        return outlineText(value, limits)
      case 'workspaceSymbols':
        return matchesText(value, limits)
      default:
        return assertNever(value, 'lsp_symbols value kind')
    }
  })()
  return boundLines(value.complete ? answer : { ...answer, tail: [...answer.tail, INDEXING_NOTE] }, limits.maxResultChars, 'symbols')
}

/** One line per entry, members indented under their parent: `method area  8:3  (): number`, one-based. */
function outlineText(value: OutlineValue, limits: SymbolLimits): LinedAnswer {
  if (value.total === 0) return { head: [`No symbols in ${value.path}.`], body: [], omitted: () => undefined, tail: [] }
  const head = [`${value.path}: ${value.topLevel} top-level ${value.topLevel === 1 ? 'symbol' : 'symbols'}, ${value.total} in all`]
  const walk = (entries: OutlineValue['symbols'], indent: string): void => {
    for (const entry of entries) {
      const at = `${entry.selectionRange.start.line + 1}:${entry.selectionRange.start.character + 1}`
      const span = entry.range.end.line > entry.range.start.line ? `  (lines ${entry.range.start.line + 1}-${entry.range.end.line + 1})` : ''
      // A constructor is named `constructor`: say it once.
      const name = ellipsize(entry.name, limits.maxNameChars)
      const label = name === kindWord(entry.kind) ? name : `${kindWord(entry.kind)} ${name}`
      lines.push(`${indent}${label}  ${at}${span}${entry.detail ? `  ${ellipsize(entry.detail, limits.maxNameChars)}` : ''}`)
      walk(entry.children, `${indent}  `)
    }
  }
  const lines: string[] = []
  walk(value.symbols, '')
  const limitsSaid = `${limits.maxSymbols} symbols, ${limits.maxSymbolDepth} levels`
  const omitted = (dropped: number): string | undefined => {
    if (!dropped) return value.truncated ? `\u2026 more symbols omitted (limits: ${limitsSaid}).` : undefined
    const said = `\u2026 ${dropped} more ${dropped === 1 ? 'entry' : 'entries'} omitted (limit ${limits.maxResultChars} characters)`
    return value.truncated ? `${said}, and more symbols past the limits (${limitsSaid}).` : `${said}.`
  }
  return { head, body: lines, omitted, tail: [] }
}

/** `function area  src/a.ts:1:17  export function area(…)`, with the container when there is one. */
function matchesText(value: WorkspaceMatchesValue, limits: SymbolLimits): LinedAnswer {
  const capped = value.capped ?? []
  // A server that stopped at its cap said nothing of the rest: the count is a floor, not the whole.
  const count = capped.length ? `${value.total} or more` : String(value.total)
  const head = value.total === 0 ? [`No symbols match ${JSON.stringify(value.query)}.`] : [`${count} ${value.total === 1 && !capped.length ? 'symbol matches' : 'symbols match'} ${JSON.stringify(value.query)}:`]
  const lines: string[] = []
  for (const symbol of value.symbols) {
    const container = symbol.containerName ? ` (in ${ellipsize(symbol.containerName, limits.maxNameChars)})` : ''
    const at = `${symbol.path}:${symbol.range.start.line + 1}:${symbol.range.start.character + 1}`
    lines.push(`${kindWord(symbol.kind)} ${ellipsize(symbol.name, limits.maxNameChars)}${container}  ${at}${symbol.lineText ? `  ${symbol.lineText}` : ''}`)
  }
  const omitted = (dropped: number): string | undefined => {
    const count = value.total - value.symbols.length + dropped
    if (count <= 0 || (!value.truncated && !dropped)) return undefined
    const limit = dropped ? `${limits.maxResultChars} characters` : String(limits.maxSymbols)
    return `\u2026 ${count} more ${count === 1 ? 'symbol' : 'symbols'} omitted (limit ${limit}); a longer query narrows the list.`
  }
  const tail = value.unanswered.map((entry) => `(${entry.providerId} did not answer: ${entry.code}: ${oneLine(entry.message)})`)
  for (const note of value.notes ?? []) tail.push(`(${oneLine(note)})`)
  for (const { providerId, limit } of capped) {
    tail.push(`(${providerId} gives at most ${limit} matches and gave ${limit}: the list may be incomplete. Narrow the query: more of the name (its start, exact case), or outline a file with filePath.)`)
  }
  return { head, body: lines, omitted, tail }
}
