import { createHash, timingSafeEqual } from 'node:crypto'
import { bearerAuthChallengeResponse, getOAuthProtectedResourceMetadataUrl, OAuthError, OAuthErrorCode, verifyBearerToken, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server'
import { assertNever, errorMessage, Lifetime, oneLine } from 'dsh-core'
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose'
import type { ServeAuth } from './serve-args.ts'

/** Where RFC 9728 puts a resource's metadata; the path after it names the resource's own path. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource'

/** How long fetching the issuer's metadata may take before the request is refused. */
const ISSUER_METADATA_TIMEOUT_MS = 10_000
/** How long a static bearer token is said to stay valid: the SDK's check wants an expiry, and these tokens have none. */
const STATIC_TOKEN_VALIDITY_S = 3600

/** `dsh serve --http`'s authentication: the metadata it publishes and the check every MCP request passes. */
export interface AuthGate {
  /** The RFC 9728 document, when the request asks for it (`--auth oauth` only). */
  metadata(request: Request): Response | undefined
  /** The verified caller, or the refusal (401/403 with its `WWW-Authenticate` challenge) to send instead. */
  check(request: Request): Promise<AuthInfo | Response>
}

/**
 * The gate for `--auth`, or undefined for `none`. `serverUrl` is this server's MCP endpoint: the
 * default audience and the resource the metadata describes.
 */
export function authGate(auth: ServeAuth, serverUrl: URL): AuthGate | undefined {
  switch (auth.kind) {
    case 'none':
      return undefined
    case 'bearer':
      return gate({ verifier: new StaticTokens(auth.tokens, auth.tokenEnv) }, undefined)
    case 'oauth': {
      const audience = auth.audience ?? serverUrl.href
      const resourceUrl = asUrl(audience) ?? serverUrl
      const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl)
      const document = {
        resource: audience,
        authorization_servers: [auth.issuer],
        bearer_methods_supported: ['header'],
        resource_name: 'dsh serve',
        ...(auth.scopes.length ? { scopes_supported: [...auth.scopes] } : {}),
      }
      return gate({ verifier: new JwtAccessTokens(auth.issuer, audience), requiredScopes: [...auth.scopes], resourceMetadataUrl }, document)
    }
    default:
      return assertNever(auth, 'serve auth')
  }
}

function gate(options: Parameters<typeof verifyBearerToken>[1], document: object | undefined): AuthGate {
  return {
    metadata(request) {
      const path = new URL(request.url).pathname
      if (!document || (path !== PROTECTED_RESOURCE_PATH && !path.startsWith(`${PROTECTED_RESOURCE_PATH}/`))) return undefined
      if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } })
      return Response.json(document, { headers: { 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' } })
    },
    async check(request) {
      try {
        return await verifyBearerToken(request.headers.get('authorization'), options)
      } catch (error) {
        return bearerAuthChallengeResponse(error, options)
      }
    },
  }
}

function asUrl(value: string): URL | undefined {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

/** `--auth bearer`: the tokens of `--token-env`, each compared in constant time (as digests, so lengths leak nothing either). */
class StaticTokens implements OAuthTokenVerifier {
  private readonly digests: readonly Buffer[]

  constructor(
    tokens: readonly string[],
    private readonly tokenEnv: string,
  ) {
    this.digests = tokens.map(digest)
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const offered = digest(token)
    // Every token is compared, so the time taken does not say which one came close.
    let matched = false
    for (const accepted of this.digests) matched = timingSafeEqual(accepted, offered) || matched
    if (!matched) throw new OAuthError(OAuthErrorCode.InvalidToken, `the token is not one of those in ${this.tokenEnv}`)
    return { token, clientId: 'bearer', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + STATIC_TOKEN_VALIDITY_S }
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}

/**
 * `--auth oauth`: JWT access tokens (RFC 9068) signed by a key of the issuer's JWKS, for this
 * audience, unexpired. The JWKS location comes from the issuer's metadata (RFC 8414, then OpenID
 * discovery), looked up on the first token and again after a failed look-up; jose keeps the key set
 * and refetches it when a token names a key it does not have.
 */
class JwtAccessTokens implements OAuthTokenVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined

  constructor(
    private readonly issuer: string,
    private readonly audience: string,
  ) {}

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const keys = await this.keySet()
    let payload
    try {
      ;({ payload } = await jwtVerify(token, keys, { issuer: this.issuer, audience: this.audience, typ: 'at+jwt', requiredClaims: ['exp'] }))
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && !(error instanceof joseErrors.JWKSTimeout)) throw new OAuthError(OAuthErrorCode.InvalidToken, `the access token was refused: ${oneLine(error.message)}`)
      throw new OAuthError(OAuthErrorCode.ServerError, `the issuer's keys could not be read: ${oneLine(errorMessage(error))}`)
    }
    const scope = typeof payload.scope === 'string' ? payload.scope : ''
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : (payload.sub ?? '')
    return { token, clientId, scopes: scope.split(' ').filter(Boolean), ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }), ...(asUrl(this.audience) ? { resource: new URL(this.audience) } : {}) }
  }

  private keySet(): Promise<JWTVerifyGetKey> {
    this.keys ??= jwksUri(this.issuer).then(
      (uri) => createRemoteJWKSet(uri),
      (error: unknown) => {
        this.keys = undefined
        throw new OAuthError(OAuthErrorCode.ServerError, `the issuer ${this.issuer} could not be asked for its keys: ${oneLine(errorMessage(error))}`)
      },
    )
    return this.keys
  }
}

/** The issuer's `jwks_uri`, from its RFC 8414 metadata or, failing that, its OpenID configuration. */
async function jwksUri(issuer: string): Promise<URL> {
  const base = new URL(issuer)
  const path = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '')
  const candidates = [new URL(`/.well-known/oauth-authorization-server${path}`, base), new URL(`${path}/.well-known/openid-configuration`, base)]
  const problems: string[] = []
  for (const url of candidates) {
    try {
      const metadata = await Lifetime.run({ timeoutMs: ISSUER_METADATA_TIMEOUT_MS }, async (own) => {
        const response = await fetch(url, { signal: own.signal, headers: { accept: 'application/json' } })
        if (!response.ok) throw new Error(`HTTP ${response.status}`)
        return (await response.json()) as { issuer?: unknown; jwks_uri?: unknown }
      })
      if (metadata.issuer !== issuer) throw new Error(`it names the issuer ${JSON.stringify(metadata.issuer)}`)
      if (typeof metadata.jwks_uri !== 'string') throw new Error('it has no jwks_uri')
      return new URL(metadata.jwks_uri)
    } catch (error) {
      problems.push(`${url.href}: ${oneLine(errorMessage(error))}`)
    }
  }
  throw new Error(problems.join('; '))
}
