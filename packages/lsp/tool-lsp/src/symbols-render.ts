import { assertNever, oneLine } from 'dsh-core'
import type { LspSymbolKind } from 'dsh-lsp'
import { INDEXING_NOTE } from './render.ts'
import type { OutlineValue, SymbolsValue, WorkspaceMatchesValue } from './symbols-value.ts'
import { boundText } from './text-bound.ts'

export interface SymbolLimits {
  readonly maxSymbols: number
  readonly maxSymbolDepth: number
  readonly maxResultChars: number
}

/** `enumMember` → `enum member`: kinds as a reader says them. */
export function kindWord(kind: LspSymbolKind): string {
  return kind.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)
}

/** What the model sees for a successful lsp_symbols call, at most `maxResultChars` long. */
export function renderSymbols(value: SymbolsValue, limits: SymbolLimits): string {
  const text = (() => {
    switch (value.kind) {
      case 'outline':
        return outlineText(value, limits)
      case 'workspaceSymbols':
        return matchesText(value, limits)
      default:
        return assertNever(value, 'lsp_symbols value kind')
    }
  })()
  return boundText(value.complete ? text : `${text}\n${INDEXING_NOTE}`, limits.maxResultChars, 'symbols')
}

/** One line per entry, members indented under their parent: `method area  8:3  (): number`, one-based. */
function outlineText(value: OutlineValue, limits: SymbolLimits): string {
  if (value.total === 0) return `No symbols in ${value.path}.`
  const lines = [`${value.path}: ${value.topLevel} top-level ${value.topLevel === 1 ? 'symbol' : 'symbols'}, ${value.total} in all`]
  const walk = (entries: OutlineValue['symbols'], indent: string): void => {
    for (const entry of entries) {
      const at = `${entry.selectionRange.start.line + 1}:${entry.selectionRange.start.character + 1}`
      const span = entry.range.end.line > entry.range.start.line ? `  (lines ${entry.range.start.line + 1}-${entry.range.end.line + 1})` : ''
      // A constructor is named `constructor`: say it once.
      const label = entry.name === kindWord(entry.kind) ? entry.name : `${kindWord(entry.kind)} ${entry.name}`
      lines.push(`${indent}${label}  ${at}${span}${entry.detail ? `  ${entry.detail}` : ''}`)
      walk(entry.children, `${indent}  `)
    }
  }
  walk(value.symbols, '')
  if (value.truncated) lines.push(`\u2026 more symbols omitted (limits: ${limits.maxSymbols} symbols, ${limits.maxSymbolDepth} levels).`)
  return lines.join('\n')
}

/** `function area  src/a.ts:1:17  export function area(…)`, with the container when there is one. */
function matchesText(value: WorkspaceMatchesValue, limits: SymbolLimits): string {
  const lines = value.total === 0 ? [`No symbols match ${JSON.stringify(value.query)}.`] : [`${value.total} ${value.total === 1 ? 'symbol matches' : 'symbols match'} ${JSON.stringify(value.query)}:`]
  for (const symbol of value.symbols) {
    const container = symbol.containerName ? ` (in ${symbol.containerName})` : ''
    const at = `${symbol.path}:${symbol.range.start.line + 1}:${symbol.range.start.character + 1}`
    lines.push(`${kindWord(symbol.kind)} ${symbol.name}${container}  ${at}${symbol.lineText ? `  ${symbol.lineText}` : ''}`)
  }
  const omitted = value.total - value.symbols.length
  if (value.truncated && omitted > 0) lines.push(`\u2026 ${omitted} more ${omitted === 1 ? 'symbol' : 'symbols'} omitted (limit ${limits.maxSymbols}); a longer query narrows the list.`)
  for (const entry of value.unanswered) lines.push(`(${entry.providerId} did not answer: ${entry.code}: ${oneLine(entry.message)})`)
  return lines.join('\n')
}
