import { pathToFileURL } from 'node:url'
import { isRecord } from 'dsh-core'
import type { LspDiagnostic, LspDiagnosticSeverity, LspRange } from 'dsh-lsp'
import type { ServerCapabilities } from 'vscode-languageserver-protocol'
import { malformed } from './translate.ts'

/**
 * typescript-language-server publishes a file's diagnostics kind by kind (syntax, semantic,
 * suggestions, each as tsserver reports it) and without versions, so no publication says it is the
 * last one for the text opened: under load an answer taken from the first (syntax only) said "no
 * errors" for a file with errors. It offers `workspace/executeCommand` with
 * `typescript.tsserverRequest`, which passes a request to tsserver itself; tsserver's
 * `…DiagnosticsSync` requests answer for the open document's current text, all of it. So for
 * such a server diagnostics are asked, not waited for, like a pull.
 */
export const TSSERVER_REQUEST = 'typescript.tsserverRequest'

/** tsserver's three kinds, in the order it reports them. */
export const TSSERVER_DIAGNOSTIC_REQUESTS = ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'] as const

export function offersTsserverRequests(capabilities: ServerCapabilities): boolean {
  return capabilities.executeCommandProvider?.commands?.includes(TSSERVER_REQUEST) === true
}

/** tsserver's categories as LSP severities, as typescript-language-server maps them. */
const SEVERITY: Record<string, LspDiagnosticSeverity> = { error: 'error', warning: 'warning', suggestion: 'hint', message: 'information' }

/** tsserver's one-based `{ line, offset }` (offsets in UTF-16 code units) → zero-based. */
function position(value: unknown, what: string): LspRange['start'] {
  if (!isRecord(value) || !Number.isInteger(value.line) || !Number.isInteger(value.offset) || (value.line as number) < 1 || (value.offset as number) < 1) throw malformed(`${what} has no valid position`)
  return { line: (value.line as number) - 1, character: (value.offset as number) - 1 }
}

/** One `…DiagnosticsSync` response (`{ success, body: Diagnostic[] }`) → the seam's diagnostics. */
export function toTsserverDiagnostics(response: unknown): LspDiagnostic[] {
  const body = isRecord(response) ? response.body : undefined
  if (!isRecord(response) || response.success === false || !Array.isArray(body)) throw malformed('the tsserver diagnostics response has no body')
  return body.map((item, index) => {
    const what = `tsserver diagnostic ${index}`
    if (!isRecord(item) || typeof item.text !== 'string') throw malformed(`${what} has no text`)
    const severity = SEVERITY[String(item.category)]
    if (!severity) throw malformed(`${what} has category ${JSON.stringify(item.category)}`)
    const related = Array.isArray(item.relatedInformation)
      ? item.relatedInformation.flatMap((entry) => {
          const span = isRecord(entry) ? entry.span : undefined
          if (!isRecord(span) || typeof span.file !== 'string' || typeof entry.message !== 'string') return []
          return [{ uri: pathToFileURL(span.file).href, range: { start: position(span.start, what), end: position(span.end, what) }, message: entry.message }]
        })
      : []
    const code = typeof item.code === 'number' || typeof item.code === 'string' ? { code: item.code } : {}
    return { range: { start: position(item.start, what), end: position(item.end, what) }, severity, ...code, source: typeof item.source === 'string' ? item.source : 'typescript', message: item.text, related }
  })
}
