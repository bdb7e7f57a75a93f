import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { computeScopeUnion, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client'
import { errorMessage, oneLine } from 'dsh-core'
import { McpError } from '../errors.ts'
import { authorize } from './authorize.ts'
import { RecordProvider, type ClientSettings } from './provider.ts'
import { loginKey, type LoginRecord, type TokenStore } from './store.ts'

/** How long a login waits for the browser to come back, unless the caller says otherwise. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000
const CALLBACK_PATH = '/callback'

export interface LoginOptions {
  readonly store: TokenStore
  readonly settings: ClientSettings
  /** Told the authorization URL to visit (print it; open a browser). */
  readonly onAuthorizationUrl: (url: URL) => void
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
  readonly fetchFn?: FetchLike
}

export interface LoginOutcome {
  /** The scopes the server granted, when it said. */
  readonly scope: string | undefined
  /** Callback requests refused because their `state` was not this login's. */
  readonly refusedCallbacks: number
}

/**
 * The interactive OAuth login for one server, on the SDK's `auth()`: discovery, registration (a
 * configured client, a client ID metadata document, or DCR), PKCE and the code exchange are the
 * SDK's. Ours: a loopback listener for the redirect that accepts only this login's `state`, and
 * the store the tokens go to. The tokens never leave the store.
 */
export async function login(options: LoginOptions): Promise<LoginOutcome> {
  const { store, settings } = options
  if (settings.oauth?.grant === 'client_credentials') throw new McpError(`${settings.serverName} uses oauth.grant: client_credentials: it gets its tokens itself, there is no login`, 'MCP_AUTH_FAILED')
  const key = loginKey(settings.serverUrl, settings.oauth?.clientId)
  const callback = await listenForCallback(settings.oauth?.callbackPort)
  try {
    const stored = await store.get(key)
    const redirectUrl = `http://127.0.0.1:${callback.port}${CALLBACK_PATH}`
    // A registration made for another redirect URI (another port) cannot be used for this one.
    const client = stored?.client && 'redirect_uris' in stored.client && !stored.client.redirect_uris.map(String).includes(redirectUrl) ? undefined : stored?.client
    const record: LoginRecord = { serverUrl: settings.serverUrl, ...(settings.oauth?.clientId ? { clientId: settings.oauth.clientId } : {}), redirectUrl, ...(client ? { client } : {}) }
    let authorizationUrl: URL | undefined
    const secret = settings.clientSecret ? await settings.clientSecret() : undefined
    const provider = new LoginProvider(settings, record, redirectUrl, secret, (url) => {
      authorizationUrl = url
      options.onAuthorizationUrl(url)
    })
    callback.expect(provider.state())
    // What the server asks for when refused: where its protected-resource metadata is (which may
    // not be at a well-known path) and the scope it wants, with the scope a live connection was
    // last refused for (a step-up) — the row's `oauth.scopes` win over both.
    const challenge = await unauthenticatedChallenge(settings.serverUrl, options.fetchFn ?? fetch)
    // The bridge takes such a 401 as a refused credential, not a login (MCP_CREDENTIAL_REJECTED):
    // the SDK would go on guessing endpoints at the server's origin and fail on one of them
    // ("Dynamic Client Registration rejected (HTTP 401): " and the server's body, often empty).
    // (A server may leave the challenge out and still publish its protected-resource metadata,
    // which the spec falls back to: that one offers a login.)
    if (challenge.status === 401 && !challenge.bearer && !(await publishesResourceMetadata(settings.serverUrl, options.fetchFn ?? fetch))) {
      throw new McpError(
        `${settings.serverName} offers no OAuth login: the server answered HTTP 401 without an OAuth challenge (no WWW-Authenticate: Bearer${challenge.scheme ? `; it asks for ${challenge.scheme}` : ''}) and publishes no OAuth metadata, so it wants a credential of another kind: give it in the row (bearerTokenEnvVar, headers or envHeaders) instead of logging in; nothing was stored`,
        'MCP_LOGIN_UNSUPPORTED',
      )
    }
    const scope = settings.oauth?.scopes?.join(' ') ?? computeScopeUnion(stored?.requiredScope, challenge.scope)
    const discovery = { serverUrl: settings.serverUrl, ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}), ...fetchOption(options) }
    const first = await attempt(() => authorize(provider, { ...discovery, ...(scope ? { scope } : {}) }), settings, 'starting the login')
    if (first === 'REDIRECT') {
      if (!authorizationUrl) throw new McpError(`login to ${settings.serverName}: the authorization server gave no authorization URL`, 'MCP_AUTH_FAILED')
      const answer = await callback.code(options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS, options.signal)
      // RFC 9207: the callback's `iss` is checked against the authorization server's issuer.
      await attempt(() => authorize(provider, { ...discovery, authorizationCode: answer.code, ...(answer.iss !== undefined ? { iss: answer.iss } : {}) }), settings, 'exchanging the authorization code')
    }
    await store.update(key, () => provider.record)
    return { scope: provider.record.tokens?.scope, refusedCallbacks: callback.refused }
  } finally {
    await callback.close()
  }
}

interface Challenge {
  /** The status of the refusal (401, 403); undefined when the request was not refused or nothing answered. */
  readonly status?: number
  /** Whether `WWW-Authenticate` asks for a Bearer token (an OAuth server). */
  readonly bearer?: boolean
  /** The scheme it asks for otherwise (`Basic`, `ApiKey`), for the message. */
  readonly scheme?: string
  readonly resourceMetadataUrl?: URL
  readonly scope?: string
}

