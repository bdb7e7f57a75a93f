import { AbstractMessageReader, Disposable, type DataCallback, type Message, type MessageReader, type RAL } from 'vscode-jsonrpc/node'

const TERMINATOR = Buffer.from('\r\n\r\n', 'ascii')
const LENGTH_PREFIX = 'Content-Length: '
const EMPTY = Buffer.alloc(0)

/**
 * The message reader behind a `FrameGuard`: the guard hands on only canonical frames (`Content-Length:
 * N`, a blank line, N bytes of body), so each message is cut out and parsed in the call that read
 * its last byte, and handed to the connection at once, in order. vscode-jsonrpc's
 * `ReadableStreamMessageReader` parsed every header block again into a map and decoded each body
 * through a semaphore and two promises of its own, on every message of every server (a warm query's
 * answer included); its partial-message notice (a log line nobody reads here) is not kept.
 *
 * A body that is not JSON is an error of the reader (`onError`), as vscode-jsonrpc's decoder's
 * rejection was: the connection then fails the transport with LSP_PROTOCOL_ERROR.
 */
export class FrameReader extends AbstractMessageReader implements MessageReader {
  /** Bytes of an unfinished frame (its header, or its header's end and part of its body). */
  private pending: Buffer = EMPTY
  /** The current frame's body length once its header is read; -1 while reading a header. */
  private bodyLength = -1
  /** Set once a frame could not be read: nothing after it is. */
  private broken = false

  constructor(private readonly frames: RAL.ReadableStream) {
    super()
  }

  listen(callback: DataCallback): Disposable {
    const data = this.frames.onData((chunk) => this.read(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), callback))
    const error = this.frames.onError((cause) => this.fireError(cause))
    const close = this.frames.onClose(() => this.fireClose())
    return Disposable.create(() => {
      data.dispose()
      error.dispose()
      close.dispose()
    })
  }

  private read(chunk: Buffer, callback: DataCallback): void {
    if (this.broken) return
    const buffer = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk
    let offset = 0
    try {
      while (offset < buffer.length) {
        if (this.bodyLength < 0) {
          const end = buffer.indexOf(TERMINATOR, offset)
          if (end < 0) break
          this.bodyLength = lengthOf(buffer.toString('latin1', offset, end))
          offset = end + TERMINATOR.length
        }
        if (buffer.length - offset < this.bodyLength) break
        const body = buffer.toString('utf8', offset, offset + this.bodyLength)
        offset += this.bodyLength
        this.bodyLength = -1
        callback(JSON.parse(body) as Message)
      }
    } catch (error) {
      // Nothing more is read from a stream that broke the framing: the connection ends it.
      this.broken = true
      this.pending = EMPTY
      this.fireError(error)
      return
    }
    // Kept as a copy when it is a slice of the chunk: only this tail is needed.
    this.pending = offset >= buffer.length ? EMPTY : buffer === chunk ? Buffer.from(buffer.subarray(offset)) : buffer.subarray(offset)
  }
}

/** The body length of a canonical header block (FrameGuard writes no other). */
function lengthOf(header: string): number {
  const length = header.startsWith(LENGTH_PREFIX) ? Number(header.slice(LENGTH_PREFIX.length)) : Number.NaN
  if (!Number.isSafeInteger(length) || length < 0) throw new Error(`not a canonical LSP header: ${JSON.stringify(header.slice(0, 80))}`)
  return length
}
