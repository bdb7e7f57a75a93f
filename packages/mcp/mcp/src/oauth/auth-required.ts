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
