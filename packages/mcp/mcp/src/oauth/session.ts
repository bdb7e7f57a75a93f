import { watch, type FSWatcher } from 'node:fs'
import { dirname } from 'node:path'
import { computeScopeUnion, isStrictScopeSuperset, type FetchLike, type OAuthClientInformationMixed, type OAuthClientProvider, type OAuthDiscoveryState, type OAuthTokens } from '@modelcontextprotocol/client'
import { ensurePrivateDirectory, errorMessage, Lifetime, TimeoutReason } from 'dsh-core'
import { McpError } from '../errors.ts'
import { authorize } from './authorize.ts'
import { ClientCredentialsGrant, type HeldToken, type MachineCredential } from './client-credentials.ts'
import { DEFAULT_TOKEN_TIMEOUT_MS, type OAuthConfig } from './config.ts'
import { AuthRequiredError, credentialRejected } from './auth-required.ts'
import { expiringSoon, NO_REDIRECT, RecordProvider, type ClientSettings } from './provider.ts'
import { refreshGrant } from './refresh-grant.ts'
import { loginKey, type LoginRecord, type TokenStore } from './store.ts'

/**
 * OAuth for one row, across its connections: the provider each transport gets, and the refresh
 * that keeps the stored tokens ahead of expiry — one at a time in this process (concurrent calls
 * share it) and across processes (the store's lock; a session that waited finds the new token and
 * does not refresh again). Background work never starts a login: what needs the user is an
 * `AuthRequiredError` naming the login command.
 */
export class OAuthSession {
  readonly key: string
  private refreshing: Promise<OAuthTokens> | undefined
  /** A client_credentials row's access token, across its connections. */
  private readonly machineToken: HeldToken = {}
  /** The `WWW-Authenticate` of the last 401 (null: the 401 had none). */
  private challenge: string | null | undefined
  /** The access token the server refused last and no refresh replaced: `waitForLogin` waits for another. */
  private refused: string | undefined

  constructor(
    readonly store: TokenStore,
    readonly settings: ClientSettings,
    private readonly fetchFn?: FetchLike,
  ) {
    this.key = loginKey(settings.serverUrl, settings.oauth?.clientId)
  }

  /**
   * Resolves once a login with tokens is stored for this server (`dsh mcp login` in another
   * process), other than a token the server refused: the store's directory is watched, nothing is
   * polled. Never rejects; an abort ends the watch quietly. A directory that cannot be made or
   * watched (removed, or under a file) resolves false and is told to `unwatchable`: the row then
   * waits for a reload instead of a login.
   */
  async waitForLogin(signal: AbortSignal, unwatchable?: (reason: string) => void): Promise<boolean> {
    const directory = dirname(this.store.path)
    try {
      await ensurePrivateDirectory(directory)
    } catch (error) {
      unwatchable?.(`the login store's directory ${directory} cannot be made: ${errorMessage(error)}`)
      return false
    }
    // A token the server refused is no login (a refresh it refused again, or one that failed, may leave it stored).
    const stored = async () => {
      const tokens = (await this.store.get(this.key).catch(() => undefined))?.tokens
      return tokens !== undefined && tokens.access_token !== this.refused
    }
    return new Promise<boolean>((resolve) => {
      let checking = Promise.resolve()
      const finish = (found: boolean) => {
        watcher.close()
        signal.removeEventListener('abort', onAbort)
        resolve(found)
      }
      const onAbort = () => finish(false)
      // Checks run one after another: a burst of events (a write, then a rename) reads the file once each.
      const check = () => {
        checking = checking.then(async () => {
          if (!signal.aborted && (await stored())) finish(true)
        })
      }
      let watcher: FSWatcher
      try {
        watcher = watch(directory, { persistent: false }, check)
      } catch (error) {
        unwatchable?.(`the login store's directory ${directory} cannot be watched: ${errorMessage(error)}`)
        return resolve(false)
      }
      watcher.on('error', (error) => {
        unwatchable?.(`the login store's directory ${directory} cannot be watched any more: ${errorMessage(error)}`)
        finish(false)
      })
      signal.addEventListener('abort', onAbort, { once: true })
      if (signal.aborted) return onAbort()
      check()
    })
  }

