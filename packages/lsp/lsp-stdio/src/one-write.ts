import type { Writable } from 'node:stream'

type Listener = (...args: any[]) => void
type Callback = (error?: Error | null) => void

/**
 * The server's stdin as vscode-jsonrpc's StreamMessageWriter sees it, handing each message to the
 * pipe in one write. The writer frames a message as two writes, the ASCII header (a string) and
 * then the body (bytes), and waits for the first before making the second: two system calls, each
 * waking the server, per message. Here the header is held (its write reported done at once) and
 * goes out with the body. The framing stays vscode-jsonrpc's; messages never interleave (its writer
 * serialises them).
 */
export class OneWritePerMessage {
  private header: string | undefined

  constructor(private readonly stream: Writable) {}

  on(event: string, listener: Listener): this {
    this.stream.on(event, listener)
    return this
  }

  off(event: string, listener: Listener): this {
    this.stream.off(event, listener)
    return this
  }

  write(data: string | Uint8Array, encodingOrCallback?: BufferEncoding | Callback, maybeCallback?: Callback): boolean {
    const callback = typeof encodingOrCallback === 'function' ? encodingOrCallback : maybeCallback
    if (typeof data === 'string') {
      this.header = (this.header ?? '') + data
      callback?.()
      return true
    }
    const header = this.header
    this.header = undefined
    const bytes = header === undefined ? data : Buffer.concat([Buffer.from(header, 'ascii'), data])
    return callback ? this.stream.write(bytes, callback) : this.stream.write(bytes)
  }

  end(): void {
    if (this.header !== undefined) this.stream.write(this.header, 'ascii')
    this.header = undefined
    this.stream.end()
  }
}
