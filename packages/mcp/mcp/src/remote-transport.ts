import { UnauthorizedError, type FetchLike, type JSONRPCMessage, type OAuthClientProvider, type RequestId, type Transport, type TransportSendOptions } from '@modelcontextprotocol/client'
import { z } from 'zod'
import { zodReason } from './classify.ts'
import type { HttpConnections } from './http-connections.ts'
import { sendingMessage, ServerUnreachableError, wireFetch, type OversizedBodyError } from './http-wire.ts'
import { McpError } from './errors.ts'
import { AuthRequiredError, credentialRejected } from './oauth/auth-required.ts'
import type { OAuthSession } from './oauth/session.ts'
import { deliverInOrder, faultAnswer, fromPeer, PendingRequests, type Fault } from './wire.ts'

export interface RemoteTransportOptions {
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly maxMessageBytes: number
  /** The transport's own connection pool (http-connections.ts); closed when the transport closes. */
  readonly connections: HttpConnections
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
  /** Requests sent and not yet answered (read by a call that needs its request's id, call.ts). */
  readonly pending = new PendingRequests()
  /** Requests whose POST was answered with an event stream (what the SDK cannot parse there is theirs), and what ends that stream. */
  private readonly streamed = new Map<RequestId, () => void>()
  /** Errors a send rejected with (see `innerError`). */
  private readonly failedSends = new WeakSet<Error>()
  protected closing: Promise<void> | undefined
  private closed = false
  /** The latest request nothing answered (see `start`). */
  private unreachable: ServerUnreachableError | undefined
  /** Why the transport closed itself, if it did (`ServerUnreachableError`, `AuthRequiredError`, `MCP_CREDENTIAL_REJECTED`, a lost session). */
  lostBecause: Error | undefined

  constructor(
    protected readonly options: RemoteTransportOptions,
    open: (url: URL, sdk: SdkRemoteOptions) => Inner,
  ) {
    const fetch = wireFetch({
      maxMessageBytes: options.maxMessageBytes,
      onStreamEnd: (reason) => this.streamEnded(reason),
      onSessionRefused: (status, method) => this.sessionRefused(status, method),
      onOversizedEvent: (request, error) => this.oversizedEvent(request, error),
      onEventStream: (request, stop) => this.streamed.set(request, stop),
      onUnreachable: (error) => (this.unreachable = error),
      ...(options.auth
        ? {
            onUnauthorized: (challenge: string | null, sent: string | null, again: boolean) => options.auth!.unauthorized(challenge, sent, again),
            onInsufficientScope: (scope: string | undefined, sent: string | null, again: boolean) => options.auth!.insufficientScope(scope, sent, again),
          }
        : {}),
    }, options.connections.fetch)
    this.inner = open(options.url, { requestInit: { headers: { ...options.headers } }, fetch, ...(options.authProvider ? { authProvider: options.authProvider } : {}) })
    this.inner.onmessage = (message) => this.receive(message)
    this.inner.onclose = () => this.finish()
    this.inner.onerror = (error) => this.innerError(error)
  }

  /**
   * Ends the event stream the server answers request `id` on, closing its connection: on a
   * 2026-07-28 connection that is how a request is cancelled (the SDK aborts its own requests so).
   * False when the request has no stream of its own (any more).
   */
  stopEventStream(id: RequestId): boolean {
    const stop = this.streamed.get(id)
    if (!stop) return false
    this.streamed.delete(id)
    this.pending.forget(id)
    stop()
    return true
  }

  /** Whether the SDK transport opens one HTTP request per JSON-RPC request (Streamable HTTP). */
  get hasPerRequestStream(): boolean {
    return (this.inner as { hasPerRequestStream?: boolean }).hasPerRequestStream === true
  }

  private receive(message: JSONRPCMessage): void {
    const stray = this.pending.stray(message)
    if (stray) return this.onerror?.(stray)
    this.pending.answered(message)
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.streamed.delete(message.id)
    deliverInOrder(this.onmessage, fromPeer(message))
  }

  /** Answers a request the server answered unusably, so it fails now instead of at its deadline. */
  private answerItself(id: RequestId, fault: Fault): void {
    this.streamed.delete(id)
    if (!this.pending.has(id)) return
    const answer = faultAnswer(id, fault)
    this.pending.answered(answer)
    deliverInOrder(this.onmessage, answer)
  }

  private oversizedEvent(request: RequestId | undefined, error: OversizedBodyError): void {
    this.onerror?.(new Error(`${error.message}; ${request === undefined ? 'the event stream was dropped' : 'its request is answered with this error'}`))
    if (request !== undefined) this.answerItself(request, { kind: 'oversized', bytes: error.bytes, limit: error.limit })
  }