  /**
   * The provider for a new transport, or undefined when OAuth does not apply yet: the row has no
   * `oauth:` and no login is stored (a 401 challenge then means "log in", see `unauthorized`).
   */
  async transportProvider(): Promise<OAuthClientProvider | undefined> {
    const oauth = this.settings.oauth
    if (oauth?.grant === 'client_credentials' && oauth.clientId) return new ClientCredentialsGrant({ ...oauth, clientId: oauth.clientId }, await this.machineCredential(oauth), this.machineToken)
    const record = await this.store.get(this.key)
    if (!record && !this.settings.oauth) return undefined
    return new TransportProvider(this, record ?? { serverUrl: this.settings.serverUrl }, await this.readSecret())
  }

  /**
   * A request was answered 401: the challenge is remembered, so a login is asked for only when the
   * server speaks OAuth. When the request carried a stored login's access token (`sent`), the server
   * refused that token: it is refreshed here — once for every request that saw it refused, under
   * the store's lock, with the stored refresh token — and the `Authorization` to send the request
   * once more with is returned. What cannot be mended that way throws `AuthRequiredError` naming
   * the login command: the SDK's own answer to a 401 (refresh, then a new authorization request)
   * is never reached for a stored login, so no host but `dsh mcp login` starts a login. Undefined
   * when no stored login's token was refused (no token yet: the SDK's flow reports needs_auth or
   * a refused credential, TransportProvider.discoveryState).
   */
  async unauthorized(challenge: string | null, sent: string | null, again: boolean): Promise<string | undefined> {
    this.challenge = challenge
    const token = /^bearer\s+(\S+)$/i.exec(sent ?? '')?.[1]
    if (!token || this.settings.oauth?.grant === 'client_credentials') return undefined
    if (again) {
      this.refused = token
      throw this.needsLogin('the server refused the access token again right after it was refreshed')
    }
    try {
      return `Bearer ${(await this.refresh(token, { rejected: true })).access_token}`
    } catch (error) {
      this.refused = token
      throw error
    }
  }

  /**
   * A request carrying a stored login's token was answered 403 `insufficient_scope` asking for
   * `scope` (SEP-2350). A scope the login does not hold needs a login: it is kept with the login
   * (the next `dsh mcp login` asks for the union) and only this request fails. A scope it holds
   * needs a fresh token: refreshed here as after a 401 — once for every request that saw the 403,
   * under the store's lock, with the stored refresh token — and the `Authorization` to send the
   * request once more with is returned. A refused refresh token drops the tokens and needs a login
   * (the connection goes, as after a 401); an authorization server that is down refuses nothing:
   * the request fails with that (`MCP_CONNECT_FAILED`), the tokens stay. The SDK's own step-up
   * (a refresh of its own, outside the lock) is never reached for a stored login. Undefined when no
   * stored login's token was sent (the SDK's step-up then runs: a client_credentials row asks the
   * token endpoint for the union itself).
   */
  async insufficientScope(scope: string | undefined, sent: string | null, again: boolean): Promise<string | undefined> {
    const token = /^bearer\s+(\S+)$/i.exec(sent ?? '')?.[1]
    if (!token || this.settings.oauth?.grant === 'client_credentials') return undefined
    const held = (await this.store.get(this.key))?.tokens?.scope
    // (The scope is shown: one that is not spelled as a scope is not taken.)
    const wanted = computeScopeUnion(held, wellFormedScope(scope ?? null))
    if (wanted !== undefined && isStrictScopeSuperset(wanted, held)) {
      await this.store.update(this.key, (record) => record && { ...record, requiredScope: wanted })
      throw this.needsLogin(`the server requires the scope "${wanted}"`, wanted)
    }
    const stepUp = { scope: wanted ?? '' }
    if (again) throw this.needsLogin(`the server requires ${scopeWords(wanted)}, which the login holds, and refused the token again right after it was refreshed`, stepUp.scope)
    try {
      return `Bearer ${(await this.refresh(token, { stepUp })).access_token}`
    } catch (error) {
      if (error instanceof AuthRequiredError && error.stepUpScope === undefined) this.refused = token
      throw error
    }
  }

  /** Whether the last 401 carried a Bearer challenge (an OAuth server), or nothing was refused yet. */
  get challengedForBearer(): boolean {
    return this.challenge === undefined || /^\s*bearer\b/i.test(this.challenge ?? '')
  }

  /** What a client_credentials row authenticates with, read now. */
  private async machineCredential(oauth: OAuthConfig): Promise<MachineCredential> {
    if (this.settings.privateKey && oauth.signingAlgorithm) return { privateKey: await this.settings.privateKey(), algorithm: oauth.signingAlgorithm }
    const secret = await this.readSecret()
    if (secret === undefined) throw new McpError(`grant: client_credentials for ${this.settings.serverName} has neither clientSecretEnv nor privateKeyEnv`, 'MCP_CREDENTIAL_MISSING')
    return { secret }
  }

