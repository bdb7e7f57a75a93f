import { close, closeSync, constants, open, openSync, read, readSync } from 'node:fs'
import { TextDecoder } from 'node:util'
import { splitFrontmatter, type Split } from './frontmatter.ts'

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
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
    let text = ''
    let offset = 0
    for (let want = Math.min(size, FIRST_READ_BYTES); offset < size; want = Math.min(size - offset, MAX_READ_BYTES, want * 2)) {
      const buffer = Buffer.allocUnsafe(want)
      const bytes = await reads.read(fd, buffer, offset)
      if (bytes === 0) break
      const chunk = buffer.subarray(0, bytes)
      if (offset < BINARY_SNIFF_BYTES && chunk.subarray(0, BINARY_SNIFF_BYTES - offset).includes(0)) return NOT_TEXT
      offset += bytes
      try {
        text += decoder.decode(chunk, { stream: offset < size })
      } catch {
        return NOT_TEXT
      }
      const split = splitFrontmatter(text, offset >= size)
      if (split) return split
      if (offset > maxFrontmatterBytes) return { ok: false, reason: `no frontmatter closed within ${maxFrontmatterBytes} bytes` }
    }
    return splitFrontmatter(text)
  } finally {
    reads.close(fd)
  }
}

const NOT_TEXT = { ok: false, reason: 'the file is not UTF-8 text' } as const

function call<T>(start: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value))))
}
