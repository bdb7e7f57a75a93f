export interface LineSink {
  /** One complete line (its `\r` ending dropped); blank lines are not delivered. */
  line(text: string): void
  /** A line longer than the limit was skipped as it streamed in; `head` and `tail` are its first and last bytes. */
  oversized(bytes: number, head: string, tail: string): void
}

export interface LineReaderOptions {
  /** The longest line read whole. */
  readonly maxBytes: number
  /** How much of the start of an over-long line is kept (where a JSON-RPC id or method usually is). Default 4096. */
  readonly headBytes?: number
  /** How much of its end is kept (where the TypeScript SDK writes the id). Default 256. */
  readonly tailBytes?: number
}

/**
 * Newline-delimited framing with a per-line cap, for both ends of a stdio JSON-RPC connection. A
 * line over `maxBytes` is skipped to its end, never buffered whole, with its edges kept: one huge
 * message costs neither the memory it would take nor the connection, and the next line is read as
 * usual. The pieces of a long line are joined once, at its end.
 */
export class LineReader {
  private parts: Buffer[] = []
  private size = 0
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined
  private readonly headBytes: number
  private readonly tailBytes: number

  constructor(
    private readonly options: LineReaderOptions,
    private readonly sink: LineSink,
  ) {
    this.headBytes = options.headBytes ?? 4096
    this.tailBytes = options.tailBytes ?? 256
  }

  push(chunk: Buffer): void {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start)
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline))
      if (newline < 0) return
      this.end()
      start = newline + 1
    }
  }

  /** Forgets a line read in part (the connection is gone). */
  clear(): void {
    this.parts = []
    this.size = 0
    this.skipping = undefined
  }

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.bytes += piece.length
      this.skipping.tail = this.lastBytes(Buffer.concat([this.skipping.tail, this.lastBytes(piece)]))
      return
    }
    if (this.size + piece.length <= this.options.maxBytes) {
      this.parts.push(piece)
      this.size += piece.length
      return
    }
    const seen = Buffer.concat([...this.parts, piece])
    // Copies: the edges outlive the chunks they were cut from.
    this.skipping = { bytes: seen.length, head: Buffer.from(seen.subarray(0, this.headBytes)), tail: Buffer.from(this.lastBytes(seen)) }
    this.parts = []
    this.size = 0
  }

  private end(): void {
    const skipped = this.skipping
    if (skipped) {
      this.skipping = undefined
      this.sink.oversized(skipped.bytes, withoutCarriageReturn(skipped.head.toString('utf8')), withoutCarriageReturn(skipped.tail.toString('utf8')))
      return
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size)
    this.parts = []
    this.size = 0
    const text = withoutCarriageReturn(line.toString('utf8'))
    if (text.trim()) this.sink.line(text)
  }

  private lastBytes(buffer: Buffer): Buffer {
    return buffer.length > this.tailBytes ? buffer.subarray(buffer.length - this.tailBytes) : buffer
  }
}

function withoutCarriageReturn(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text
}
