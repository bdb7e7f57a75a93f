import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { errorMessage, sleep } from 'dsh-core'

/** How long closing waits for the server to acknowledge the end of the session (HTTP DELETE). */
const END_SESSION_WAIT_MS = 1000

export interface HttpTransportOptions {
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  /**
   * The server may be gone (a broken event stream): the owner checks with a ping, whose failure
   * this transport then detects itself.
   */
  readonly onSuspect: (reason: Error) => void
}

/**
 * The SDK's Streamable HTTP client transport, made to notice a dead server. The SDK's own transport
 * fires `onclose` only when asked to close; this one closes itself, so the supervisor reconnects
 * with a fresh session, when a request cannot reach the server at all or the server no longer knows
 * the session (HTTP 404 on a request carrying a session id). A broken event stream is reported
 * through `onSuspect`.
 */
export class HttpTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly inner: StreamableHTTPClientTransport
  private closing: Promise<void> | undefined
  private closed = false
  /** Why the transport closed itself, if it did. */
  lostBecause: Error | undefined

  constructor(private readonly options: HttpTransportOptions) {
    this.inner = new StreamableHTTPClientTransport(options.url, { requestInit: { headers: { ...options.headers } } })
    this.inner.onmessage = (message) => this.onmessage?.(message)
    this.inner.onclose = () => this.finish()
    this.inner.onerror = (error) => {
      this.onerror?.(error)
      if (!this.closing && isStreamTrouble(error)) this.options.onSuspect(error)
    }
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
    try {
      // The SDK declares its own options without `| undefined`; they are the same object.
      await this.inner.send(message, options as Parameters<StreamableHTTPClientTransport["send"]>[1])
    } catch (error) {
      const lost = serverGone(error, hadSession)
      if (lost && !this.closing) {
        this.lostBecause = lost
        void this.close()
      }
      throw error
    }
  }

  /** Ends the session (briefly waiting for the server's answer), then stops every request and stream. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.lostBecause) await Promise.race([this.inner.terminateSession().catch(() => {}), sleep(END_SESSION_WAIT_MS)])
      await this.inner.close()
    })()
    return this.closing
  }

  private finish(): void {
    // The SDK transport reports its close twice.
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}

/** Whether a failed request means the server (or our session on it) is gone, and why. */
function serverGone(error: unknown, hadSession: boolean): Error | undefined {
  if (error instanceof StreamableHTTPError && error.code === 404 && hadSession) {
    return new Error(`the server no longer knows the session (HTTP 404): ${error.message}`)
  }
  // undici rejects with `TypeError: fetch failed` (cause: ECONNREFUSED, ECONNRESET, …) when nothing answers.
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error as { cause?: unknown }).cause
    return new Error(`the server cannot be reached: ${cause ? errorMessage(cause) : error.message}`)
  }
  return undefined
}

function isStreamTrouble(error: Error): boolean {
  return /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts/.test(error.message)
}