  /**
   * What the SDK reports: an event of a POST's stream it could not parse (not JSON, or refused by
   * the message schema) belongs to that POST's request, which the SDK would leave waiting.
   */
  private innerError(error: Error): void {
    // A refused credential or a login that is needed, reported here, may be the standalone GET
    // stream's (the SDK opens it, and opens it again, on its own; nothing awaits it): it takes the
    // same path as a POST's (send, below), closing the connection with it. A POST's own 401 gets
    // here first and is then its send's failure, which closes with the same reason.
    const refused = this.refusal(error)
    if (refused) {
      setImmediate(() => this.lose(refused))
      this.onerror?.(error)
      return
    }
    // The SDK reports a POST's failure here and then rejects its send with the same error. A server
    // found unreachable by a request is that request's failure (and closes the transport, below):
    // said once, by whoever waited for it, not also as a transport error. Told apart after the
    // send's rejection has been seen (the SDK calls this first); anything else is passed on.
    if (error instanceof ServerUnreachableError && sendingMessage.getStore() !== undefined) {
      setImmediate(() => {
        if (!this.failedSends.has(error)) this.onerror?.(error)
      })
      return
    }
    const unparsable = error instanceof SyntaxError || error instanceof z.core.$ZodError
    // On a POST's stream, that POST's request. Elsewhere (the standalone GET stream, where the
    // SDK's own server sends an answer it cannot encode) only the one request waiting, if just one is.
    const posted = sendingMessage.getStore()?.id
    // (A JSON answer the SDK cannot parse fails its send, and so its request, already.)
    const request = posted !== undefined ? (this.streamed.has(posted) ? posted : undefined) : this.pending.only()
    if (unparsable && request !== undefined) {
      const problem = error instanceof z.core.$ZodError ? `a message the MCP schema refuses (${zodReason(error)})` : 'an event that is not JSON'
      this.answerItself(request, { kind: 'malformed', problem })
    }
    this.onerror?.(error)
  }

  /** The long-lived event stream ended or broke. */
  protected abstract streamEnded(reason: Error): void
  /** A request carrying the session was answered 400 or 404. */
  protected abstract sessionRefused(status: number, method: string): void

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  async start(): Promise<void> {
    this.unreachable = undefined
    try {
      await this.inner.start()
    } catch (error) {
      // A start that found nobody fails with that (the SSE transport's EventSource turns it into
      // 'SSE error: Error: …: TypeError: fetch failed: …', words around words).
      throw this.authFailure(error) ?? this.unreachable ?? error
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.pending.sent(message, options)
    const id = 'method' in message && 'id' in message ? message.id : undefined
    try {
      await sendingMessage.run({ id, method: 'method' in message ? message.method : undefined }, () => this.inner.send(message, options))
    } catch (error) {
      // A request whose send failed gets no answer: it is no longer waiting for one.
      if (id !== undefined) this.pending.forget(id)
      if (error instanceof ServerUnreachableError) this.failedSends.add(error)
      const failure = this.authFailure(error) ?? error
      // After this request has failed with it: closing first would fail it as "connection closed"
      // (and a version probe would hear "closed" instead of "unreachable").
      const lost = failure instanceof ServerUnreachableError ? failure : this.refusal(failure)
      if (lost) setImmediate(() => this.lose(lost))
      throw failure
    }
  }

  close(): Promise<void> {
    this.closing ??= this.inner.close()
    return this.closing
  }

  /** The close took longer than the row's `closeTimeoutMs`: drop every connection and report closed. */
  abandon(): void {
    this.finish()
  }

  /** The server, or our session on it, is gone: close, so the owner reconnects. */
  protected lose(reason: Error): void {
    if (this.closing) return
    this.lostBecause = reason
    void this.close()
  }

  /**
   * A 401 on a connection without an OAuth client: from a server that asks for a Bearer token,
   * when the row lets OAuth be used, a login is needed; else the server refused the row's
   * credential (none, or the wrong one), which no login mends (`MCP_CREDENTIAL_REJECTED`).
   * Undefined for anything else (with an OAuth client, its provider decides: oauth/session.ts).
   */
  private authFailure(error: unknown): AuthRequiredError | McpError | undefined {
    if (error instanceof AuthRequiredError) return error
    const status = (error as { status?: unknown } | null)?.status
    const { auth, authProvider } = this.options
    if (!(status === 401 || error instanceof UnauthorizedError) || authProvider) return undefined
    if (!auth) return credentialRejected('and this row does not use OAuth (it sets Authorization itself, or oauth: false)')
    return auth.challengedForBearer ? auth.needsLogin('no login is stored') : credentialRejected('without an OAuth challenge')
  }

  /**
   * The refusal a failure is for the whole connection, if it is one: a refused credential or a
   * login that is needed (the supervisor waits for a reload or a login). A step-up fails only its
   * request: the connection serves the rest.
   */
  private refusal(error: unknown): AuthRequiredError | McpError | undefined {
    const failure = this.authFailure(error) ?? error
    if (failure instanceof AuthRequiredError) return failure.stepUpScope === undefined ? failure : undefined
    return failure instanceof McpError && failure.code === 'MCP_CREDENTIAL_REJECTED' ? failure : undefined
  }

  private finish(): void {
    // The SDK transports report their close twice.
    if (this.closed) return
    this.closed = true
    void this.options.connections.close().catch(() => {})
    this.onclose?.()
  }
}
