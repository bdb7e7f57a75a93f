import type { Writable } from 'node:stream'
import { AbstractMessageWriter, Message, type MessageWriter } from 'vscode-jsonrpc/node'

/**
 * vscode-jsonrpc's MessageWriter for a server's stdin, without its queue. The library's
 * StreamMessageWriter runs every message through a semaphore (a setImmediate turn and about fifteen
 * promises each, three messages per change) and writes the header and the body apart, waiting for
 * the first. A Node stream already keeps writes in order and holds them behind a full pipe, so here
 * each message goes to the pipe in the call that sends it, as one write of its whole frame: the
 * frame the library's writer makes (`Content-Length`, the UTF-8 byte count, and the body its JSON
 * encoder makes: JSON.stringify, UTF-8), byte for byte — tests/message-writer.test.ts compares them.
 * The reader and the connection stay the library's; write failures reach `onError` as from its writer.
 *
 * A notification (a document's didChange, its didSave) waits, corked, for what follows it in the
 * same pass: the request about the document takes it along in its own write (one writev), and the
 * next tick (`process.nextTick`, once the promise reactions it was written from have drained) sends
 * one that nothing followed. Otherwise each frame is a system call here and a wake-up of the
 * server: three per change, where only the request is one the server answers. A request or a
 * response goes at once, as before: no tick and no wait on a query's path.
 */
export class PipeMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0
  /** Notifications corked on the stream, waiting for a request or the tick. */
  private holding = false
  private tickPending = false
  private readonly releaseAtTick = (): void => {
    this.tickPending = false
    this.release()
  }

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
    const notification = Message.isNotification(message)
    if (notification) this.hold()
    const written = new Promise<void>((resolve, reject) => {
      this.stream.write(frame, 'utf8', (error) => {
        if (error == null) return resolve()
        this.fireError(error, message, ++this.errorCount)
        reject(error)
      })
    })
    if (!notification) this.release()
    return written
  }

  private hold(): void {
    if (this.holding) return
    this.holding = true
    this.stream.cork()
    if (this.tickPending) return
    this.tickPending = true
    process.nextTick(this.releaseAtTick)
  }

  private release(): void {
    if (!this.holding) return
    this.holding = false
    this.stream.uncork()
  }

  end(): void {
    this.stream.end()
  }
}
