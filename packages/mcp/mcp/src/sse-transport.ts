import { SSEClientTransport } from '@modelcontextprotocol/client'
import { ServerUnreachableError } from './http-wire.ts'
import { RemoteTransport, type RemoteTransportOptions } from './remote-transport.ts'

/**
 * The SDK's deprecated HTTP+SSE client transport (protocol 2024-11-05: a GET event stream that
 * names the endpoint to POST to), on the same typed, capped fetch as Streamable HTTP
 * (remote-transport.ts). The event stream is the session: when it ends or breaks, or a POST finds
 * nobody, this transport closes itself so the supervisor reconnects with a fresh one (the SDK's
 * EventSource would quietly reopen the stream into a session that was never initialized).
 */
export class SseTransport extends RemoteTransport<SSEClientTransport> {
  private started = false

  constructor(options: RemoteTransportOptions) {
    super(options, (url, sdk) => new SSEClientTransport(url, sdk))
  }

  override async start(): Promise<void> {
    await super.start()
    this.started = true
  }

  protected streamEnded(reason: Error): void {
    if (this.started) this.lose(new ServerUnreachableError(`the server's event stream ended (${reason.message})`))
  }

  /** The session id travels in the endpoint's query, not a header: a forgotten session ends the stream instead. */
  protected sessionRefused(): void {}
}