/**
 * How the server answers an unauthenticated request (a `server/discover`, which every revision's
 * server refuses the same way when it wants a token): the `WWW-Authenticate` parameters of a
 * refusal. Nothing is learnt from a server that does not refuse it, or cannot be reached (`auth()` then says why).
 */
async function unauthenticatedChallenge(serverUrl: string, fetchFn: FetchLike): Promise<Challenge> {
  try {
    const response = await fetchFn(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'dsh-login', method: 'server/discover', params: {} }),
    })
    await response.body?.cancel().catch(() => {})
    if (response.status !== 401 && response.status !== 403) return {}
    const header = response.headers.get('www-authenticate') ?? ''
    const scheme = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)/.exec(header)?.[1]
    // (One header may offer several schemes: `Basic realm="api", Bearer resource_metadata="…"`.)
    const bearer = /(^|,)\s*bearer\b/i.test(header)
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response)
    return { status: response.status, bearer, ...(scheme ? { scheme } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) }
  } catch {
    return {}
  }
}

/** Whether the server publishes RFC 9728 protected-resource metadata at a well-known path. */
async function publishesResourceMetadata(serverUrl: string, fetchFn: FetchLike): Promise<boolean> {
  try {
    await discoverOAuthProtectedResourceMetadata(serverUrl, undefined, fetchFn)
    return true
  } catch {
    return false
  }
}

function fetchOption(options: LoginOptions): { fetchFn?: FetchLike } {
  return options.fetchFn ? { fetchFn: options.fetchFn } : {}
}

async function attempt<T>(work: () => Promise<T>, settings: ClientSettings, step: string): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof McpError) throw error
    // (The SDK ends some messages with the server's body, which may be empty: `… rejected (HTTP 401): `.)
    const why = oneLine(errorMessage(error)).replace(/:\s*$/, '') || 'no reason given'
    throw new McpError(`login to ${settings.serverName} failed while ${step}: ${why}`, 'MCP_AUTH_FAILED', { cause: error })
  }
}

/** A fresh login: stored tokens are not offered (no refresh), and the redirect goes to the caller. */
class LoginProvider extends RecordProvider {
  constructor(
    settings: ClientSettings,
    record: LoginRecord,
    redirectUrl: string,
    secret: string | undefined,
    private readonly redirect: (url: URL) => void,
  ) {
    super(settings, record, redirectUrl, secret)
  }

  override tokens(): undefined {
    return undefined
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.redirect(authorizationUrl)
  }
}

interface CallbackAnswer {
  readonly code: string
  readonly iss: string | undefined
}

type CallbackOutcome = CallbackAnswer | { error: string }

interface CallbackListener {
  readonly port: number
  /** Requests refused for a wrong or missing state. */
  readonly refused: number
  /** Only callbacks carrying this state are taken. */
  expect(state: string): void
  /** The code (and RFC 9207 `iss`) of the first callback with the expected state; an `error` callback with it fails the login. */
  code(timeoutMs: number, signal: AbortSignal | undefined): Promise<CallbackAnswer>
  close(): Promise<void>
}

/**
 * The loopback listener the browser is sent back to. A request whose `state` is not this login's
 * is answered 400 and ignored (a page cannot complete someone else's login); the right one ends it.
 */
async function listenForCallback(port = 0): Promise<CallbackListener> {
  let expected: string | undefined
  let settle: ((outcome: CallbackOutcome) => void) | undefined
  let refused = 0
  const early: CallbackOutcome[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== CALLBACK_PATH) return page(response, 404, 'Not found.')
    const state = url.searchParams.get('state')
    if (!expected || state !== expected) {
      refused++
      return page(response, 400, 'This login link is not the one dsh is waiting for (its state does not match). Nothing was changed.')
    }
    const error = url.searchParams.get('error')
    const code = url.searchParams.get('code')
    const outcome: CallbackOutcome = error
      ? { error: `${error}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}` }
      : code
        ? { code, iss: url.searchParams.get('iss') ?? undefined }
        : { error: 'the callback carried no code' }
    page(response, 'code' in outcome ? 200 : 400, 'code' in outcome ? 'Logged in. You can close this tab and return to the terminal.' : `The login did not complete: ${outcome.error}`)
    if (settle) settle(outcome)
    else early.push(outcome)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new McpError(`the login's callback port ${port} cannot be used: ${error.code === 'EADDRINUSE' ? 'it is in use' : error.message}`, 'MCP_AUTH_FAILED', { cause: error })),
    )
    server.listen(port, '127.0.0.1', resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    get refused() {
      return refused
    },
    expect(state) {
      expected = state
    },
    code(timeoutMs, signal) {
      return new Promise<CallbackAnswer>((resolve, reject) => {
        const timer = setTimeout(() => finish({ error: `no answer from the browser within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs)
        const onAbort = () => finish({ error: 'interrupted' })
        signal?.addEventListener('abort', onAbort, { once: true })
        const finish = (outcome: CallbackOutcome) => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          settle = () => {}
          if ('code' in outcome) resolve(outcome)
          else reject(new McpError(`the login did not complete: ${outcome.error}`, 'MCP_AUTH_FAILED'))
        }
        settle = finish
        if (signal?.aborted) return onAbort()
        const waiting = early.shift()
        if (waiting) finish(waiting)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function page(response: ServerResponse, status: number, text: string): void {
  const body = `<!doctype html><meta charset="utf-8"><title>dsh</title><p>${text.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>\n`
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body)
}
