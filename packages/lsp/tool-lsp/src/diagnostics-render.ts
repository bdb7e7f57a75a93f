import { LSP_DIAGNOSTIC_SEVERITIES, type LspDiagnosticSeverity } from 'dsh-lsp'
import type { DiagnosticsValue } from './diagnostics-value.ts'
import { boundText } from './text-bound.ts'

type Item = DiagnosticsValue['items'][number]

const INCOMPLETE_NOTE = '(the language server had not finished with this file: problems may be missing; ask again in a moment)'

const PLURAL: Record<LspDiagnosticSeverity, string> = { error: 'errors', warning: 'warnings', information: 'information', hint: 'hints' }

/**
 * `2 errors, 1 warning`: the severities with a count, most severe first. A loop, not filter/map/join:
 * a writer asks after every edit, and V8 (Node 20) deoptimised the builtins' chain when the lists
 * alternated between empty and not (see diagnosticsValue).
 */
export function countsText(counts: DiagnosticsValue['counts'], severities: readonly LspDiagnosticSeverity[] = LSP_DIAGNOSTIC_SEVERITIES): string {
  let text = ''
  for (let index = 0; index < severities.length; index++) {
    const severity = severities[index]!
    const count = counts[severity]
    if (count <= 0) continue
    text += `${text ? ', ' : ''}${count} ${count === 1 ? severity : PLURAL[severity]}`
  }
  return text
}

/** `No errors or warnings`, for each severity floor (by its index): the first line of an answer with nothing at or above it. */
const NOTHING_AT_OR_ABOVE: readonly string[] = LSP_DIAGNOSTIC_SEVERITIES.map((_, floor) =>
  floor === LSP_DIAGNOSTIC_SEVERITIES.length - 1 ? 'No diagnostics' : `No ${LSP_DIAGNOSTIC_SEVERITIES.slice(0, floor + 1).map((severity) => PLURAL[severity]).join(' or ')}`,
)

/**
 * `path:line:col  error ts(2322): message`, the message's further lines indented, then the
 * source line (unless `lineShown`: the item before it is on the same line and showed it) and
 * related places, one-based.
 */
export function itemText(path: string, item: Item, lineShown = false): string {
  const where = `${path}:${item.range.start.line + 1}:${item.range.start.character + 1}`
  const code = item.code === undefined ? '' : `(${item.code})`
  const label = item.source !== undefined || code ? `${item.severity} ${item.source ?? ''}${code}` : item.severity
  const lines = [`${where}  ${label}: ${item.message.replace(/\n/g, '\n    ')}`]
  if (item.lineText && !lineShown) lines.push(`    | ${item.lineText}`)
  for (const related of item.related) lines.push(`    see ${related.path}:${related.range.start.line + 1}:${related.range.start.character + 1}: ${related.message.replace(/\n/g, ' ')}`)
  return lines.join('\n')
}

/** What the model sees for a successful lsp_diagnostics call, at most `maxResultChars` long. */
export function renderDiagnostics(value: DiagnosticsValue, limits: { readonly maxDiagnostics: number; readonly maxResultChars: number }): string {
  const floor = LSP_DIAGNOSTIC_SEVERITIES.indexOf(value.severity)
  // Strings added, not lines joined, and the severities below the floor looked at only when one has
  // a count: as countsText, on every change a writer makes.
  let text: string
  if (value.total === 0) {
    text = `${NOTHING_AT_OR_ABOVE[floor]} in ${value.path}.`
  } else {
    text = `${value.path}: ${countsText(value.counts, LSP_DIAGNOSTIC_SEVERITIES.slice(0, floor + 1))}`
    // A line's text once for the items on it, as for locations (render.ts): 50 errors on a minified
    // file's one line repeated its first 200 characters 50 times.
    for (let index = 0; index < value.items.length; index++) {
      const item = value.items[index]!
      text += `\n${itemText(value.path, item, index > 0 && value.items[index - 1]!.range.start.line === item.range.start.line)}`
    }
    const omitted = value.total - value.items.length
    if (value.truncated && omitted > 0) text += `\n\u2026 ${omitted} more ${omitted === 1 ? 'diagnostic' : 'diagnostics'} omitted (limit ${limits.maxDiagnostics}).`
  }
  // The notes after the listing are kept when it is cut: what was not shown, and that problems may be missing.
  let tail = ''
  let lowest: LspDiagnosticSeverity | undefined
  for (let index = floor + 1; index < LSP_DIAGNOSTIC_SEVERITIES.length; index++) if (value.counts[LSP_DIAGNOSTIC_SEVERITIES[index]!] > 0) lowest = LSP_DIAGNOSTIC_SEVERITIES[index]
  if (lowest) tail += `\n(not shown, below ${value.severity}: ${countsText(value.counts, LSP_DIAGNOSTIC_SEVERITIES.slice(floor + 1))}; pass severity "${lowest}" to see them)`
  if (!value.complete) tail += `\n${INCOMPLETE_NOTE}`
  return boundText(text, limits.maxResultChars, 'diagnostics', { tail })
}
