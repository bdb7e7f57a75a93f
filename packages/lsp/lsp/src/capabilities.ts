import type { CallProofs } from './call-proofs.ts'
import type { LspPosition, LspRange } from './types.ts'

/**
 * What a provider may offer beyond the four navigation operations. Each is a closed
 * request/result pair of its own, offered by implementing the method of the same name on the
 * provider; a provider without it is never asked (the caller gets LSP_UNSUPPORTED_OPERATION).
 */
export const LSP_CAPABILITIES = ['diagnostics', 'documentSymbols', 'workspaceSymbols', 'rename', 'callHierarchy'] as const
export type LspCapability = (typeof LSP_CAPABILITIES)[number]

// ---------------------------------------------------------------------------------------------
// Diagnostics

/** Most severe first; LSP's DiagnosticSeverity 1–4 in order. */
export const LSP_DIAGNOSTIC_SEVERITIES = ['error', 'warning', 'information', 'hint'] as const
export type LspDiagnosticSeverity = (typeof LSP_DIAGNOSTIC_SEVERITIES)[number]

/** A place the server relates to a diagnostic (the other declaration of a duplicate, …). */
export interface LspRelatedLocation {
  /** The server's URI, verbatim. */
  readonly uri: string
  readonly range: LspRange
  readonly message: string
}

export interface LspDiagnostic {
  /** Zero-based, UTF-16 columns. */
  readonly range: LspRange
  readonly severity: LspDiagnosticSeverity
  /** The server's code for the problem (`2322`, `reportAssignmentType`), when it gives one. */
  readonly code?: string | number
  /** Who reported it (`ts`, `Pyright`), when the server says. */
  readonly source?: string
  readonly message: string
  readonly related: readonly LspRelatedLocation[]
}

/** The problems the server sees in one file as it is on disk now. */
export interface LspDiagnosticsRequest {
  /** Relative to `workspaceRoot`, or absolute. */
  readonly filePath: string
  readonly workspaceRoot: string
  /** The call's proofs, shared with the provider (see `LspQueryRequest.proofs`). */
  readonly proofs?: CallProofs
}

export interface LspProviderDiagnosticsRequest extends LspDiagnosticsRequest {
  readonly languageId: string
}

/**
 * `complete` is false when the provider could not be sure it has the server's whole answer for the
 * file's current text: the server was still indexing, or its diagnostics did not arrive (or kept
 * changing) within the provider's wait.
 */
export interface LspDiagnosticsResult {
  readonly kind: 'diagnostics'
  /** The file's canonical URI, as the server knows it. */
  readonly uri: string
  readonly resolvedWorkspaceUri: string
  readonly items: readonly LspDiagnostic[]
  readonly complete: boolean
}

// ---------------------------------------------------------------------------------------------
// Symbols

/** LSP's SymbolKind 1–26, as words, in order. */
export const LSP_SYMBOL_KINDS = [
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enumMember',
  'struct',
  'event',
  'operator',
  'typeParameter',
] as const
export type LspSymbolKind = (typeof LSP_SYMBOL_KINDS)[number]

/** One entry of a file's outline. */
export interface LspDocumentSymbol {
  readonly name: string
  /** What the server adds (a signature, a type), when it does. */
  readonly detail?: string
  readonly kind: LspSymbolKind
  /** The whole declaration, body included. */
  readonly range: LspRange
  /** The name itself: where a cursor for the `lsp` tool goes. */
  readonly selectionRange: LspRange
  readonly children: readonly LspDocumentSymbol[]
}

export interface LspDocumentSymbolsRequest {
  /** Relative to `workspaceRoot`, or absolute. */
  readonly filePath: string
  readonly workspaceRoot: string
}

export interface LspProviderDocumentSymbolsRequest extends LspDocumentSymbolsRequest {
  readonly languageId: string
}

