import { randomBytes } from 'node:crypto'
import { assertNever } from 'dsh-core'
import type { OAuthClientInformationContext, OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client'
import type { OAuthConfig } from './config.ts'
import type { LoginRecord } from './store.ts'

/** What a provider needs to know about the row: who it is, and the client it logs in as. */
export interface ClientSettings {
  readonly serverName: string
  readonly serverUrl: string
  /** The row's `oauth:` (undefined: OAuth because the server asked for it). */
  readonly oauth: OAuthConfig | undefined
  /** The configured client's secret, read from `oauth.clientSecretEnv` when a flow starts; never stored. */
  readonly clientSecret: (() => Promise<string>) | undefined
  /** `oauth.privateKeyEnv`'s key (client_credentials with private_key_jwt), read when a token is asked for; never stored. */
  readonly privateKey: (() => Promise<string>) | undefined
  /** The command that logs in, for messages. */
  readonly loginCommand: string
}

/** A redirect URI for providers that never redirect; the SDK needs one to pick the authorization-code grant. */
export const NO_REDIRECT = 'http://127.0.0.1/callback'

/**
 * The SDK's `OAuthClientProvider` over one login record held in memory: `auth()` reads and writes
 * the record here, and the owner decides when it reaches the store. Subclasses say what happens
 * when the flow needs the user (a background connection cannot ask).
 */
export abstract class RecordProvider implements OAuthClientProvider {
  private verifier = ''
  private readonly stateValue = randomBytes(24).toString('base64url')
  /** A client ID metadata document, used by the SDK where the authorization server supports them. */
  declare readonly clientMetadataUrl?: string
  /** The configured RFC 8707 resource; only defined with `oauth.resource` (else the SDK takes the metadata's). */
  declare readonly validateResourceURL?: () => Promise<URL>

  constructor(
    protected readonly settings: ClientSettings,
    public record: LoginRecord,
    readonly redirectUrl: string,
    /** `settings.clientSecret`, read. */
    private readonly secret: string | undefined,
  ) {
    if (settings.oauth?.clientMetadataUrl) Object.assign(this, { clientMetadataUrl: settings.oauth.clientMetadataUrl })
    const resource = settings.oauth?.resource
    if (resource) Object.assign(this, { validateResourceURL: async () => new URL(resource) })
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.settings.oauth?.scopes?.join(' ')
    return {
      client_name: 'dsh',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.secret ? 'client_secret_post' : 'none',
      ...(scope ? { scope } : {}),
    }
  }


  state(): string {
    return this.stateValue
  }

  /**
   * The client: the stored registration, or the configured client ID (with its secret, read now).
   * Read for an authorization server (`context`, in `auth()` and the refresh grant), a client that
   * carries no issuer stamp (SEP-2352) — a configured client ID the first time, or a registration an
   * older dsh stored — is stamped with that server's issuer here and kept so: the SDK, which would
   * stamp it the same way, also warns on the console that the provider stored no stamp ("SEP-2352:
   * stored OAuth credential has no 'issuer' stamp"), once per read, and `dsh mcp login` printed that.
   * A stamp that names another issuer is left for the SDK to refuse.
   */
  clientInformation(context?: OAuthClientInformationContext): OAuthClientInformationMixed | undefined {
    const configured = this.settings.oauth?.clientId
    const stored = configured ? (this.record.client?.client_id === configured ? this.record.client : { client_id: configured }) : this.record.client
    if (!stored) return undefined
    const client = stored.issuer === undefined && context?.issuer ? this.keepClient({ ...stored, issuer: context.issuer }) : stored
    return configured && this.secret ? { ...client, client_secret: this.secret } : client
  }

  private keepClient(client: OAuthClientInformationMixed): OAuthClientInformationMixed {
    this.record = { ...this.record, client }
    return client
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    // A configured secret stays in its variable: the store keeps only what the server issued.
    const { client_secret: secret, ...rest } = information
    const keep = this.settings.oauth?.clientId && secret === this.secret ? rest : information
    this.record = { ...this.record, client: keep as OAuthClientInformationMixed }
  }

  /** The stored tokens; read for an authorization server, ones without an issuer stamp are stamped as the client is (see `clientInformation`). */
  tokens(context?: OAuthClientInformationContext): OAuthTokens | undefined | Promise<OAuthTokens | undefined> {
    const tokens = this.record.tokens
    if (!tokens || tokens.issuer !== undefined || !context?.issuer) return tokens
    const stamped = { ...tokens, issuer: context.issuer }
    this.record = { ...this.record, tokens: stamped }
    return stamped
  }

  saveTokens(tokens: OAuthTokens): void {
    const { expiresAt: _old, ...rest } = this.record
    this.record = { ...rest, tokens, ...(tokens.expires_in !== undefined ? { expiresAt: Date.now() + tokens.expires_in * 1000 } : {}) }
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    return this.verifier
  }

  discoveryState(): OAuthDiscoveryState | undefined | Promise<OAuthDiscoveryState | undefined> {
    return this.record.discovery
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.record = { ...this.record, discovery: state }
  }

  /** What the server refused is dropped, never tried again: a dead refresh token goes with its tokens. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const { tokens: _t, expiresAt: _e, client: _c, discovery: _d, ...bare } = this.record
    switch (scope) {
      case 'all':
        this.record = bare
        return
      case 'client': {
        const { client: _dropped, ...rest } = this.record
        this.record = rest
        return
      }
      case 'tokens':
        this.record = { ...bare, ...(this.record.client ? { client: this.record.client } : {}), ...(this.record.discovery ? { discovery: this.record.discovery } : {}) }
        return
      case 'verifier':
        this.verifier = ''
        return
      case 'discovery': {
        const { discovery: _dropped, ...rest } = this.record
        this.record = rest
        return
      }
      default:
        assertNever(scope, 'credential scope')
    }
  }

  abstract redirectToAuthorization(authorizationUrl: URL): void | Promise<void>
}

/** The access token expires within this: it is refreshed before the request that would use it. */
export const REFRESH_MARGIN_MS = 60_000

export function expiringSoon(record: LoginRecord, now = Date.now()): boolean {
  return record.expiresAt !== undefined && record.expiresAt - now < REFRESH_MARGIN_MS
}
