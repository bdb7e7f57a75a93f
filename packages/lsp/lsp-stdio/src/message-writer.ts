import type { Writable } from 'node:stream'
import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-jsonrpc/node'

/**
 * vscode-jsonrpc's MessageWriter for a server's stdin, without its queue. The library's
 * StreamMessageWriter runs every message through a semaphore (a setImmediate turn and about fifteen
 * promises each, three messages per change) and writes the header and the body apart, waiting for
 * the first. A Node stream already keeps writes in order and holds them behind a full pipe, so here
 * each message goes to the pipe in the call that sends it, as one write of its whole frame: the
 * frame the library's writer makes (`Content-Length`, the UTF-8 byte count, and the body its JSON
 * encoder makes: JSON.stringify, UTF-8), byte for byte — tests/message-writer.test.ts compares them.
 * The reader and the connection stay the library's; write failures reach `onError` as from its writer.
 */
export class PipeMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0

  constructor(private readonly stream: Writable) {
    super()
    stream.on('error', (error) => this.fireError(error))
    stream.on('close', () => this.fireClose())
  }

  /** Resolves once the frame's bytes are written (a full pipe makes it wait). */
  write(message: Message): Promise<void> {
    let frame: string
    try {
      const body = JSON.stringify(message, undefined, 0)
      frame = `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`
    } catch (error) {
      this.fireError(error)
      return Promise.reject(error)
    }
    return new Promise((resolve, reject) => {
      this.stream.write(frame, 'utf8', (error) => {
        if (error == null) return resolve()
        this.fireError(error, message, ++this.errorCount)
        reject(error)
      })
    })
  }

  end(): void {
    this.stream.end()
  }
}