  /** The configured client's secret, read now (a rotated one is picked up). */
  readSecret(): Promise<string | undefined> {
    return this.settings.clientSecret ? this.settings.clientSecret() : Promise.resolve(undefined)
  }

  needsLogin(why: string, stepUpScope?: string): AuthRequiredError {
    return new AuthRequiredError(this.settings.serverName, this.settings.loginCommand, why, stepUpScope)
  }

  /**
   * Fresh tokens in place of the ones whose access token is `seen`. Single-flight: concurrent
   * callers share one refresh, and another process's refresh (seen after taking the store's lock)
   * is used instead of making a second. A refused refresh token is discarded with its tokens.
   * A `rejected` caller (the server refused `seen`) and a `stepUp` one (the server wants `seen`
   * renewed for that scope, which the login holds) never get `seen` back: a shared refresh that
   * kept it (one ahead of expiry whose authorization server did not answer, or one started for an
   * older token) is followed by a refresh of their own.
   */
  async refresh(seen: string, need: RefreshNeed = {}): Promise<OAuthTokens> {
    const renew = need.rejected === true || need.stepUp !== undefined
    const shared = this.refreshing
    if (!shared) return this.refreshOnce(seen, need)
    const tokens = await shared
    return renew && tokens.access_token === seen ? this.refresh(seen, need) : tokens
  }

  /** One refresh under the store's lock, shared by the callers that come while it runs. */
  private refreshOnce(seen: string, { rejected = false, stepUp }: RefreshNeed): Promise<OAuthTokens> {
    this.refreshing = this.store
      .locked(async (held) => {
        const current = await held.get(this.key)
        if (!current?.tokens) throw this.needsLogin(rejected ? 'the server refused the stored access token, and no login is stored any more' : 'no login is stored')
        // Another refresh (here or in another process) replaced `seen` already: that token is the one to use.
        if (current.tokens.access_token !== seen && !expiringSoon(current)) return current.tokens
        // A token the server refused, or wants renewed for a scope, is refreshed whatever its expiry says.
        const ahead = !rejected && stepUp === undefined
        const stillValid = ahead && current.expiresAt !== undefined && current.expiresAt > Date.now()
        if (ahead && !expiringSoon(current)) return current.tokens
        if (!current.tokens.refresh_token) {
          if (stillValid) return current.tokens
          // (A step-up fails its request only: the token serves every other.)
          if (stepUp !== undefined) throw this.needsLogin(`the server requires ${scopeWords(stepUp.scope)} anew and the login has no refresh token to renew its token with`, stepUp.scope)
          throw this.needsLogin(rejected ? 'the server refused the stored access token and gave no refresh token' : 'the access token expired and the server gave no refresh token')
        }
        const provider = new RefreshProvider(this, current, await this.readSecret())
        try {
          await this.refreshWithin(provider)
        } catch (error) {
          if (error instanceof AuthRequiredError) await held.put(this.key, provider.record)
          // A passing failure (the authorization server is down): the current token serves until it
          // expires (a step-up's request fails with the failure, and the token serves the others).
          else if (stillValid) return current.tokens
          // The refused token cannot serve: a login is what is left (the tokens stay for a later refresh).
          else if (rejected) throw this.needsLogin(`the server refused the stored access token, and refreshing it failed: ${errorMessage(error)}`)
          throw error
        }
        await held.put(this.key, provider.record)
        return provider.record.tokens!
      })
      .finally(() => {
        this.refreshing = undefined
      })
    return this.refreshing
  }

  /**
   * The refresh grant (refresh-grant.ts; `auth()` when the record lacks what that needs), bounded
   * by `oauth.tokenTimeoutMs`: it holds the store's lock, which other processes wait for.
   */
  private async refreshWithin(provider: RefreshProvider): Promise<void> {
    const timeoutMs = this.settings.oauth?.tokenTimeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS
    const fetchFn = this.fetchFn ?? fetch
    try {
      await Lifetime.run({ timeoutMs, code: 'MCP_TIMEOUT' }, async (own) => {
        const bounded: FetchLike = (url, init) => fetchFn(url, { ...init, signal: own.signal })
        if (await refreshGrant(provider, this.settings.serverName, this.settings.serverUrl, bounded, (why) => this.needsLogin(why))) return
        await authorize(provider, { serverUrl: this.settings.serverUrl, fetchFn: bounded })
      })
    } catch (error) {
      if (error instanceof TimeoutReason) throw new McpError(`the token refresh for ${this.settings.serverName} got no answer within ${timeoutMs} ms (oauth.tokenTimeoutMs)`, 'MCP_TIMEOUT', { cause: error })
      throw error
    }
  }
}

