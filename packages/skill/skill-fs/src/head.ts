import { isUtf8 } from 'node:buffer'
import type { FileSystem } from 'dsh-core'
import { notClosedWithin, splitFrontmatter, type Split } from './frontmatter.ts'
import { absent } from './problems.ts'

/** Most frontmatters close within the first read; a longer one is read again, to twice as far each time. */
const FIRST_READ_BYTES = 2048
/** Like `ctx.fs`: a NUL byte this early means a binary file. */
const BINARY_SNIFF_BYTES = 8 * 1024

/** What the start of a skill file gave: its frontmatter split or a reason it is not usable; undefined when the file is gone. */
export type Head = Split | undefined

/**
 * Reads a file from its start only until its frontmatter closes (usually one small read, through
 * `ctx.fs.readHead`), so a body is never read or decoded at discovery. The bytes are decoded here,
 * not by `ctx.fs`'s text streams, which drop a leading byte-order mark that must be seen to be
 * rejected. Undefined when the file is gone; any other I/O error throws (an `FsError`).
 */
export async function readHead(fs: FileSystem, path: string, size: number, maxFrontmatterBytes: number): Promise<Head> {
  // One byte past the limit tells a frontmatter that closes exactly at it from one that does not.
  const limit = maxFrontmatterBytes + 1
  for (let want = Math.min(Math.max(size, 1), FIRST_READ_BYTES, limit); ; want = Math.min(Math.max(want * 2, FIRST_READ_BYTES), limit)) {
    let head
    try {
      head = await fs.readHead(path, { maxBytes: want })
    } catch (error) {
      if (absent(error)) return undefined
      throw error
    }
    const { bytes, complete } = head
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return NOT_TEXT
    const text = textOf(complete ? bytes : bytes.subarray(0, wholeCharacters(bytes)))
    if (text === undefined) return NOT_TEXT
    const split = splitFrontmatter(text, complete, maxFrontmatterBytes)
    if (split) return split
    if (bytes.length >= limit) return notClosedWithin(maxFrontmatterBytes)
  }
}

/** Invalid UTF-8 or a NUL byte, wherever it is found: in the part discovery reads, or at load. */
export const NOT_TEXT_REASON = 'the file is not UTF-8 text'
const NOT_TEXT = { ok: false, reason: NOT_TEXT_REASON } as const

// Validating and decoding ourselves (simdutf behind both calls) costs a fifth of a fatal TextDecoder
// made per file, and keeps a leading byte-order mark in the text.
function textOf(bytes: Buffer): string | undefined {
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined
}

/** The length of the longest prefix of `bytes` that does not end inside a multi-byte character. */
function wholeCharacters(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!
    // A continuation byte (10xxxxxx): the character's lead byte is further back.
    if ((byte & 0xc0) === 0x80) continue
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return length > back ? bytes.length - back : bytes.length
  }
  return bytes.length
}
