import { RpcPeerError } from 'dsh-core'

export const LspErrorCode = {
  /** A provider registration is malformed (blank id, bad extension, blank language id, …). */
  LSP_INVALID_PROVIDER: 'LSP_INVALID_PROVIDER',
  /** The provider id or one of its extensions is already registered. */
  LSP_CONFLICT: 'LSP_CONFLICT',
  /** No provider serves the file's extension. */
  LSP_UNAVAILABLE: 'LSP_UNAVAILABLE',
  /** The server runs the workspace's own code and the workspace is not trusted (`dsh trust <dir>`). */
  LSP_UNTRUSTED: 'LSP_UNTRUSTED',
  /** The provider or server instance was disposed while the query was pending. */
  LSP_DISPOSED: 'LSP_DISPOSED',
  /** The server does not offer the operation, or cannot open documents transiently. */
  LSP_UNSUPPORTED_OPERATION: 'LSP_UNSUPPORTED_OPERATION',
  /** The server answered with a payload that is not what LSP specifies. */
  LSP_MALFORMED_RESPONSE: 'LSP_MALFORMED_RESPONSE',
  /** The tool was called without a session workspace. */
  LSP_WORKSPACE_REQUIRED: 'LSP_WORKSPACE_REQUIRED',
  /** The tool was given a `symbol` that is not on the named line or near it. */
  LSP_SYMBOL_NOT_FOUND: 'LSP_SYMBOL_NOT_FOUND',
  /** The workspace root is missing or not a directory. */
  LSP_WORKSPACE_INVALID: 'LSP_WORKSPACE_INVALID',
  /** The source file is missing, not a regular UTF-8 text file, or over the byte cap. */
  LSP_SOURCE_INVALID: 'LSP_SOURCE_INVALID',
  /** The source file resolves (by `..`, an absolute path or a symlink) outside the workspace. */
  LSP_SOURCE_OUTSIDE_WORKSPACE: 'LSP_SOURCE_OUTSIDE_WORKSPACE',
  /** The server answered with a JSON-RPC error; `rpcCode` keeps its code. */
  LSP_SERVER_ERROR: 'LSP_SERVER_ERROR',
  /** The server process exited or its pipe broke; the message carries the stderr tail. */
  LSP_SERVER_EXITED: 'LSP_SERVER_EXITED',
  /** The server's process lives but it logged a fatal error (see `fatalLogPatterns`: its backend died); it is replaced. */
  LSP_SERVER_FAILED: 'LSP_SERVER_FAILED',
  /** The server wrote bytes that are not valid LSP framing or JSON. */
  LSP_PROTOCOL_ERROR: 'LSP_PROTOCOL_ERROR',
  /** The server announced a message larger than the provider accepts; it is refused before its body is read. */
  LSP_MESSAGE_TOO_LARGE: 'LSP_MESSAGE_TOO_LARGE',
  /** The server could not be started, or did not answer `initialize` in time. */
  LSP_SERVER_START_FAILED: 'LSP_SERVER_START_FAILED',
  /** The server crashed too often recently; it is not restarted until its backoff ends. */
  LSP_SERVER_CRASHED: 'LSP_SERVER_CRASHED',
  /** The server insists on a position encoding other than UTF-16. */
  LSP_ENCODING_UNSUPPORTED: 'LSP_ENCODING_UNSUPPORTED',
  /** Every server slot is busy with a query (see `maxServers`). */
  LSP_CAPACITY: 'LSP_CAPACITY',
  /** The server did not answer within the provider's request deadline. */
  LSP_TIMEOUT: 'LSP_TIMEOUT',
  /** The query was cancelled by its caller. */
  LSP_ABORTED: 'LSP_ABORTED',
  /** A request is malformed (a relative path for `fileChanged` outside a session, a blank symbol query, a position past the end of the file). */
  LSP_INVALID_REQUEST: 'LSP_INVALID_REQUEST',
  /** A provider failed with an error that carries no code of its own (listed among a workspace query's unanswered providers). */
  LSP_PROVIDER_FAILED: 'LSP_PROVIDER_FAILED',
  /** The server says the symbol at the position cannot be renamed (prepareRename refused, or rename gave no edit), or refuses the new name (rename answered an error). */
  LSP_RENAME_REFUSED: 'LSP_RENAME_REFUSED',
  /** A file of the rename changed since the edit was computed (or since the preview), or the server's view of it is stale; nothing was written. */
  LSP_RENAME_CONFLICT: 'LSP_RENAME_CONFLICT',
  /** The rename's edit reaches outside the workspace; refused whole. */
  LSP_RENAME_OUTSIDE_WORKSPACE: 'LSP_RENAME_OUTSIDE_WORKSPACE',
  /** The rename's edit creates, renames or deletes files, which the configuration does not allow. */
  LSP_RENAME_FILE_OPERATION: 'LSP_RENAME_FILE_OPERATION',
  /** The server was still indexing when it computed the edit: applying it could miss uses. */
  LSP_RENAME_INCOMPLETE: 'LSP_RENAME_INCOMPLETE',
} as const
export type LspErrorCode = (typeof LspErrorCode)[keyof typeof LspErrorCode]

/** `rpcCode` is set for `LSP_SERVER_ERROR`: the JSON-RPC error code the server sent. */
export class LspError extends RpcPeerError<LspErrorCode> {
  /** This failure said another way (a note added to it): the same code and `rpcCode`, this error as the cause. */
  reworded(message: string): LspError {
    return new LspError(message, this.code, { cause: this, ...(this.rpcCode === undefined ? {} : { rpcCode: this.rpcCode }) })
  }
}
