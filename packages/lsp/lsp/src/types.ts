import type { Lifetime } from 'dsh-core'
import type { CallProofs } from './call-proofs.ts'
import type {
  LspCallHierarchyResult,
  LspDiagnosticsResult,
  LspProviderCallHierarchyRequest,
  LspProviderRenameRequest,
  LspRenameResult,
  LspDocumentSymbolsResult,
  LspFileChange,
  LspProviderDiagnosticsRequest,
  LspProviderDocumentSymbolsRequest,
  LspWorkspaceSymbolsRequest,
  LspWorkspaceSymbolsResult,
} from './capabilities.ts'

/** The closed vocabulary. Adding an operation must break every exhaustive switch on purpose. */
export const LSP_OPERATIONS = ['goToDefinition', 'findReferences', 'goToImplementation', 'hover'] as const
export type LspOperation = (typeof LSP_OPERATIONS)[number]

/** Zero-based line and UTF-16 code-unit column, as LSP speaks them. */
export interface LspPosition {
  readonly line: number
  readonly character: number
}

/** Half-open. */
export interface LspRange {
  readonly start: LspPosition
  readonly end: LspPosition
}

/** Every field is required: there is no defaulting step between the caller and the provider. */
export interface LspQueryRequest {
  readonly operation: LspOperation
  /** Relative to `workspaceRoot`, or absolute. */
  readonly filePath: string
  readonly position: LspPosition
  /** The calling session's workspace. */
  readonly workspaceRoot: string
  /**
   * The call's proofs (its canonical workspace, the files proven inside it), for a caller that
   * proves files of its own in the same call (the tool's line text): the provider proves through
   * them, so each is made once. Made for `workspaceRoot`; without it the provider proves alone.
   */
  readonly proofs?: CallProofs
}

/** What a provider receives: the request plus the language id of the route that selected it. */
export interface LspProviderQuery extends LspQueryRequest {
  readonly languageId: string
}

export interface LspLocation {
  /** The server's URI, verbatim (it may not be a `file:` URI). */
  readonly uri: string
  readonly range: LspRange
}

export interface LspHover {
  readonly contents: string
  readonly range?: LspRange
}

/**
 * `complete` is false when the provider answered before the server said it had finished indexing
 * (its bounded wait ran out): the answer may be missing cross-file results.
 */
export type LspQueryResult =
  | {
      readonly kind: 'locations'
      readonly locations: readonly LspLocation[]
      /** The provider's canonical workspace URI; relativise locations against it, not the request path. */
      readonly resolvedWorkspaceUri: string
      readonly complete: boolean
    }
  | { readonly kind: 'hover'; readonly hover: LspHover | null; readonly complete: boolean }

export interface LspProvider {
  readonly id: string
  /** Extension (`.ts`, or `ts`; case-insensitive) → LSP language id. Read once at registration. */
  readonly extensionToLanguage: Readonly<Record<string, string>>
  /**
   * File name → LSP language id, for files known by name (`Dockerfile`, `.bashrc`), or a name and
   * `.*` for the name followed by any suffix (`Dockerfile.*` serves `Dockerfile.prod`).
   * Case-insensitive; a name route wins over an extension route. Read once at registration.
   */
  readonly filenameToLanguage?: Readonly<Record<string, string>>
  /** Must include declarations in `findReferences` itself. Rejections carry an `LspError` code. */
  query(request: LspProviderQuery, signal?: AbortSignal): Promise<LspQueryResult>
  /**
   * `query` bound by the caller's `Lifetime` itself (the same object the caller holds), when the
   * caller gave one: no `AbortSignal` is made for the call unless the provider asks the lifetime
   * for it. Optional; without it a caller's lifetime reaches `query` as `lifetime.signal`.
   */
  queryWithin?(request: LspProviderQuery, lifetime: Lifetime): Promise<LspQueryResult>
  /** Capability `diagnostics`: the problems in one file as it is on disk now. */
  diagnostics?(request: LspProviderDiagnosticsRequest, signal?: AbortSignal): Promise<LspDiagnosticsResult>
  /**
   * `diagnostics` bound by the caller's `Lifetime` itself, as `queryWithin` is `query`'s (a writer
   * asks after every edit). Optional; offered only beside `diagnostics`, which without it gets the
   * lifetime's signal.
   */
  diagnosticsWithin?(request: LspProviderDiagnosticsRequest, lifetime: Lifetime): Promise<LspDiagnosticsResult>
  /** Capability `documentSymbols`: one file's outline. */
  documentSymbols?(request: LspProviderDocumentSymbolsRequest, signal?: AbortSignal): Promise<LspDocumentSymbolsResult>
  /** `documentSymbols` bound by the caller's `Lifetime` itself, as `diagnosticsWithin` is `diagnostics`'s. Optional, beside `documentSymbols`. */
  documentSymbolsWithin?(request: LspProviderDocumentSymbolsRequest, lifetime: Lifetime): Promise<LspDocumentSymbolsResult>
  /** Capability `workspaceSymbols`: asked for every workspace query, whatever the files; answer empty when the workspace has nothing of yours. */
  workspaceSymbols?(request: LspWorkspaceSymbolsRequest, signal?: AbortSignal): Promise<LspWorkspaceSymbolsResult>
  /** Capability `rename`: the edits renaming the symbol at the position takes (prepareRename first; applied by no provider). */
  rename?(request: LspProviderRenameRequest, signal?: AbortSignal): Promise<LspRenameResult>
  /** `rename` bound by the caller's `Lifetime` itself. Optional, beside `rename`. */
  renameWithin?(request: LspProviderRenameRequest, lifetime: Lifetime): Promise<LspRenameResult>
  /** Capability `callHierarchy`: the calls into or out of the function at the position, to the request's depth and count. */
  callHierarchy?(request: LspProviderCallHierarchyRequest, signal?: AbortSignal): Promise<LspCallHierarchyResult>
  /** `callHierarchy` bound by the caller's `Lifetime` itself. Optional, beside `callHierarchy`. */
  callHierarchyWithin?(request: LspProviderCallHierarchyRequest, lifetime: Lifetime): Promise<LspCallHierarchyResult>
  /**
   * A writer changed a file (any file, any extension): make the servers see it before the next
   * request that starts after this call returns. Must not throw; failures are the provider's to log.
   */
  fileChanged?(change: LspFileChange): void
}
