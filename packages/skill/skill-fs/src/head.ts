import { close, closeSync, constants, open, openSync, read, readSync } from 'node:fs'
import { isUtf8 } from 'node:buffer'
import { notClosedWithin, splitFrontmatter, type Split } from './frontmatter.ts'

/** Most frontmatters close within the first read; a longer one is read on in growing steps. */
const FIRST_READ_BYTES = 2048
const MAX_READ_BYTES = 64 * 1024
/** Like `ctx.fs`: a NUL byte this early means a binary file. */
const BINARY_SNIFF_BYTES = 8 * 1024
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK

/**
 * How the head reads run, like `ctx.fs`'s `io`: `sync` on the event loop (a small local read takes
 * microseconds, a threadpool round trip far longer), `async` on libuv's threadpool (a slow or hung
 * mount then delays only discovery, not the host).
 */
export type HeadIo = 'sync' | 'async'

/** What the start of a skill file gave: its frontmatter split or a reason it is not usable; undefined when the file is gone. */
export type Head = Split | undefined

interface Reads {
  open(path: string): Promise<number> | number
  read(fd: number, buffer: Buffer, position: number): Promise<number> | number
  close(fd: number): void
}

const syncReads: Reads = {
  open: (path) => openSync(path, FLAGS),
  read: (fd, buffer, position) => readSync(fd, buffer, 0, buffer.length, position),
  close: (fd) => closeSync(fd),
}

const asyncReads: Reads = {
  open: (path) => call<number>((done) => open(path, FLAGS, done)),
  read: (fd, buffer, position) => call<number>((done) => read(fd, buffer, 0, buffer.length, position, done)),
  close: (fd) =>
    close(fd, () => {
      // A failed close of a read-only descriptor loses nothing.
    }),
}

/**
 * Reads a file from its start only until its frontmatter closes (usually one small read), so a body
 * is never read or decoded at discovery. `size` is what a stat just saw; reading stops there. The
 * bytes are decoded here rather than by `ctx.fs`, whose text streams read 64 KB chunks and drop a
 * leading byte-order mark that must be seen to be rejected. Undefined when the file is gone; any
 * other I/O error throws.
 */
export async function readHead(path: string, size: number, maxFrontmatterBytes: number, io: HeadIo): Promise<Head> {
  const reads = io === 'sync' ? syncReads : asyncReads
  let fd: number
  try {
    fd = await reads.open(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
  try {
    let head: Buffer = Buffer.allocUnsafe(Math.min(size, FIRST_READ_BYTES))
    let offset = 0
    while (offset < size) {
      if (offset === head.length) head = grow(head, Math.min(size, offset + Math.min(MAX_READ_BYTES, offset)))
      const bytes = await reads.read(fd, head.subarray(offset), offset)
      if (bytes === 0) break
      if (offset < BINARY_SNIFF_BYTES && head.subarray(offset, Math.min(offset + bytes, BINARY_SNIFF_BYTES)).includes(0)) return NOT_TEXT
      offset += bytes
      const final = offset >= size
      const text = textOf(head.subarray(0, final ? offset : wholeCharacters(head.subarray(0, offset))))
      if (text === undefined) return NOT_TEXT
      const split = splitFrontmatter(text, final, maxFrontmatterBytes)
      if (split) return split
      if (offset > maxFrontmatterBytes) return notClosedWithin(maxFrontmatterBytes)
    }
    // The file shrank since the stat: what there is decides.
    const text = textOf(head.subarray(0, offset))
    return text === undefined ? NOT_TEXT : splitFrontmatter(text, true, maxFrontmatterBytes)
  } finally {
    reads.close(fd)
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

function grow(buffer: Buffer, length: number): Buffer {
  const larger = Buffer.allocUnsafe(length)
  buffer.copy(larger)
  return larger
}

function call<T>(start: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value))))
}
