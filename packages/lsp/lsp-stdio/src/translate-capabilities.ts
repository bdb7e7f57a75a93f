import { isRecord } from 'dsh-core'
import {
  LSP_DIAGNOSTIC_SEVERITIES,
  LSP_SYMBOL_KINDS,
  type LspDiagnostic,
  type LspDocumentSymbol,
  type LspRange,
  type LspRelatedLocation,
  type LspSymbolKind,
  type LspWorkspaceSymbol,
} from 'dsh-lsp'
import { malformed, toRange } from './translate.ts'

/** Deeper outline levels than this are dropped: a server's nesting must not become our recursion depth. */
const MAX_OUTLINE_DEPTH = 64

const FILE_START: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }

/** A `Diagnostic[]` (pushed or pulled) → the seam's diagnostics. A missing severity is an error, as editors read it. */
export function toDiagnostics(payload: unknown): LspDiagnostic[] {
  if (!Array.isArray(payload)) throw malformed('diagnostics were not a list')
  return payload.map((item, index) => {
    if (!isRecord(item)) throw malformed(`diagnostic ${index} is not an object`)
    const range = toRange(item.range)
    if (!range) throw malformed(`diagnostic ${index} has no valid range`)
    const message = messageText(item.message)
    if (message === undefined) throw malformed(`diagnostic ${index} has no message`)
    const severity = item.severity === undefined ? 'error' : LSP_DIAGNOSTIC_SEVERITIES[(item.severity as number) - 1]
    if (!severity || !Number.isInteger(item.severity ?? 1)) throw malformed(`diagnostic ${index} has severity ${JSON.stringify(item.severity)}`)
    const code = typeof item.code === 'string' || (typeof item.code === 'number' && Number.isFinite(item.code)) ? { code: item.code } : {}
    const source = typeof item.source === 'string' && item.source ? { source: item.source } : {}
    return { range, severity, ...code, ...source, message, related: relatedOf(item.relatedInformation, index) }
  })
}

/** A pulled document report: `{ kind: 'full', items }`. We never send a previous result id, so `unchanged` cannot be the answer. */
export function toPulledDiagnostics(payload: unknown): LspDiagnostic[] {
  if (!isRecord(payload)) throw malformed('the diagnostic report was not an object')
  if (payload.kind !== 'full') throw malformed(`the diagnostic report's kind was ${JSON.stringify(payload.kind)}, not "full"`)
  return toDiagnostics(payload.items)
}

function messageText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  // LSP 3.18 allows MarkupContent.
  if (isRecord(value) && typeof value.value === 'string') return value.value
  return undefined
}

function relatedOf(value: unknown, index: number): LspRelatedLocation[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw malformed(`diagnostic ${index}'s relatedInformation is not a list`)
  return value.map((entry, at) => {
    const location = isRecord(entry) ? entry.location : undefined
    const range = isRecord(location) ? toRange(location.range) : undefined
    const message = isRecord(entry) ? messageText(entry.message) : undefined
    if (!isRecord(location) || typeof location.uri !== 'string' || !range || message === undefined) {
      throw malformed(`diagnostic ${index}'s related information ${at} is not a location with a message`)
    }
    return { uri: location.uri, range, message }
  })
}

/** SymbolKind 1–26; the client advertises exactly that set, so anything else is the server's fault. */
export function symbolKind(value: unknown, what: string): LspSymbolKind {
  const kind = typeof value === 'number' && Number.isInteger(value) ? LSP_SYMBOL_KINDS[value - 1] : undefined
  if (!kind) throw malformed(`${what} has symbol kind ${JSON.stringify(value)}`)
  return kind
}

export function symbolName(value: unknown, what: string): string {
  if (typeof value !== 'string') throw malformed(`${what} has no name`)
  return value
}

/**
 * `DocumentSymbol[]` (hierarchical) or `SymbolInformation[]` (flat, each its own range) → an
 * outline. Null is an empty outline.
 */
export function toDocumentSymbols(payload: unknown): LspDocumentSymbol[] {
  if (payload === undefined) throw malformed('the document symbol result was missing')
  if (payload === null) return []
  if (!Array.isArray(payload)) throw malformed('the document symbol result was not a list')
  return payload.map((item, index) => {
    if (isRecord(item) && isRecord(item.location)) {
      const range = toRange(item.location.range)
      if (!range) throw malformed(`symbol ${index} has no valid location`)
      const what = `symbol ${index}`
      return { name: symbolName(item.name, what), kind: symbolKind(item.kind, what), range, selectionRange: range, children: [] }
    }
    return outlineEntry(item, `symbol ${index}`, 1)
  })
}

function outlineEntry(item: unknown, what: string, depth: number): LspDocumentSymbol {
  if (!isRecord(item)) throw malformed(`${what} is not an object`)
  const range = toRange(item.range)
  const selectionRange = toRange(item.selectionRange)
  if (!range || !selectionRange) throw malformed(`${what} has no valid range and selection range`)
  if (item.children !== undefined && item.children !== null && !Array.isArray(item.children)) throw malformed(`${what}'s children are not a list`)
  const children = depth >= MAX_OUTLINE_DEPTH || !Array.isArray(item.children) ? [] : item.children.map((child: unknown, index) => outlineEntry(child, `${what}.${index}`, depth + 1))
  const detail = typeof item.detail === 'string' && item.detail ? { detail: item.detail } : {}
  return { name: symbolName(item.name, what), ...detail, kind: symbolKind(item.kind, what), range, selectionRange, children }
}

/** `SymbolInformation[]` or `WorkspaceSymbol[]` (whose location may name the file only) → matches. */
export function toWorkspaceSymbols(payload: unknown): LspWorkspaceSymbol[] {
  if (payload === undefined) throw malformed('the workspace symbol result was missing')
  if (payload === null) return []
  if (!Array.isArray(payload)) throw malformed('the workspace symbol result was not a list')
  return payload.map((item, index) => {
    const what = `workspace symbol ${index}`
    if (!isRecord(item) || !isRecord(item.location) || typeof item.location.uri !== 'string') throw malformed(`${what} has no location`)
    const range = item.location.range === undefined ? FILE_START : toRange(item.location.range)
    if (!range) throw malformed(`${what} has an invalid range`)
    const container = typeof item.containerName === 'string' && item.containerName ? { containerName: item.containerName } : {}
    return { name: symbolName(item.name, what), kind: symbolKind(item.kind, what), uri: item.location.uri, range, ...container }
  })
}
