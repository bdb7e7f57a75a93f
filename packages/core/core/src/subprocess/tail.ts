/** Keeps the last `maxBytes` bytes written to it; reading never splits a UTF-8 character. */
export class ByteTail {
  private chunks: Buffer[] = []
  private size = 0

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    if (this.maxBytes <= 0) return
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size > this.maxBytes && this.chunks.length) {
      const first = this.chunks[0]!
      const excess = this.size - this.maxBytes
      if (first.length <= excess) {
        this.chunks.shift()
        this.size -= first.length
      } else {
        this.chunks[0] = first.subarray(excess)
        this.size -= excess
      }
    }
  }

  text(): string {
    const bytes = Buffer.concat(this.chunks)
    let start = 0
    // Skip continuation bytes (10xxxxxx) left by a cut through a multi-byte character.
    while (start < bytes.length && start < 4 && (bytes[start]! & 0xc0) === 0x80) start++
    return bytes.subarray(start).toString('utf8')
  }
}
