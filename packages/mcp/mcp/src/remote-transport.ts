import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { FetchLike, Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { ServerUnreachableError, WireInbox, wireFetch } from './http-wire.ts'
import { AuthRequiredError } from './oauth/auth-required.ts'
import type { OAuthSession } from './oauth/session.ts'

export interface RemoteTransportOptions {
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly maxMessageBytes: number
  /**
   * The server may be gone (its event stream ended): the owner checks with a ping, whose failure
   * the transport then detects itself.
   */
  readonly onSuspect: (reason: Error) => void
  /** The SDK's OAuth client for this connection (tokens, refresh, the flow after a 401), when the row uses OAuth. */
  readonly authProvider?: OAuthClientProvider | undefined
  /** The row's OAuth state: told about 401s; without `authProvider`, a Bearer challenge means a login is needed. */
  readonly auth?: OAuthSession | undefined
}

/** What both SDK HTTP client transports take and do. */
export interface SdkRemoteTransport extends Transport {
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>
}
export interface SdkRemoteOptions {
  readonly requestInit: RequestInit
  readonly fetch: FetchLike
  readonly authProvider?: OAuthClientProvider
}

/**
 * What the Streamable HTTP and the HTTP+SSE transports share: one of the SDK's client transports
 * on a fetch that types its failures and caps messages (http-wire.ts), OAuth's 401s turned into
 * `AuthRequiredError`, and closing itself (`lostBecause` says why) when the server is gone or wants
 * a login, so the supervisor reconnects or reports needs_auth. Subclasses say what an ended event
 * stream and a refused session mean for their protocol.
 */
export abstract class RemoteTransport<Inner extends SdkRemoteTransport> implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  protected readonly inner: Inner
  protected readonly inbox = new WireInbox()
  protected closing: Promise<void> | undefined
  private closed = false
  /** Why the transport closed itself, if it did (`ServerUnreachableError`, `AuthRequiredError`, a lost session). */
  lostBecause: Error | undefined

  constructor(
    protected readonly options: RemoteTransportOptions,
    open: (url: URL, sdk: SdkRemoteOptions) => Inner,
  ) {
    const fetch = wireFetch({
      maxMessageBytes: options.maxMessageBytes,
      marker: this.inbox.marker,
      onStreamEnd: (reason) => this.streamEnded(reason),
      onSessionRefused: (status, method) => this.sessionRefused(status, method),
      onProblem: (error) => this.onerror?.(error),
      isPending: this.inbox.isPending,
      ...(options.auth ? { onUnauthorized: (challenge: string | null) => options.auth!.unauthorized(challenge) } : {}),
    })
    this.inner = open(options.url, { requestInit: { headers: { ...options.headers } }, fetch, ...(options.authProvider ? { authProvider: options.authProvider } : {}) })
    this.inner.onmessage = (message) => this.inbox.receive(message, this.onmessage)
    this.inner.onclose = () => this.finish()
    this.inner.onerror = (error) => this.onerror?.(error)
  }

  /** The long-lived event stream ended or broke. */
  protected abstract streamEnded(reason: Error): void
  /** A request carrying the session was answered 400 or 404. */
  protected abstract sessionRefused(status: number, method: string): void

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  async start(): Promise<void> {
    try {
      await this.inner.start()
    } catch (error) {
      throw this.loginWanted(error) ?? error
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.inbox.sent(message)
    try {
      await this.inner.send(message, options)
    } catch (error) {
      const failure = this.loginWanted(error) ?? error
      if (failure instanceof ServerUnreachableError) this.lose(failure)
      // After this request has failed with it: closing first would fail it as "connection closed".
      if (failure instanceof AuthRequiredError) setImmediate(() => this.lose(failure))
      throw failure
    }
  }

  close(): Promise<void> {
    this.closing ??= this.inner.close()
    return this.closing
  }

  /** The server, or our session on it, is gone: close, so the owner reconnects. */
  protected lose(reason: Error): void {
    if (this.closing) return
    this.lostBecause = reason
    void this.close()
  }

  /**
   * A 401 on a connection without an OAuth client, from a server that asks for a Bearer token,
   * when the row lets OAuth be used: a login is needed (undefined for anything else).
   */
  private loginWanted(error: unknown): AuthRequiredError | undefined {
    if (error instanceof AuthRequiredError) return error
    const status = (error as { code?: unknown } | null)?.code
    const { auth, authProvider } = this.options
    if (status !== 401 || authProvider || !auth?.challengedForBearer) return undefined
    return auth.needsLogin('no login is stored')
  }

  private finish(): void {
    // The SDK transports report their close twice.
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}
