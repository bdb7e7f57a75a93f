import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { settlesWithin } from 'dsh-core'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { ServerUnreachableError, WireInbox, wireFetch } from './http-wire.ts'
import { AuthRequiredError } from './oauth/auth-required.ts'
import type { OAuthSession } from './oauth/session.ts'

/** How long closing waits for the server to acknowledge the end of the session (HTTP DELETE). */
const END_SESSION_WAIT_MS = 1000

export interface HttpTransportOptions {
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly maxMessageBytes: number
  /**
   * The server may be gone (its event stream ended): the owner checks with a ping, whose failure
   * this transport then detects itself.
   */
  readonly onSuspect: (reason: Error) => void
  /** The SDK's OAuth client for this connection (tokens, refresh, the flow after a 401), when the row uses OAuth. */
  readonly authProvider?: OAuthClientProvider | undefined
  /** The row's OAuth state: told about 401s; without `authProvider`, a Bearer challenge means a login is needed. */
  readonly auth?: OAuthSession | undefined
}

/**
 * A request was refused because the server no longer knows our session (HTTP 400 or 404 to a
 * request carrying its id): it was not delivered, so it may be sent again on a fresh session.
 */
export class SessionGoneError extends Error {
  constructor(
    readonly status: number,
    options?: { cause: unknown },
  ) {
    super(`the server no longer knows the session (HTTP ${status})`, options)
  }
}

/**
 * The SDK's Streamable HTTP client transport, on a fetch that types its failures (http-wire.ts), and
 * made to notice a dead server. The SDK's own transport fires `onclose` only when asked to close;
 * this one closes itself, so the supervisor reconnects with a fresh session, when nothing answers a
 * request or the server no longer knows the session (HTTP 400/404 to a request carrying its id,
 * server-everything answers 400). A broken event stream is reported through `onSuspect`.
 */
export class HttpTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly inner: StreamableHTTPClientTransport
  private readonly inbox = new WireInbox()
  private closing: Promise<void> | undefined
  private closed = false
  /** Why the transport closed itself, if it did: the session is gone (`SessionGoneError`), nothing answers (`ServerUnreachableError`). */
  lostBecause: Error | undefined

  constructor(private readonly options: HttpTransportOptions) {
    const fetch = wireFetch({
      maxMessageBytes: options.maxMessageBytes,
      marker: this.inbox.marker,
      onStreamEnd: (reason) => {
        if (!this.closing) options.onSuspect(reason)
      },
      // A refused POST fails its own request (send, below); a refused stream or notification only tells.
      onSessionRefused: (status, method) => method !== 'POST' && this.lose(new SessionGoneError(status)),
      onProblem: (error) => this.onerror?.(error),
      isPending: this.inbox.isPending,
      ...(options.auth ? { onUnauthorized: (challenge: string | null) => options.auth!.unauthorized(challenge) } : {}),
    })
    this.inner = new StreamableHTTPClientTransport(options.url, {
      requestInit: { headers: { ...options.headers } },
      fetch,
      ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    })
    this.inner.onmessage = (message) => this.inbox.receive(message, this.onmessage)
    this.inner.onclose = () => this.finish()
    this.inner.onerror = (error) => this.onerror?.(error)
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version)
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const hadSession = this.inner.sessionId !== undefined
    this.inbox.sent(message)
    try {
      // The SDK declares its own options without `| undefined`; they are the same object.
      await this.inner.send(message, options as Parameters<StreamableHTTPClientTransport['send']>[1])
    } catch (error) {
      if (hadSession && error instanceof StreamableHTTPError && (error.code === 400 || error.code === 404)) {
        const gone = new SessionGoneError(error.code, { cause: error })
        // After this request has failed with it: closing first would fail it as "connection closed",
        // and it could no longer be told apart from a request the server did receive.
        setImmediate(() => this.lose(gone))
        throw gone
      }
      if (error instanceof ServerUnreachableError) this.lose(error)
      const login = error instanceof AuthRequiredError ? error : loginWanted(error, this.options)
      if (login) {
        // After this request has failed with it (closing first would fail it as "connection closed").
        setImmediate(() => this.lose(login))
        throw login
      }
      throw error
    }
  }

  /** Ends the session (briefly waiting for the server's answer), then stops every request and stream. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.lostBecause) await settlesWithin(this.inner.terminateSession(), END_SESSION_WAIT_MS)
      await this.inner.close()
    })()
    return this.closing
  }

  /** The server or our session on it is gone: close, so the owner reconnects. */
  private lose(reason: Error): void {
    if (this.closing) return
    this.lostBecause = reason
    void this.close()
  }

  private finish(): void {
    // The SDK transport reports its close twice.
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}

/**
 * A 401 on a connection without an OAuth client, from a server that asks for a Bearer token, when
 * the row lets OAuth be used: a login is needed (undefined for anything else).
 */
export function loginWanted(error: unknown, options: Pick<HttpTransportOptions, 'auth' | 'authProvider'>): AuthRequiredError | undefined {
  const status = (error as { code?: unknown } | null)?.code
  if (status !== 401 || options.authProvider || !options.auth?.challengedForBearer) return undefined
  return options.auth.needsLogin('no login is stored')
}
