import { fetchToken, InsecureTokenEndpointError, OAuthError, OAuthErrorCode, selectResourceURL, type FetchLike, type OAuthTokens } from '@modelcontextprotocol/client'
import { errorMessage, oneLine } from 'dsh-core'
import { McpError } from '../errors.ts'
import type { AuthRequiredError } from './auth-required.ts'
import type { RecordProvider } from './provider.ts'

/** What a refresh that no token came of needs: the login it mends with, and why that is needed. */
export type NeedsLogin = (why: string) => AuthRequiredError

/** A login's provider that asks the token endpoint for the refresh grant of its stored refresh token (session.ts, RefreshProvider). */
export interface RefreshingProvider extends RecordProvider {
  prepareTokenRequest(): URLSearchParams | undefined
}

/**
 * The refresh grant of a stored login, alone: the SDK's `fetchToken` with the provider, the
 * authorization server, its metadata and the resource the login stored. The SDK picks the token
 * endpoint's client authentication from the provider there as `auth()` does (the client read for
 * the issuer, the metadata's methods, `addClientAuthentication`, `dpop`), so none of that choice is
 * ours to keep in step; the provider only says the grant (`prepareTokenRequest`).
 * `auth()` itself reads a refused refresh token (`invalid_grant`) or client as a reason to start
 * a new authorization and warns on the console that it does so, and reads any other failure
 * (the authorization server down) the same way; a refresh never asks the user, so none of that is
 * done or said: what is refused is dropped from the record and the error names the login command;
 * a passing failure is `MCP_CONNECT_FAILED`, which leaves the tokens as they are.
 *
 * Undefined (nothing sent) when the record lacks what this needs — a login stored without
 * discovery, or one whose client or tokens another authorization server issued (SEP-2352): the
 * caller then runs `auth()`, which discovers and decides those.
 */
export async function refreshGrant(provider: RefreshingProvider, serverName: string, serverUrl: string, fetchFn: FetchLike, needsLogin: NeedsLogin): Promise<OAuthTokens | undefined> {
  const { tokens, discovery } = provider.record
  const metadata = discovery?.authorizationServerMetadata
  if (!tokens?.refresh_token || !discovery?.authorizationServerUrl || !metadata || !discovery.resourceMetadata) return undefined
  const issuer = metadata.issuer ?? String(discovery.authorizationServerUrl)
  // (Read for this issuer: a client without the issuer's stamp is stamped, as auth() does; SEP-2352.)
  const client = await provider.clientInformation({ issuer })
  if (!client || !sameIssuer(client.issuer, issuer) || !sameIssuer((tokens as { issuer?: unknown }).issuer, issuer)) return undefined
  const selected = await selectResourceURL(serverUrl, provider, discovery.resourceMetadata)
  // As auth(): the metadata's own spelling of the resource unless the row configured one.
  const resource = selected && !provider.validateResourceURL ? discovery.resourceMetadata.resource : selected
  try {
    const fresh = await fetchToken(provider, discovery.authorizationServerUrl, { metadata, ...(resource ? { resource } : {}), fetchFn })
    // (As `refreshAuthorization`: an answer without a new refresh token keeps the one presented.)
    const stamped = { refresh_token: tokens.refresh_token, ...fresh, issuer }
    provider.saveTokens(stamped)
    return stamped
  } catch (error) {
    if (error instanceof InsecureTokenEndpointError) throw error
    if (error instanceof OAuthError) {
      switch (error.code) {
        case OAuthErrorCode.InvalidGrant:
        case OAuthErrorCode.InvalidDpopProof:
          provider.invalidateCredentials('tokens')
          throw needsLogin('the server refused the refresh token')
        case OAuthErrorCode.InvalidClient:
        case OAuthErrorCode.UnauthorizedClient:
          provider.invalidateCredentials('client')
          provider.invalidateCredentials('tokens')
          throw needsLogin('the server refused the refresh token')
        default:
          break
      }
      // Another answer the authorization server gave: not read as a refusal of the tokens, kept for a later refresh.
      if (error.code !== OAuthErrorCode.ServerError) throw error
    }
    // A passing failure (unreachable, a 5xx, an answer that is no OAuth error): the tokens were not
    // refused, and the caller keeps a still-valid token. The raw body such an answer carries may be a
    // page: only its start is shown.
    const why = oneLine(errorMessage(error))
    throw new McpError(`the token refresh for ${serverName} failed: ${why.length > WHY_CHARS ? `${why.slice(0, WHY_CHARS)}…` : why}`, 'MCP_CONNECT_FAILED', { cause: error })
  }
}

/** How much of a failed refresh's error goes into the reason shown. */
const WHY_CHARS = 300

/** SEP-2352's issuer comparison (one trailing `/` tolerated); an unstamped credential matches any. */
function sameIssuer(stamped: unknown, issuer: string): boolean {
  if (typeof stamped !== 'string') return true
  return stamped === issuer || stamped.replace(/\/$/, '') === issuer.replace(/\/$/, '')
}
