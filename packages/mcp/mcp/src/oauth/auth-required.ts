import { McpError } from '../errors.ts'

/**
 * The server wants a login that a background connection cannot do (no stored tokens, or a refresh
 * token that stopped working). It carries the command that logs in, never a token.
 */
export class AuthRequiredError extends Error {
  constructor(
    readonly serverName: string,
    readonly loginCommand: string,
    why: string,
    /**
     * A step-up: the server wants this scope for one request (403 `insufficient_scope`), while the
     * connection serves every other; it is not lost.
     */
    readonly stepUpScope?: string,
  ) {
    super(`MCP server ${serverName} needs a login (${why}); run: ${loginCommand}`)
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
