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
      /**
       * The position the server was asked at, present only when the provider moved the request's:
       * lsp-stdio keeps a character past the end of its line at the line's end, since servers read
       * it as a place on a later line. A caller tells its user (`askedAtNote`).
       */
      readonly askedAt?: LspPosition
    }
  | { readonly kind: 'hover'; readonly hover: LspHover | null; readonly complete: boolean; readonly askedAt?: LspPosition /* as for locations */ }

/**
 * What a file-routed provider call is bound by: the caller's `AbortSignal`, or its dsh-core
 * `Lifetime` itself (the tools' calls pass theirs), or nothing. A provider follows a `Lifetime`
 * without asking it for its `signal` where it can (`aborted`, `reason`, `child`, `race`): the
 * signal is made on first use, an `AbortController` and a listener per call. One that only
 * understands signals takes `bound instanceof Lifetime ? bound.signal : bound`.
 */
export type LspBound = AbortSignal | Lifetime

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
  /**
   * Must include declarations in `findReferences` itself. Rejections carry an `LspError` code.
   * `bound` is the caller's, as the same object (see `LspBound`).
   */
  query(request: LspProviderQuery, bound?: LspBound): Promise<LspQueryResult>
  /** Capability `diagnostics`: the problems in one file as it is on disk now (a writer asks after every edit). */
  diagnostics?(request: LspProviderDiagnosticsRequest, bound?: LspBound): Promise<LspDiagnosticsResult>
  /** Capability `documentSymbols`: one file's outline. */
  documentSymbols?(request: LspProviderDocumentSymbolsRequest, bound?: LspBound): Promise<LspDocumentSymbolsResult>
  /**
   * Capability `workspaceSymbols`: asked for every workspace query, whatever the files; answer empty
   * when the workspace has nothing of yours. `bound` is one lifetime every provider asked shares.
   */
  workspaceSymbols?(request: LspWorkspaceSymbolsRequest, bound?: LspBound): Promise<LspWorkspaceSymbolsResult>
  /** Capability `rename`: the edits renaming the symbol at the position takes (prepareRename first; applied by no provider). */
  rename?(request: LspProviderRenameRequest, bound?: LspBound): Promise<LspRenameResult>
  /** Capability `callHierarchy`: the calls into or out of the function at the position, to the request's depth and count. */
  callHierarchy?(request: LspProviderCallHierarchyRequest, bound?: LspBound): Promise<LspCallHierarchyResult>
  /**
   * A writer changed a file (any file, any extension): make the servers see it before the next
   * request that starts after this call returns. Must not throw; failures are the provider's to log.
   */
  fileChanged?(change: LspFileChange): void
}
