/** How many bytes of an oversized line are kept from each end (enough for its `id`). */
const EDGE_BYTES = 256

export interface LineSink {
  line(text: string): void
  /** A line longer than the limit was skipped; `head` and `tail` are its first and last bytes. */
  oversized(bytes: number, head: string, tail: string): void
}

/**
 * Newline-delimited framing with a per-message cap. A line over `maxBytes` is skipped to its end
 * (its edges kept), so one huge message costs neither the memory it would take nor the connection:
 * the next line is read as usual. Chunks of a long line are joined once, at its end.
 */
export class LineReader {
  private parts: Buffer[] = []
  private size = 0
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined

  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      if (newline === -1) {
        if (start < chunk.length) this.take(chunk.subarray(start))
        return
      }
      this.take(chunk.subarray(start, newline))
      this.end()
      start = newline + 1
    }
  }

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.bytes += piece.length
      this.skipping.tail = lastBytes(Buffer.concat([this.skipping.tail, lastBytes(piece)]))
      return
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece)
      this.size += piece.length
      return
    }
    const seen = Buffer.concat([...this.parts, piece])
    this.skipping = { bytes: seen.length, head: seen.subarray(0, EDGE_BYTES), tail: lastBytes(seen) }
    this.parts = []
    this.size = 0
  }

  private end(): void {
    const skipped = this.skipping
    if (skipped) {
      this.skipping = undefined
      this.sink.oversized(skipped.bytes, skipped.head.toString('utf8'), skipped.tail.toString('utf8'))
      return
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size)
    this.parts = []
    this.size = 0
    const text = line.toString('utf8').replace(/\r$/, '')
    if (text.trim()) this.sink.line(text)
  }

  clear(): void {
    this.parts = []
    this.size = 0
    this.skipping = undefined
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length > EDGE_BYTES ? buffer.subarray(buffer.length - EDGE_BYTES) : buffer
}