export interface LspDocumentSymbolsResult {
  readonly kind: 'documentSymbols'
  readonly uri: string
  readonly resolvedWorkspaceUri: string
  /** Top-level symbols in source order, members nested. A server that only lists flat symbols gives no children. */
  readonly symbols: readonly LspDocumentSymbol[]
  readonly complete: boolean
}

/** One match of a workspace query. */
export interface LspWorkspaceSymbol {
  readonly name: string
  readonly kind: LspSymbolKind
  /** The server's URI, verbatim. */
  readonly uri: string
  /** The symbol's range; `{0:0–0:0}` when the server named the file only. */
  readonly range: LspRange
  /** The enclosing symbol's name (a class for a method), when the server says. */
  readonly containerName?: string
}

export interface LspWorkspaceSymbolsRequest {
  /** What the server matches names against (servers match fuzzily or by prefix; not blank). */
  readonly query: string
  readonly workspaceRoot: string
}

export interface LspWorkspaceSymbolsResult {
  readonly kind: 'workspaceSymbols'
  readonly resolvedWorkspaceUri: string
  readonly symbols: readonly LspWorkspaceSymbol[]
  readonly complete: boolean
  /**
   * Parts of the provider that were not asked or failed (a server per project root: the roots
   * past `maxServers`, or whose server failed), each named in `providerId` (`go (beta)`); the
   * answer is incomplete when there are any.
   */
  readonly unanswered?: readonly LspUnansweredProvider[]
  /**
   * Parts of the provider whose server gave exactly as many matches as it is known to give at most
   * (gopls and clangd stop at 100 without saying so): there may be more matches than listed.
   */
  readonly capped?: readonly LspCappedProvider[]
  /**
   * Why an empty answer may be empty though the workspace has matches (clangd without a
   * `compile_commands.json`: it knows only the files open), each a sentence for the model.
   */
  readonly notes?: readonly string[]
}

/** A server that answered a workspace query with its known most matches, so its list may be cut. */
export interface LspCappedProvider {
  readonly providerId: string
  /** The most matches that server gives (its `workspaceSymbolLimit`). */
  readonly limit: number
}

/** A provider that was asked a workspace query and failed; the others' answers still count. */
export interface LspUnansweredProvider {
  readonly providerId: string
  readonly code: string
  readonly message: string
}

/** What `ctx.lsp.workspaceSymbols` answers: every capable provider's matches, merged. */
export interface LspWorkspaceSymbolsAnswer {
  readonly kind: 'workspaceSymbols'
  /** The first answering provider's canonical workspace URI. */
  readonly resolvedWorkspaceUri: string
  /** Each provider's symbols in its own order, providers in registration order. */
  readonly symbols: readonly (LspWorkspaceSymbol & { readonly providerId: string })[]
  /** False when a provider answered incompletely or failed. */
  readonly complete: boolean
  readonly unanswered: readonly LspUnansweredProvider[]
  /** Providers (or their roots) whose list reached their server's known cap: more may match. */
  readonly capped: readonly LspCappedProvider[]
  /** The providers' notes on why their answer may be empty (`LspWorkspaceSymbolsResult.notes`). */
  readonly notes: readonly string[]
}

// ---------------------------------------------------------------------------------------------
// Rename

export interface LspRenameRequest {
  /** Relative to `workspaceRoot`, or absolute. */
  readonly filePath: string
  /** Zero-based, UTF-16: on the symbol to rename. */
  readonly position: LspPosition
  readonly newName: string
  readonly workspaceRoot: string
  /** The call's proofs, shared with the provider (see `LspQueryRequest.proofs`). */
  readonly proofs?: CallProofs
}

export interface LspProviderRenameRequest extends LspRenameRequest {
  readonly languageId: string
}

export interface LspTextEdit {
  /** Zero-based, UTF-16, in the file's text as the server computed the edit. */
  readonly range: LspRange
  readonly newText: string
}

/** The edits of one file, in the server's order (LSP forbids overlapping ones). */
export interface LspFileEdits {
  /** The server's URI, verbatim. */
  readonly uri: string
  readonly edits: readonly LspTextEdit[]
}

