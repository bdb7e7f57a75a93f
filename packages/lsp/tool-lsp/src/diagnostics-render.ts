import { LSP_DIAGNOSTIC_SEVERITIES, type LspDiagnosticSeverity } from 'dsh-lsp'
import type { DiagnosticsValue } from './diagnostics-value.ts'
import { boundText } from './text-bound.ts'

type Item = DiagnosticsValue['items'][number]

const INCOMPLETE_NOTE = '(the language server had not finished with this file: problems may be missing; ask again in a moment)'

const PLURAL: Record<LspDiagnosticSeverity, string> = { error: 'errors', warning: 'warnings', information: 'information', hint: 'hints' }

/** `2 errors, 1 warning`: the severities with a count, most severe first. */
export function countsText(counts: DiagnosticsValue['counts'], severities: readonly LspDiagnosticSeverity[] = LSP_DIAGNOSTIC_SEVERITIES): string {
  const parts = severities.filter((severity) => counts[severity] > 0).map((severity) => `${counts[severity]} ${counts[severity] === 1 ? severity : PLURAL[severity]}`)
  return parts.join(', ')
}

/**
 * `path:line:col  error ts(2322): message`, the message's further lines indented, then the
 * source line and related places, one-based.
 */
export function itemText(path: string, item: Item): string {
  const where = `${path}:${item.range.start.line + 1}:${item.range.start.character + 1}`
  const code = item.code === undefined ? '' : `(${item.code})`
  const label = item.source !== undefined || code ? `${item.severity} ${item.source ?? ''}${code}` : item.severity
  const lines = [`${where}  ${label}: ${item.message.replace(/\n/g, '\n    ')}`]
  if (item.lineText) lines.push(`    | ${item.lineText}`)
  for (const related of item.related) lines.push(`    see ${related.path}:${related.range.start.line + 1}:${related.range.start.character + 1}: ${related.message.replace(/\n/g, ' ')}`)
  return lines.join('\n')
}

/** What the model sees for a successful lsp_diagnostics call, at most `maxResultChars` long. */
export function renderDiagnostics(value: DiagnosticsValue, limits: { readonly maxDiagnostics: number; readonly maxResultChars: number }): string {
  const floor = LSP_DIAGNOSTIC_SEVERITIES.indexOf(value.severity)
  const shown = LSP_DIAGNOSTIC_SEVERITIES.slice(0, floor + 1)
  const below = LSP_DIAGNOSTIC_SEVERITIES.slice(floor + 1).filter((severity) => value.counts[severity] > 0)
  const lines: string[] = []
  if (value.total === 0) {
    const what = floor === LSP_DIAGNOSTIC_SEVERITIES.length - 1 ? 'No diagnostics' : `No ${shown.map((severity) => PLURAL[severity]).join(' or ')}`
    lines.push(`${what} in ${value.path}.`)
  } else {
    lines.push(`${value.path}: ${countsText(value.counts, shown)}`)
    for (const item of value.items) lines.push(itemText(value.path, item))
    const omitted = value.total - value.items.length
    if (value.truncated && omitted > 0) lines.push(`\u2026 ${omitted} more ${omitted === 1 ? 'diagnostic' : 'diagnostics'} omitted (limit ${limits.maxDiagnostics}).`)
  }
  if (below.length) lines.push(`(not shown, below ${value.severity}: ${countsText(value.counts, below)}; pass severity "${below.at(-1)}" to see them)`)
  if (!value.complete) lines.push(INCOMPLETE_NOTE)
  return boundText(lines.join('\n'), limits.maxResultChars, 'diagnostics')
}
