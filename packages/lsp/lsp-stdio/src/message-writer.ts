import type { Writable } from 'node:stream'
import { AbstractMessageWriter, Message, type MessageWriter, type NotificationMessage } from 'vscode-jsonrpc/node'

/** Bytes before a frame's body for its header: `Content-Length: ` (16), the body's byte count (a JS string's UTF-8 is under 2^31 bytes: at most 10 digits), CRLF CRLF (4). */
const HEADER_ROOM = 30
/** Bodies up to this many UTF-16 units get a buffer for their worst case (3 bytes a unit, 192 KiB at most); longer ones are counted first. */
const WORST_CASE_UNITS = 1 << 16

/**
 * vscode-jsonrpc's MessageWriter for a server's stdin, without its queue. The library's
 * StreamMessageWriter runs every message through a semaphore (a setImmediate turn and about fifteen
 * promises each, three messages per change) and writes the header and the body apart, waiting for
 * the first. A Node stream already keeps writes in order and holds them behind a full pipe, so here
 * each message goes to the pipe in the call that sends it, as one write of its whole frame: the
 * frame the library's writer makes (`Content-Length`, the UTF-8 byte count, and the body its JSON
 * encoder makes: JSON.stringify, UTF-8), byte for byte — tests/message-writer.test.ts compares them.
 * The frame is one Buffer, the body encoded into it once: no UTF-8 length scan before the encoding
 * (the count is what the encoding wrote), no header-plus-body string to join, and nothing left for
 * the stream to encode again (a string chunk is encoded in the write).
 * The reader and the connection stay the library's; write failures reach `onError` as from its writer.
 *
 * A notification (a document's didChange, its didSave) waits, corked, for what follows it in the
 * same pass: the request about the document takes it along in its own write (one writev), and the
 * next tick (`process.nextTick`, once the promise reactions it was written from have drained) sends
 * one that nothing followed. Otherwise each frame is a system call here and a wake-up of the
 * server: three per change, where only the request is one the server answers. A request or a
 * response goes at once, as before: no tick and no wait on a query's path.
 *
 * A request's write resolves once its bytes are written (vscode-jsonrpc rejects the request with a
 * MessageWriteError when they cannot be). A notification's resolves once it is handed to the stream,
 * which keeps it in order before anything written later: nothing waits on its bytes (a document's
 * didChange goes ahead of the request about it, not awaited), so it makes no promise of its own, two
 * per change. A notification that fails to write is reported to `onError` as any write failure is;
 * the connection treats that as the server going (its fatal cause, which every waiter there ends on).
 */
/** What every notification's write answers: handed to the stream, in order (shared; it never rejects). */
export const HANDED: Promise<void> = Promise.resolve()

export class PipeMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0
  /** Notifications corked on the stream, waiting for a request or the tick. */
  private holding = false
  private tickPending = false
  private readonly releaseAtTick = (): void => {
    this.tickPending = false
    this.release()
  }

  /** A notification's write failing: reported as the library's writer reports any (no caller waits on its bytes). */
  private readonly notificationWritten = (error: Error | null | undefined): void => {
    if (error != null) this.fireError(error, undefined, ++this.errorCount)
  }

  constructor(private readonly stream: Writable) {
    super()
    stream.on('error', (error) => this.fireError(error))
    stream.on('close', () => this.fireClose())
  }

  /**
   * A request or response: resolves once the frame's bytes are written (a full pipe makes it wait).
   * A notification: settled at once (see the class), its failure reported to `onError`.
   */
  write(message: Message): Promise<void> {
    if (Message.isNotification(message)) {
      try {
        this.writeNotification(message)
      } catch (error) {
        return Promise.reject(error)
      }
      return HANDED
    }
    let frame: Buffer
    try {
      frame = this.frameOf(message)
    } catch (error) {
      return Promise.reject(error)
    }
    const written = new Promise<void>((resolve, reject) => {
      this.stream.write(frame, (error) => {
        if (error == null) return resolve()
        this.fireError(error, message, ++this.errorCount)
        reject(error)
      })
    })
    this.release()
    return written
  }

  /**
   * A notification handed to the stream in this call, with no promise at all (the connection's path
   * for a document's didChange, didSave, didOpen): corked until the request that follows it or the
   * next tick, its write failure reported to `onError`. Throws (after `onError`) only when the
   * message cannot be framed.
   */
  writeNotification(message: NotificationMessage): void {
    const frame = this.frameOf(message)
    this.hold()
    this.stream.write(frame, this.notificationWritten)
  }

  /** The message's whole frame, as the library's writer makes it; a message JSON cannot encode is reported to `onError` and thrown. */
  private frameOf(message: Message): Buffer {
    try {
      const body = JSON.stringify(message, undefined, 0)
      // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4): room for the
      // worst case, so the body is encoded without counting first; a long body is counted (its
      // worst case would be a large buffer held until the pipe takes it).
      const capacity = body.length <= WORST_CASE_UNITS ? body.length * 3 : Buffer.byteLength(body, 'utf8')
      const frame = Buffer.allocUnsafe(HEADER_ROOM + capacity)
      const length = frame.write(body, HEADER_ROOM, 'utf8')
      const header = `Content-Length: ${length}\r\n\r\n`
      const start = HEADER_ROOM - header.length
      frame.write(header, start, 'latin1')
      return frame.subarray(start, HEADER_ROOM + length)
    } catch (error) {
      this.fireError(error)
      throw error
    }
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
