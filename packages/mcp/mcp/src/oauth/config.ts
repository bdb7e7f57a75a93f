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
const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must look like an environment variable name')

/** Algorithms a `private_key_jwt` client assertion may be signed with (RFC 7518). */
export const SIGNING_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const

export const OAuthConfig = z
  .strictObject({
    /**
     * How tokens are obtained: `authorization_code` (default: a user logs in with `dsh mcp login`) or
     * `client_credentials` (machine to machine: no login, the client's own credentials at the token
     * endpoint — `clientSecretEnv` for client_secret_basic, or `privateKeyEnv` and `signingAlgorithm`
     * for private_key_jwt).
     */
    grant: z.enum(['authorization_code', 'client_credentials']).optional(),
    /** A pre-registered client; without it the client registers itself (DCR) or uses `clientMetadataUrl`. */
    clientId: z.string().min(1).optional(),
    /** The variable holding the pre-registered client's secret, read through ctx.credentials (confidential clients). */
    clientSecretEnv: variableName.optional(),
    /** client_credentials with private_key_jwt: the variable holding the client's private key (PEM), read through ctx.credentials. */
    privateKeyEnv: variableName.optional(),
    /** The algorithm of `privateKeyEnv`'s key, for the signed client assertion. */
    signingAlgorithm: z.enum(SIGNING_ALGORITHMS).optional(),
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
  .superRefine((oauth, context) => {
    const fail = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
    if (oauth.privateKeyEnv && !oauth.signingAlgorithm) fail('signingAlgorithm', 'privateKeyEnv needs the algorithm its key signs with')
    if (oauth.signingAlgorithm && !oauth.privateKeyEnv) fail('signingAlgorithm', 'only applies with privateKeyEnv')
    if (oauth.grant !== 'client_credentials') {
      if (oauth.privateKeyEnv) fail('privateKeyEnv', 'only applies with grant: client_credentials')
      return
    }
    if (!oauth.clientId) fail('clientId', 'grant: client_credentials needs the client it authenticates as')
    if (Boolean(oauth.clientSecretEnv) === Boolean(oauth.privateKeyEnv)) fail('grant', 'client_credentials needs exactly one of clientSecretEnv (client_secret_basic) or privateKeyEnv (private_key_jwt)')
    for (const field of ['callbackPort', 'clientMetadataUrl'] as const) if (oauth[field] !== undefined) fail(field, 'there is no login with grant: client_credentials')
  })
export type OAuthConfig = z.infer<typeof OAuthConfig>
