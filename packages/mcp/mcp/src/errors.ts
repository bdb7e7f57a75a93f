import { RpcPeerError } from 'dsh-core'

export const McpErrorCode = {
  /** Another live dsh-mcp row of this app already uses the server name. */
  MCP_SERVER_NAME_TAKEN: 'MCP_SERVER_NAME_TAKEN',
  /** A `required` server did not connect and list its tools at startup (its first attempt, nor a retry beginning within `startupTimeoutMs`); the boot fails. */
  MCP_STARTUP_FAILED: 'MCP_STARTUP_FAILED',
  /** A connection attempt failed: the process did not start, `initialize` failed, HTTP was refused; or a token refresh the authorization server failed (unreachable, a 5xx). */
  MCP_CONNECT_FAILED: 'MCP_CONNECT_FAILED',
  /**
   * The server refused both protocol revisions the row allows (`protocol`): `server/discover` and
   * `initialize`, or the pinned one. The message says what it answered; no reconnection follows.
   */
  MCP_PROTOCOL_UNSUPPORTED: 'MCP_PROTOCOL_UNSUPPORTED',
  /** A credential named by `bearerTokenEnvVar` or `envHeaders` is not set. */
  MCP_CREDENTIAL_MISSING: 'MCP_CREDENTIAL_MISSING',
  /** The server answered HTTP 401 without an OAuth (Bearer) challenge to a row that may use OAuth: it wants another credential (`bearerTokenEnvVar`, `headers`, `envHeaders`), not a login. */
  MCP_CREDENTIAL_REJECTED: 'MCP_CREDENTIAL_REJECTED',
  /** The server wants an OAuth login (`dsh mcp login <server>`); calls fail at once until one is stored. */
  MCP_AUTH_REQUIRED: 'MCP_AUTH_REQUIRED',
  /** A login did not complete: the callback's state did not match, the user or the server refused, it timed out. */
  MCP_AUTH_FAILED: 'MCP_AUTH_FAILED',
  /**
   * `dsh mcp login` against a server that offers no OAuth login: it answered the unauthenticated
   * request HTTP 401 without a Bearer challenge and publishes no protected-resource metadata (it
   * wants a credential of another kind, given in the row: `bearerTokenEnvVar`, `headers`,
   * `envHeaders`). Nothing was registered or stored.
   */
  MCP_LOGIN_UNSUPPORTED: 'MCP_LOGIN_UNSUPPORTED',
  /** The OAuth token store stayed locked by another process past the wait, or this process lost its lock (it froze past the stale time); nothing was written. */
  MCP_TOKEN_STORE_LOCKED: 'MCP_TOKEN_STORE_LOCKED',
  /** The OAuth token store (`$DSH_HOME/mcp-credentials.json`) cannot be read: not a regular file, over 4 MiB (`MAX_TOKEN_STORE_BYTES`), or not JSON. */
  MCP_TOKEN_STORE_INVALID: 'MCP_TOKEN_STORE_INVALID',
  /** The row names a `${VAR}` that is not set (or, in an `mcpConfig:` file, a field dsh cannot use): the server is not started; its status row says why. */
  MCP_SERVER_UNUSABLE: 'MCP_SERVER_UNUSABLE',
  /** A Claude Code `.mcp.json` or Codex `config.toml` (`mcpConfig:`, `dsh mcp import`) cannot be read (missing, not a regular file, over the size limit), is not valid JSON or TOML, or has no server table. */
  MCP_CONFIG_FILE_INVALID: 'MCP_CONFIG_FILE_INVALID',
  /** An `mcpConfig:` row's `servers` allow-list names a server its file does not have: a configuration error (nothing is started); fix the name or the file. */
  MCP_SERVER_UNKNOWN: 'MCP_SERVER_UNKNOWN',
  /** The server is not connected (reconnecting, gave up, stopped); calls fail at once. */
  MCP_UNAVAILABLE: 'MCP_UNAVAILABLE',
  /** The connection died while the call was waiting for its answer. */
  MCP_CONNECTION_LOST: 'MCP_CONNECTION_LOST',
  /** No answer within `startupTimeoutMs` (connect, a tools/list page; skills/list: `skillsListTimeoutMs`, by default the same) or, for a skill file read, `toolCallTimeoutMs` (a tool call's is TOOL_TIMEOUT). */
  MCP_TIMEOUT: 'MCP_TIMEOUT',
  /** The server answered the call with `isError: true`; the message carries its text. */
  MCP_TOOL_ERROR: 'MCP_TOOL_ERROR',
  /** The tool declares `execution.taskSupport: "required"`, which the bridge does not speak. */
  MCP_TASK_REQUIRED: 'MCP_TASK_REQUIRED',
  /** SEP-2640: a skill file's length differs from the `size` its skill entry lists; the file is not used. */
  MCP_SKILL_SIZE_MISMATCH: 'MCP_SKILL_SIZE_MISMATCH',
  /** SEP-2640: a skill file's SHA-256 differs from the `digest` its skill entry lists; the file is not used. */
  MCP_SKILL_DIGEST_MISMATCH: 'MCP_SKILL_DIGEST_MISMATCH',
  /** SEP-2640: a SKILL.md's frontmatter differs from (or cannot be read as) its skill entry's `frontmatter`; the skill is not loaded. */
  MCP_SKILL_FRONTMATTER_MISMATCH: 'MCP_SKILL_FRONTMATTER_MISMATCH',
  /** SEP-2640: a read of a skill file its skill entry does not list (or of a skill the server does not list): nothing is requested. */
  MCP_SKILL_FILE_UNLISTED: 'MCP_SKILL_FILE_UNLISTED',
  /** The server answered with a JSON-RPC error (`rpcCode` keeps its code) or an HTTP error status (`httpStatus`). */
  MCP_SERVER_ERROR: 'MCP_SERVER_ERROR',
  /** The server sent something MCP does not allow (a bad tools/list page, one name twice, a result that is not an object, a message over maxMessageBytes). */
  MCP_MALFORMED_RESPONSE: 'MCP_MALFORMED_RESPONSE',
  /** A tool of this server would take a name another plugin already holds; the server publishes no tools. */
  MCP_NAME_CONFLICT: 'MCP_NAME_CONFLICT',
  /**
   * A server's question to the user (elicitation) was declined without anyone seeing it: no
   * questioner (a non-interactive host), it failed, or the call ended. The server hears `decline`;
   * the log line carries this code.
   */
  MCP_QUESTION_DECLINED: 'MCP_QUESTION_DECLINED',
  /** The row is being unloaded. */
  MCP_DISPOSED: 'MCP_DISPOSED',
  /**
   * The tool's server is configured but turned off (a Codex `enabled = false`; with `dsh call` and
   * `dsh serve`, a `disabled: true` row, or its group, too): it is never started. The message names the file and how to turn it on.
   */
  MCP_SERVER_DISABLED: 'MCP_SERVER_DISABLED',
  /** The server comes from a workspace file (`relativeTo: workspace`) of a workspace that is not trusted; it was not started (`dsh trust <dir>`). */
  MCP_UNTRUSTED: 'MCP_UNTRUSTED',
} as const
export type McpErrorCode = (typeof McpErrorCode)[keyof typeof McpErrorCode]

/**
 * Every failure of the MCP bridge a caller can see. Route on `code`. For `MCP_SERVER_ERROR`,
 * `rpcCode` is the JSON-RPC error code the server sent, or `httpStatus` the HTTP status it answered.
 */
export class McpError extends RpcPeerError<McpErrorCode> {
  readonly httpStatus: number | undefined

  constructor(message: string, code: McpErrorCode, options?: { cause?: unknown; rpcCode?: number; httpStatus?: number }) {
    super(message, code, options)
    this.httpStatus = options?.httpStatus
  }
}
