import { oneLine } from 'dsh-core'
import type { CallEdge, CallsValue } from './calls-value.ts'
import { boundLines, ellipsize } from './text-bound.ts'

const where = (path: string, range: { start: { line: number; character: number } }) => `${path}:${range.start.line + 1}:${range.start.character + 1}`

/**
 * What the model sees: each function at the position, then its calls indented by level:
 * `kind name  path:line:col` (where it is declared), and under it each call site with its source line.
 * Past `maxResultChars` the last lines are left out and counted; the closing notes stay.
 */
export function renderCalls(value: CallsValue, limits: { readonly maxResultChars: number; readonly maxNameChars: number }): string {
  const moved = value.askedAt ? ` (${value.askedAt.note})` : ''
  if (!value.roots.length) return `No function or method at ${value.at.filePath}:${value.at.line}:${value.at.character}${moved}.`
  const lines: string[] = []
  const verb = value.direction === 'incoming' ? 'Calls to' : 'Calls from'
  const expanded = expandedFunctions(value)
  const edge = (call: CallEdge, indent: string, level: number, ancestors: ReadonlySet<string>) => {
    const key = keyOf(call)
    // Listed again without its calls where the walk would have gone on: it was expanded elsewhere.
    const repeat = !call.calls.length && level < value.depth && expanded.has(key) ? (ancestors.has(key) ? '  (recursion: its calls are listed above)' : '  (its calls are listed where it first appears)') : ''
    lines.push(`${indent}${call.kind} ${ellipsize(call.name, limits.maxNameChars)}  ${where(call.path, call.selectionRange)}${repeat}`)
    for (const site of call.sites) lines.push(`${indent}  called at ${where(site.path, site.range)}${site.lineText ? `  ${site.lineText}` : ''}`)
    const below = new Set(ancestors).add(key)
    for (const child of call.calls) edge(child, `${indent}  `, level + 1, below)
  }
  for (const root of value.roots) {
    lines.push(`${verb} ${root.kind} ${ellipsize(root.name, limits.maxNameChars)} (${where(root.path, root.selectionRange)})${value.depth > 1 ? `, ${value.depth} levels` : ''}${moved}:`)
    if (!root.calls.length) lines.push(value.direction === 'incoming' ? '  no callers found' : '  no calls found')
    for (const call of root.calls) edge(call, '  ', 1, new Set([keyOf(root)]))
  }
  const tail: string[] = []
  if (value.truncated) tail.push('(more calls omitted: the limit calls.maxCalls was reached)')
  if (!value.complete) tail.push('(the language server was still indexing; calls may be missing)')
  for (const note of value.notes ?? []) tail.push(`(${oneLine(note)})`)
  const omitted = (dropped: number) =>
    dropped ? `\u2026 ${dropped} more ${dropped === 1 ? 'line' : 'lines'} omitted (limit ${limits.maxResultChars} characters)${value.depth > 1 ? '; a smaller depth shortens the list' : ''}.` : undefined
  return boundLines({ head: lines.slice(0, 1), body: lines.slice(1), omitted, tail }, limits.maxResultChars, 'calls')
}

/** A function by where its name is declared, as the provider tells expanded ones apart. */
const keyOf = (call: CallEdge) => `${call.uri}#${call.selectionRange.start.line}:${call.selectionRange.start.character}`

/** The functions whose calls the answer lists: the roots (always asked) and every edge with calls. */
function expandedFunctions(value: CallsValue): Set<string> {
  const keys = new Set<string>()
  const visit = (call: CallEdge) => {
    if (call.calls.length) keys.add(keyOf(call))
    for (const child of call.calls) visit(child)
  }
  for (const root of value.roots) {
    keys.add(keyOf(root))
    for (const call of root.calls) visit(call)
  }
  return keys
}
