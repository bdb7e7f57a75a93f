import { assertNever, isRecord } from 'dsh-core'
import { LspError, type LspHover, type LspLocation, type LspOperation, type LspPosition, type LspRange } from 'dsh-lsp'
import type { ServerCapabilities } from 'vscode-languageserver-protocol'

export function methodOf(operation: LspOperation): string {
  switch (operation) {
    case 'goToDefinition':
      return 'textDocument/definition'
    case 'findReferences':
      return 'textDocument/references'
    case 'goToImplementation':
      return 'textDocument/implementation'
    case 'hover':
      return 'textDocument/hover'
    default:
      return assertNever(operation, 'LSP operation')
  }
}

/** `true` or an options object means supported; `false` or absent does not. */
export function supportsOperation(capabilities: ServerCapabilities, operation: LspOperation): boolean {
  const provider = (() => {
    switch (operation) {
      case 'goToDefinition':
        return capabilities.definitionProvider
      case 'findReferences':
        return capabilities.referencesProvider
      case 'goToImplementation':
        return capabilities.implementationProvider
      case 'hover':
        return capabilities.hoverProvider
      default:
        return assertNever(operation, 'LSP operation')
    }
  })()
  return provider === true || (typeof provider === 'object' && provider !== null)
}

/** Transient didOpen/didClose needs sync kind Full/Incremental, or an explicit `openClose: true`. */
export function supportsTransientOpen(capabilities: ServerCapabilities): boolean {
  const sync = capabilities.textDocumentSync
  if (typeof sync === 'number') return sync === 1 || sync === 2
  return typeof sync === 'object' && sync !== null && sync.openClose === true
}

/** `didChange` with the whole text needs sync kind Full or Incremental (an object form's `change`). */
export function acceptsWholeChanges(capabilities: ServerCapabilities): boolean {
  const sync = capabilities.textDocumentSync
  const change = typeof sync === 'number' ? sync : typeof sync === 'object' && sync !== null ? sync.change : undefined
  return change === 1 || change === 2
}

/** Whether the server wants `didSave` (`textDocumentSync.save`), and with the document's text. */
export function wantsSave(capabilities: ServerCapabilities): { readonly includeText: boolean } | undefined {
  const sync = capabilities.textDocumentSync
  const save = typeof sync === 'object' && sync !== null ? sync.save : undefined
  if (save === true) return { includeText: false }
  if (typeof save === 'object' && save !== null) return { includeText: save.includeText === true }
  return undefined
}

/** We speak UTF-16 columns only; a server that insists on another encoding cannot be used. */
export function checkPositionEncoding(capabilities: ServerCapabilities): void {
  const encoding = capabilities.positionEncoding
  if (encoding !== undefined && encoding !== 'utf-16') {
    throw new LspError(`the language server chose unsupported position encoding "${String(encoding)}" (only utf-16 is supported)`, 'LSP_ENCODING_UNSUPPORTED')
  }
}

export const malformed = (message: string) => new LspError(`malformed language server response: ${message}`, 'LSP_MALFORMED_RESPONSE')

function toPosition(value: unknown): LspPosition | undefined {
  if (!isRecord(value)) return undefined
  const { line, character } = value
  const valid = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0
  return valid(line) && valid(character) ? { line, character } : undefined
}

export function toRange(value: unknown): LspRange | undefined {
  if (!isRecord(value)) return undefined
  const start = toPosition(value.start)
  const end = toPosition(value.end)
  return start && end ? { start, end } : undefined
}

/** Location | Location[] | LocationLink[] | null → locations; LocationLinks keep their target selection. */
export function toLocations(payload: unknown): LspLocation[] {
  if (payload === undefined) throw malformed('the navigation result was missing')
  if (payload === null) return []
  const items = Array.isArray(payload) ? payload : [payload]
  return items.map((item, index) => {
    if (!isRecord(item)) throw malformed(`location ${index} is a non-object`)
    if (typeof item.targetUri === 'string') {
      const range = toRange(item.targetSelectionRange)
      if (range) return { uri: item.targetUri, range }
    }
    if (typeof item.uri === 'string') {
      const range = toRange(item.range)
      if (range) return { uri: item.uri, range }
    }
    throw malformed(`location ${index} is neither a Location nor a LocationLink`)
  })
}

function markedString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (isRecord(value) && typeof value.language === 'string' && typeof value.value === 'string') {
    return `\`\`\`${value.language}\n${value.value}\n\`\`\``
  }
  return undefined
}

function hoverContents(contents: unknown): string {
  if (typeof contents === 'string') return contents
  if (Array.isArray(contents)) {
    return contents
      .map((member, index) => {
        const text = markedString(member)
        if (text === undefined) throw malformed(`hover contents item ${index} is not a MarkedString`)
        return text
      })
      .join('\n\n')
  }
  if (isRecord(contents) && (contents.kind === 'markdown' || contents.kind === 'plaintext')) {
    if (typeof contents.value !== 'string') throw malformed('hover MarkupContent value is not a string')
    return contents.value
  }
  const single = markedString(contents)
  if (single !== undefined) return single
  throw malformed('hover contents were not MarkupContent or MarkedString')
}

/** Hover | null → hover; empty contents count as no hover. A malformed range is an error, never dropped. */
export function toHover(payload: unknown): LspHover | null {
  if (payload === undefined) throw malformed('the hover result was missing')
  if (payload === null) return null
  if (!isRecord(payload)) throw malformed('the hover result was not an object')
  if (payload.contents === undefined || payload.contents === null) throw malformed('the hover result has no contents')
  // Servers pad markdown with blank lines (typescript-language-server starts with one).
  const contents = hoverContents(payload.contents).trim()
  if (contents === '') return null
  if (payload.range === undefined) return { contents }
  const range = toRange(payload.range)
  if (!range) throw malformed('the hover range is malformed')
  return { contents, range }
}