/** A resource operation of a WorkspaceEdit: creating, renaming or deleting a file. */
export type LspFileOperation =
  | { readonly kind: 'create'; readonly uri: string }
  | { readonly kind: 'rename'; readonly oldUri: string; readonly newUri: string }
  | { readonly kind: 'delete'; readonly uri: string }

/**
 * What renaming the symbol takes, as the server computed it: nothing is applied by the provider.
 * `complete` is false when the server was still indexing (files may be missing from the edit).
 */
export interface LspRenameResult {
  readonly kind: 'rename'
  readonly resolvedWorkspaceUri: string
  /** The text of the symbol renamed, as the server's prepareRename (or the edit at the position) gives it. */
  readonly oldName: string
  readonly files: readonly LspFileEdits[]
  readonly fileOperations: readonly LspFileOperation[]
  readonly complete: boolean
  /** Where the server was asked, when the provider moved the request's position (see `LspQueryResult`'s `askedAt`). */
  readonly askedAt?: LspPosition
}

// ---------------------------------------------------------------------------------------------
// Call hierarchy

export const LSP_CALL_DIRECTIONS = ['incoming', 'outgoing'] as const
export type LspCallDirection = (typeof LSP_CALL_DIRECTIONS)[number]

export interface LspCallHierarchyRequest {
  readonly filePath: string
  /** Zero-based, UTF-16: on the function or method. */
  readonly position: LspPosition
  readonly direction: LspCallDirection
  /** Levels of calls to follow (1 = the direct callers or callees). */
  readonly depth: number
  /** Calls listed in all, over every level; past it the answer says `truncated`. */
  readonly maxCalls: number
  readonly workspaceRoot: string
  /** The call's proofs, shared with the provider (see `LspQueryRequest.proofs`). */
  readonly proofs?: CallProofs
}

export interface LspProviderCallHierarchyRequest extends LspCallHierarchyRequest {
  readonly languageId: string
}

/** A function, method or constructor as the server names it. */
export interface LspCallHierarchyItem {
  readonly name: string
  readonly kind: LspSymbolKind
  readonly detail?: string
  /** The server's URI, verbatim. */
  readonly uri: string
  /** The whole declaration. */
  readonly range: LspRange
  /** The name itself. */
  readonly selectionRange: LspRange
}

/**
 * One call edge. Incoming: `item` calls its parent, at `fromRanges` in `item`'s file. Outgoing: the
 * parent calls `item`, at `fromRanges` in the parent's file. `calls` is the next level.
 */
export interface LspCall {
  readonly item: LspCallHierarchyItem
  readonly fromRanges: readonly LspRange[]
  readonly calls: readonly LspCall[]
}

export interface LspCallHierarchyResult {
  readonly kind: 'callHierarchy'
  readonly direction: LspCallDirection
  readonly resolvedWorkspaceUri: string
  /** What is at the position (usually one item), each with its calls. */
  readonly roots: readonly { readonly item: LspCallHierarchyItem; readonly calls: readonly LspCall[] }[]
  /** True when `maxCalls` stopped the walk. */
  readonly truncated: boolean
  readonly complete: boolean
  /** Why no calls may have been found though there are some (clangd without a `compile_commands.json`). */
  readonly notes?: readonly string[]
  /** Where the server was asked, when the provider moved the request's position (see `LspQueryResult`'s `askedAt`). */
  readonly askedAt?: LspPosition
}

// ---------------------------------------------------------------------------------------------
// File changes

/** What happened to a file, as `workspace/didChangeWatchedFiles` says it. */
export const LSP_FILE_CHANGE_KINDS = ['created', 'changed', 'deleted'] as const
export type LspFileChangeKind = (typeof LSP_FILE_CHANGE_KINDS)[number]

export interface LspFileChange {
  /** Absolute. */
  readonly path: string
  readonly kind: LspFileChangeKind
}