/**
 * What a transport authenticates with. Every read goes to the store (a login or refresh made
 * elsewhere is used at once), tokens close to expiry are refreshed first (the live transport sends
 * the new one without reconnecting), and what `auth()` saves after a 401 is written through.
 */
class TransportProvider extends RecordProvider {
  constructor(
    private readonly session: OAuthSession,
    record: LoginRecord,
    secret: string | undefined,
  ) {
    super(session.settings, record, record.redirectUrl ?? NO_REDIRECT, secret)
  }

  override async tokens(): Promise<OAuthTokens | undefined> {
    const record = await this.reload()
    if (!record.tokens) return undefined
    return expiringSoon(record) ? this.session.refresh(record.tokens.access_token) : record.tokens
  }

  /** The first thing `auth()` asks after a 401: without stored tokens only a login can help. */
  override async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const record = await this.reload()
    if (record.tokens) return record.discovery
    if (!this.session.challengedForBearer) throw credentialRejected('without an OAuth challenge')
    throw this.session.needsLogin(this.record.client ? 'the stored login is no longer accepted' : 'no login is stored')
  }

  /**
   * The flow wants the user. A 403 `insufficient_scope` on a stored login's token never gets here
   * (`OAuthSession.insufficientScope` answers it first), nor does a 401 on one (`unauthorized`).
   */
  redirectToAuthorization(): never {
    throw this.session.needsLogin('the server asks for a new authorization')
  }

  override async saveTokens(tokens: OAuthTokens): Promise<void> {
    super.saveTokens(tokens)
    await this.persist()
  }

  override async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    super.saveClientInformation(information)
    await this.persist()
  }

  override async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    super.saveDiscoveryState(state)
    await this.persist()
  }

  override async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    super.invalidateCredentials(scope)
    if (scope !== 'verifier') await this.persist()
  }

  private async reload(): Promise<LoginRecord> {
    this.record = (await this.session.store.get(this.session.key)) ?? { serverUrl: this.session.settings.serverUrl }
    return this.record
  }

  private persist(): Promise<void> {
    const record = this.record
    return this.session.store.update(this.session.key, () => record)
  }
}

/** Runs one refresh inside the store's lock: everything stays in memory until the owner writes it. */
class RefreshProvider extends RecordProvider {
  constructor(
    private readonly session: OAuthSession,
    record: LoginRecord,
    secret: string | undefined,
  ) {
    super(session.settings, record, record.redirectUrl ?? NO_REDIRECT, secret)
  }

  /** Asked again after the SDK discarded refused tokens: then only a login helps. */
  override discoveryState(): OAuthDiscoveryState | undefined {
    if (!this.record.tokens) throw this.session.needsLogin('the server refused the refresh token')
    return this.record.discovery
  }

  redirectToAuthorization(): never {
    throw this.session.needsLogin('the server refused the refresh token')
  }

  /**
   * The grant `fetchToken` asks for (refresh-grant.ts): the stored refresh token. (`auth()` asks
   * this only for a flow without a redirect or with a code, which a refresh never runs.)
   */
  prepareTokenRequest(): URLSearchParams | undefined {
    const refreshToken = this.record.tokens?.refresh_token
    return refreshToken ? new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }) : undefined
  }
}

/**
 * Why a refresh is made: ahead of expiry (neither), for a token the server refused (`rejected`), or
 * for one the server wants renewed for a scope the login holds (`stepUp`, the scope; '' when the
 * server named none and the login holds none).
 */
interface RefreshNeed {
  readonly rejected?: boolean
  readonly stepUp?: { readonly scope: string }
}

/** A step-up's scope in words. */
function scopeWords(scope: string | undefined): string {
  return scope ? `the scope "${scope}"` : 'another scope'
}

/** A scope as RFC 6749 §3.3 spells one (space-separated tokens of printable ASCII), else undefined: it is shown. */
function wellFormedScope(scope: string | null): string | undefined {
  return scope && /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(scope) ? scope : undefined
}
