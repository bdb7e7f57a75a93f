import { createPrivateKeyJwtAuth, type AddClientAuthentication, type OAuthClientInformationMixed, type OAuthClientMetadata, type OAuthClientProvider, type OAuthTokens } from '@modelcontextprotocol/client'
import { McpError } from '../errors.ts'
import type { OAuthConfig } from './config.ts'

/** How a machine client proves itself at the token endpoint: its secret (client_secret_basic) or a key (private_key_jwt). */
export type MachineCredential = { readonly secret: string } | { readonly privateKey: string; readonly algorithm: string }

/** The access token of a client_credentials row, shared by its connections (a reconnect does not ask for another). */
export interface HeldToken {
  current?: OAuthTokens
}

/**
 * `oauth.grant: client_credentials`: the SDK's `auth()` sees a provider without a redirect URL and
 * asks the token endpoint directly with what `prepareTokenRequest` gives; there is no login and
 * nothing is stored on disk (a new token is one request away). The client assertion of
 * private_key_jwt is the SDK's (`createPrivateKeyJwtAuth`).
 */
export class ClientCredentialsGrant implements OAuthClientProvider {
  readonly redirectUrl = undefined
  declare readonly addClientAuthentication?: AddClientAuthentication

  constructor(
    private readonly oauth: OAuthConfig & { clientId: string },
    private readonly credential: MachineCredential,
    private readonly held: HeldToken,
  ) {
    if ('privateKey' in credential) {
      Object.assign(this, { addClientAuthentication: createPrivateKeyJwtAuth({ issuer: oauth.clientId, subject: oauth.clientId, privateKey: credential.privateKey, alg: credential.algorithm }) })
    }
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.oauth.scopes?.join(' ')
    return {
      client_name: 'dsh',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'secret' in this.credential ? 'client_secret_basic' : 'private_key_jwt',
      ...(scope ? { scope } : {}),
    }
  }

  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.oauth.clientId, ...('secret' in this.credential ? { client_secret: this.credential.secret } : {}) }
  }

  tokens(): OAuthTokens | undefined {
    return this.held.current
  }

  saveTokens(tokens: OAuthTokens): void {
    this.held.current = tokens
  }

  /** A refused token is forgotten, so the next request asks for a new one. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') delete this.held.current
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: 'client_credentials' })
    const asked = scope ?? this.oauth.scopes?.join(' ')
    if (asked) params.set('scope', asked)
    return params
  }

  redirectToAuthorization(): never {
    throw new McpError('grant: client_credentials has no login, yet the authorization server asked for one', 'MCP_AUTH_FAILED')
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new McpError('grant: client_credentials has no authorization code', 'MCP_AUTH_FAILED')
  }
}
