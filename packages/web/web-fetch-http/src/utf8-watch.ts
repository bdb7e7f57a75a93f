import { isUtf8 } from 'node:buffer'

/**
 * Whether the bytes of a body, as they stream in chunks, are UTF-8 so far: for a body no BOM,
 * header or `<meta>` labels, read as UTF-8 until a byte says it is not (then it is read again as
 * windows-1252, body.ts). Its first bytes alone could not tell: a Latin-1 file whose first accented
 * letter was past byte 1,024 read as UTF-8, every accented letter U+FFFD. Linear: `isUtf8` over each
 * chunk once, and a character split between two chunks checked on its own few bytes.
 */
export class Utf8Watch {
  /** The bytes of a character the last chunk ended inside (1 to 3), waiting for the rest. */
  private tail: Buffer | undefined
  private valid = true

  /** Takes the next chunk; false once the bytes so far are not UTF-8 (and from then on). */
  push(chunk: Uint8Array): boolean {
    if (!this.valid) return false
    let rest = chunk
    if (this.tail) {
      const need = sequenceLength(this.tail[0]!) - this.tail.byteLength
      if (rest.byteLength < need) {
        this.tail = Buffer.concat([this.tail, rest])
        return true
      }
      const joined = Buffer.concat([this.tail, rest.subarray(0, need)])
      this.tail = undefined
      if (!isUtf8(joined)) return (this.valid = false)
      rest = rest.subarray(need)
    }
    const open = openSequence(rest)
    if (!isUtf8(rest.subarray(0, rest.byteLength - open))) return (this.valid = false)
    if (open) this.tail = Buffer.from(rest.subarray(rest.byteLength - open))
    return true
  }

  /** Whether the whole body was UTF-8: no character left unfinished at its end. */
  ended(): boolean {
    return this.valid && !this.tail
  }
}

/** The length a lead byte says its sequence has; 1 for a byte that leads none (the check then fails on it). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2
  if (lead >= 0xe0 && lead <= 0xef) return 3
  if (lead >= 0xf0 && lead <= 0xf4) return 4
  return 1
}

/** How many bytes at the end of `bytes` begin a character they do not finish (0 to 3). */
function openSequence(bytes: Uint8Array): number {
  const end = bytes.byteLength
  for (let back = 1; back <= 3 && back <= end; back++) {
    const byte = bytes[end - back]!
    if (byte >= 0x80 && byte <= 0xbf) continue
    return sequenceLength(byte) > back ? back : 0
  }
  return 0
}
