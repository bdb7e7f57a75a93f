import { McpError } from '../errors.ts'

/** Why a server wants a login, and the command that logs in: the one form the supervisor's `needs_auth` keeps. */
export interface LoginNeeded {
  readonly why: string
  readonly loginCommand: string
}

/** What a caller, the log and status are told: `MCP server x needs a login (why); run: dsh mcp login x`. */
export function needsLoginMessage(serverName: string, login: LoginNeeded): string {
  return `MCP server ${serverName} needs a login (${login.why}); run: ${login.loginCommand}`
}

/**
 * The server wants a login that a background connection cannot do (no stored tokens, or a refresh
 * token that stopped working). It carries the command that logs in, never a token.
 */
export class AuthRequiredError extends Error implements LoginNeeded {
  constructor(
    readonly serverName: string,
    readonly loginCommand: string,
    readonly why: string,
    /**
     * A step-up: the server wants this scope for one request (403 `insufficient_scope`), while the
     * connection serves every other; it is not lost.
     */
    readonly stepUpScope?: string,
  ) {
    super(needsLoginMessage(serverName, { why, loginCommand }))
  }
}

/** `dsh mcp login <server>`, with the file that defines the row when it is not the default composition. */
export function loginCommandFor(serverName: string, file: string | undefined): string {
  const quoted = file && (/^[\w./@:+-]+$/.test(file) ? file : `'${file.replace(/'/g, `'\\''`)}'`)
  return quoted ? `dsh mcp login ${serverName} --config ${quoted}` : `dsh mcp login ${serverName}`
}

/**
 * The server refused the credential the row sends (HTTP 401) and no login can change that: it did
 * not ask for OAuth (no Bearer challenge), or the row does not use OAuth. Another credential is
 * wanted, and asking again with the same one is refused the same way (supervisor.ts, unmendableBy).
 */
export function credentialRejected(why: string): McpError {
  return new McpError(`the server answered HTTP 401 ${why}; it wants another credential (bearerTokenEnvVar, headers, envHeaders)`, 'MCP_CREDENTIAL_REJECTED')
}
