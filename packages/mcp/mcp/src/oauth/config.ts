import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'

/** The default of `oauth.tokenTimeoutMs`. */
export const DEFAULT_TOKEN_TIMEOUT_MS = 30_000

/**
 * `oauth:` on a remote row. Every field is optional: an empty object means "this server uses OAuth,
 * discover the rest" (protected-resource and authorization-server metadata, dynamic client
 * registration). Without the key, OAuth is still used once the server answers 401 with a
 * `WWW-Authenticate` challenge, or when a login for the server's URL is stored; `oauth: false` turns
 * that off.
 */
export const OAuthConfig = z.strictObject({
  /** A pre-registered client; without it the client registers itself (DCR) or uses `clientMetadataUrl`. */
  clientId: z.string().min(1).optional(),
  /** The variable holding the pre-registered client's secret, read through ctx.credentials (confidential clients). */
  clientSecretEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must look like an environment variable name').optional(),
  /** Scopes to ask for; default: what the server's challenge or metadata asks for. */
  scopes: z.array(z.string().min(1)).optional(),
  /** RFC 8707 resource indicator; default: the one the server's metadata names. */
  resource: z.url().optional(),
  /** Fixed loopback port for the login's redirect (some servers register exact redirect URIs); default any free port. */
  callbackPort: z.number().int().min(1).max(65535).optional(),
  /** An https URL of a client ID metadata document, used where the authorization server supports them. */
  clientMetadataUrl: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional(),
  /**
   * Deadline of one token refresh (metadata and the token request), which holds the token store's
   * lock: past it the refresh gives up (`MCP_TIMEOUT`) and the lock is released. Default 30000.
   */
  tokenTimeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).optional(),
})
export type OAuthConfig = z.infer<typeof OAuthConfig>
