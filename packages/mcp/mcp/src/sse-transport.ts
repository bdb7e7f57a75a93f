import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { loginWanted, type HttpTransportOptions } from './http-transport.ts'
import { ServerUnreachableError, WireInbox, wireFetch } from './http-wire.ts'
import { AuthRequiredError } from './oauth/auth-required.ts'

/**
 * The SDK's deprecated HTTP+SSE client transport (protocol 2024-11-05: a GET event stream that
 * names the endpoint to POST to), on the same typed, capped fetch as Streamable HTTP. The event
 * stream is the session: when it ends or breaks, or a POST finds nobody, this transport closes
 * itself so the supervisor reconnects with a fresh one (the SDK's EventSource would quietly reopen
 * the stream into a session that was never initialized).
 */
export class SseTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly inner: SSEClientTransport
  private readonly inbox = new WireInbox()
  private started = false
  private closing: Promise<void> | undefined
  private closed = false
  /** Why the transport closed itself, if it did. */
  lostBecause: Error | undefined

  constructor(private readonly options: HttpTransportOptions) {
    const fetch = wireFetch({
      maxMessageBytes: options.maxMessageBytes,
      marker: this.inbox.marker,
      onStreamEnd: (reason) => {
        if (this.started) this.lose(new ServerUnreachableError(`the server's event stream ended (${reason.message})`))
      },
      // The session id travels in the endpoint's query, not a header: a forgotten session ends the stream instead.
      onSessionRefused: () => {},
      onProblem: (error) => this.onerror?.(error),
      isPending: this.inbox.isPending,
      ...(options.auth ? { onUnauthorized: (challenge: string | null) => options.auth!.unauthorized(challenge) } : {}),
    })
    this.inner = new SSEClientTransport(options.url, {
      requestInit: { headers: { ...options.headers } },
      fetch,
      ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    })
    this.inner.onmessage = (message) => this.inbox.receive(message, this.onmessage)
    this.inner.onclose = () => this.finish()
    this.inner.onerror = (error) => this.onerror?.(error)
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version)
  }

  async start(): Promise<void> {
    try {
      await this.inner.start()
    } catch (error) {
      throw loginWanted(error, this.options) ?? error
    }
    this.started = true
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.inbox.sent(message)
    try {
      await this.inner.send(message)
    } catch (error) {
      const failure = loginWanted(error, this.options) ?? error
      if (failure instanceof ServerUnreachableError) this.lose(failure)
      // After this request has failed with it (closing first would fail it as "connection closed").
      if (failure instanceof AuthRequiredError) setImmediate(() => this.lose(failure))
      throw failure
    }
  }

  close(): Promise<void> {
    this.closing ??= this.inner.close()
    return this.closing
  }

  private lose(reason: Error): void {
    if (this.closing) return
    this.lostBecause = reason
    void this.close()
  }

  private finish(): void {
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}
