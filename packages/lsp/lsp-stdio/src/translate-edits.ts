import { isRecord } from 'dsh-core'
import type { LspCallHierarchyItem, LspFileEdits, LspFileOperation, LspRange, LspTextEdit } from 'dsh-lsp'
import { malformed, toRange } from './translate.ts'
import { symbolKind, symbolName } from './translate-capabilities.ts'

/** A WorkspaceEdit as the seam carries it: text edits per file, and the file operations apart. */
export interface TranslatedEdit {
  readonly files: LspFileEdits[]
  readonly fileOperations: LspFileOperation[]
}

/**
 * `WorkspaceEdit` → edits per file. `documentChanges` (TextDocumentEdit and resource operations,
 * in order) wins over `changes` when a server sends both, as the protocol says. Edits of one file
 * named twice are merged in order; annotated edits count as plain ones.
 */
export function toWorkspaceEdit(payload: unknown): TranslatedEdit {
  if (!isRecord(payload)) throw malformed('the rename result was not a WorkspaceEdit')
  const byUri = new Map<string, LspTextEdit[]>()
  const fileOperations: LspFileOperation[] = []
  const add = (uri: unknown, edits: unknown, what: string) => {
    if (typeof uri !== 'string') throw malformed(`${what} names no document`)
    if (!Array.isArray(edits)) throw malformed(`${what}'s edits are not a list`)
    const list = byUri.get(uri) ?? []
    byUri.set(uri, list)
    edits.forEach((edit, index) => list.push(toTextEdit(edit, `${what} edit ${index}`)))
  }
  if (Array.isArray(payload.documentChanges)) {
    payload.documentChanges.forEach((change, index) => {
      const what = `document change ${index}`
      if (!isRecord(change)) throw malformed(`${what} is not an object`)
      if (change.kind === undefined) {
        if (!isRecord(change.textDocument)) throw malformed(`${what} has no textDocument`)
        add(change.textDocument.uri, change.edits, what)
      } else fileOperations.push(toFileOperation(change, what))
    })
  } else if (payload.documentChanges !== undefined && payload.documentChanges !== null) {
    throw malformed('the rename result\'s documentChanges are not a list')
  } else if (isRecord(payload.changes)) {
    for (const [uri, edits] of Object.entries(payload.changes)) add(uri, edits, `the edit of ${uri}`)
  } else if (payload.changes !== undefined && payload.changes !== null) {
    throw malformed('the rename result\'s changes are not a map of documents')
  }
  return { files: [...byUri].map(([uri, edits]) => ({ uri, edits })), fileOperations }
}

function toTextEdit(value: unknown, what: string): LspTextEdit {
  const range = isRecord(value) ? toRange(value.range) : undefined
  if (!isRecord(value) || !range || typeof value.newText !== 'string') throw malformed(`${what} is not a TextEdit`)
  return { range, newText: value.newText }
}

function toFileOperation(change: Record<string, unknown>, what: string): LspFileOperation {
  switch (change.kind) {
    case 'create':
    case 'delete':
      if (typeof change.uri !== 'string') throw malformed(`${what} (${change.kind}) names no file`)
      return { kind: change.kind, uri: change.uri }
    case 'rename':
      if (typeof change.oldUri !== 'string' || typeof change.newUri !== 'string') throw malformed(`${what} (rename) does not name both files`)
      return { kind: 'rename', oldUri: change.oldUri, newUri: change.newUri }
    default:
      throw malformed(`${what} has kind ${JSON.stringify(change.kind)}`)
  }
}

/**
 * What `textDocument/prepareRename` answered: the range of the name (`Range`, or `{ range,
 * placeholder }`), `default` when the server leaves the name to us (`{ defaultBehavior: true }`),
 * or `refused` (null, or `defaultBehavior: false`).
 */
export function toPrepareRename(payload: unknown): { range: LspRange } | 'default' | 'refused' {
  if (payload === null) return 'refused'
  if (!isRecord(payload)) throw malformed('the prepareRename result was not an object')
  if (typeof payload.defaultBehavior === 'boolean') return payload.defaultBehavior ? 'default' : 'refused'
  const range = toRange(payload.range) ?? toRange(payload)
  if (!range) throw malformed('the prepareRename result has no valid range')
  return { range }
}

/** A `CallHierarchyItem` as the seam carries it (the server's own object is kept apart, for the next request). */
export function toCallHierarchyItem(value: unknown, what: string): LspCallHierarchyItem {
  if (!isRecord(value)) throw malformed(`${what} is not an object`)
  const range = toRange(value.range)
  const selectionRange = toRange(value.selectionRange)
  if (typeof value.uri !== 'string' || !range || !selectionRange) throw malformed(`${what} has no uri, range and selection range`)
  const detail = typeof value.detail === 'string' && value.detail ? { detail: value.detail } : {}
  return { name: symbolName(value.name, what), kind: symbolKind(value.kind, what), ...detail, uri: value.uri, range, selectionRange }
}

/** `CallHierarchyItem[] | null` → the raw items (null: nothing callable there). */
export function toCallHierarchyItems(payload: unknown): unknown[] {
  if (payload === undefined) throw malformed('the prepareCallHierarchy result was missing')
  if (payload === null) return []
  if (!Array.isArray(payload)) throw malformed('the prepareCallHierarchy result was not a list')
  return payload
}

/** `CallHierarchyIncomingCall[]` (`from`) or `CallHierarchyOutgoingCall[]` (`to`) → the raw item and the call sites. */
export function toCalls(payload: unknown, direction: 'incoming' | 'outgoing'): { raw: unknown; fromRanges: LspRange[] }[] {
  if (payload === undefined) throw malformed(`the ${direction} calls result was missing`)
  if (payload === null) return []
  if (!Array.isArray(payload)) throw malformed(`the ${direction} calls result was not a list`)
  return payload.map((call, index) => {
    const what = `${direction} call ${index}`
    if (!isRecord(call) || !Array.isArray(call.fromRanges)) throw malformed(`${what} has no fromRanges`)
    const fromRanges = call.fromRanges.map((range) => {
      const checked = toRange(range)
      if (!checked) throw malformed(`${what} has an invalid range`)
      return checked
    })
    return { raw: direction === 'incoming' ? call.from : call.to, fromRanges }
  })
}
