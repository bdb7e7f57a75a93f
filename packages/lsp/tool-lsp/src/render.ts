import { assertNever } from 'dsh-core'
import type { LspOperation } from 'dsh-lsp'
import type { AskedAt } from './asked-at.ts'
import type { HoverValue, LocationsValue, LspToolValue, ResolvedSymbol } from './output.ts'
import { boundText } from './text-bound.ts'

export interface RenderLimits {
  readonly maxLocations: number
  readonly maxResultChars: number
}

export const INDEXING_NOTE = '(the language server was still indexing; results may be incomplete)'

/**
 * What the model sees for a successful call: one text, at most `maxResultChars` long. A call that
 * named a symbol starts with where it was resolved, so a corrected line or column is visible.
 */
export function renderValue(operation: LspOperation, value: LspToolValue, limits: RenderLimits, filePath?: string): string {
  const header = value.resolved ? `${resolvedHeader(operation, value.resolved)}\n` : value.askedAt ? `${askedAtHeader(operation, filePath, value.askedAt)}\n` : ''
  switch (value.kind) {
    case 'locations':
      return boundText(header + locationsText(value, limits.maxLocations), limits.maxResultChars, 'locations', { tail: indexingNote(value.complete) })
    case 'hover':
      return boundText(header + hoverText(value), limits.maxResultChars, 'hover', { alreadyCut: value.truncated, tail: indexingNote(value.complete) })
    default:
      return assertNever(value, 'lsp value kind')
  }
}

/** `hover at src/main.ts:8:46 (symbol "D")`, plus the occurrence and a moved line when they apply. */
export function resolvedHeader(operation: LspOperation, resolved: ResolvedSymbol): string {
  const notes = [`symbol ${JSON.stringify(resolved.symbol)}`]
  if (resolved.occurrence > 1) notes.push(`occurrence ${resolved.occurrence}`)
  if (resolved.requestedLine !== undefined) notes.push(`not on line ${resolved.requestedLine}, found on line ${resolved.line}`)
  return `${operation} at ${resolved.filePath}:${resolved.line}:${resolved.character} (${notes.join('; ')})`
}

/** `hover at src/main.ts:12:42 (column 80 is past the end of line 12 (41 characters); asked at its end)`. */
function askedAtHeader(operation: LspOperation, filePath: string | undefined, askedAt: AskedAt): string {
  return `${operation} at ${filePath ?? 'the file'}:${askedAt.line}:${askedAt.character} (${askedAt.note})`
}

/** One path's rendered lines, and the source line its last location is on (its text is shown once). */
interface PathGroup {
  readonly lines: string[]
  lastLine: number
}

/**
 * `path:line:col` (one-based start), then two spaces and the source line when known. Locations are
 * grouped by path in the order paths first appear; within a path they keep the server's order. A
 * location on the same line as the one before it in its path shows no line text again: on a
 * minified one-line file every match repeated the same 200 characters, so 75 of 60,001 matches
 * filled the 16,000 characters and the count of the others was cut off.
 */
export function locationsText(value: LocationsValue, maxLocations: number): string {
  if (value.locations.length === 0 && !value.truncated) return 'No results.'
  const byPath = new Map<string, PathGroup>()
  for (const { path, range, lineText } of value.locations) {
    let group = byPath.get(path)
    if (!group) byPath.set(path, (group = { lines: [], lastLine: -1 }))
    const line = range.start.line
    const place = `${path}:${line + 1}:${range.start.character + 1}`
    group.lines.push(lineText && line !== group.lastLine ? `${place}  ${lineText}` : place)
    group.lastLine = line
  }
  // A plain loop: Array.prototype.flat is a slow builtin on V8 (Node 20), on every locations call.
  const lines: string[] = []
  for (const group of byPath.values()) for (const line of group.lines) lines.push(line)
  const omitted = value.total - value.locations.length
  if (value.truncated && omitted > 0) {
    lines.push(`\u2026 ${omitted} more ${omitted === 1 ? 'location' : 'locations'} omitted (limit ${maxLocations}).`)
  }
  return lines.join('\n')
}

function hoverText(value: HoverValue): string {
  return value.hover ? value.hover.contents : 'No hover information.'
}

/** Kept after a cut text: a cut at the end dropped it first, and it says how far to trust what is shown. */
function indexingNote(complete: boolean): string {
  return complete ? '' : `\n${INDEXING_NOTE}`
}
