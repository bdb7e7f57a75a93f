import { SdkHttpError, StreamableHTTPClientTransport, type JSONRPCMessage, type TransportSendOptions } from '@modelcontextprotocol/client'
import { Lifetime } from 'dsh-core'
import { RemoteTransport, type RemoteTransportOptions } from './remote-transport.ts'

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
 * The SDK's Streamable HTTP client transport, made to notice a dead server (remote-transport.ts).
 * The SDK's own transport fires `onclose` only when asked to close; this one closes itself, so the
 * supervisor reconnects with a fresh session, when nothing answers a request or the server no
 * longer knows the session (HTTP 400/404 to a request carrying its id, server-everything answers
 * 400). A broken event stream is reported through `onSuspect`: the owner checks with a ping.
 */
export class HttpTransport extends RemoteTransport<StreamableHTTPClientTransport> {
  constructor(
    options: RemoteTransportOptions,
    /** How long closing waits for the server to acknowledge the end of the session (the row's `endSessionWaitMs`). */
    private readonly endSessionWaitMs: number,
  ) {
    super(options, (url, sdk) => new StreamableHTTPClientTransport(url, sdk))
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  protected streamEnded(reason: Error): void {
    if (!this.closing) this.options.onSuspect(reason)
  }

  /** A refused POST fails its own request (send, below); a refused stream or notification only tells. */
  protected sessionRefused(status: number, method: string): void {
    if (method !== 'POST') this.lose(new SessionGoneError(status))
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const hadSession = this.inner.sessionId !== undefined
    try {
      await super.send(message, options)
    } catch (error) {
      if (hadSession && error instanceof SdkHttpError && (error.status === 400 || error.status === 404)) {
        const gone = new SessionGoneError(error.status, { cause: error })
        // After this request has failed with it: closing first would fail it as "connection closed",
        // and it could no longer be told apart from a request the server did receive.
        setImmediate(() => this.lose(gone))
        throw gone
      }
      throw error
    }
  }

  /** Ends the session (briefly waiting for the server's answer), then stops every request and stream. */
  override close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.lostBecause) await Lifetime.run({}, (waiting) => waiting.within(this.inner.terminateSession(), this.endSessionWaitMs))
      await this.inner.close()
    })()
    return this.closing
  }
}
