import { isUtf8 } from 'node:buffer'
import { constants, type Stats } from 'node:fs'
import { quote } from '../errors.ts'
import { FsError, fsErrorFrom, throwIfFsAborted, type AbortState } from './errors.ts'
import type { SyncCalls } from './io.ts'

// What every text read of ctx.fs does with the file it opens, whether it streams the file in
// chunks (service.ts) or, for a small file just proven, reads it whole on the event loop here.

const CHUNK_BYTES = 64 * 1024
/** Files that report a size of 0 (procfs) or a tiny one still read in chunks of at least this. */
const MIN_CHUNK_BYTES = 4 * 1024
const BINARY_SNIFF_BYTES = 8 * 1024

/** The file opened is not the one proven: a component changed between the proof and the open. */
export class Swapped extends Error {}

/** What identifies a file: the device and inode a containment proof saw. */
export type Identity = Pick<Stats, 'dev' | 'ino' | 'size'>

/**
 * The identity of the file at a canonical path, taken so that it belongs to the path as proven: a
 * directory swapped between the proof and the stat shows as the path no longer being canonical.
 * The path was resolved a moment ago, so both calls run on the event loop.
 */
export function identify(calls: SyncCalls, path: string): Identity {
  let identity: Stats
  try {
    identity = calls.stat(path)
  } catch (error) {
    throw fsErrorFrom(error, quote(path))
  }
  let canonical: string | undefined
  try {
    canonical = calls.realpath(path)
  } catch {
    canonical = undefined
  }
  if (canonical !== path) throw new Swapped()
  return identity
}

/**
 * O_NONBLOCK so a FIFO cannot block the open (the fstat then refuses it). O_NOFOLLOW for a proven
 * path: its last component was no symlink when proven, so one now is a swap.
 */
export function openFlags(proven: Identity | undefined): number {
  return proven ? PROVEN_FLAGS : constants.O_RDONLY | constants.O_NONBLOCK
}

/** `openFlags` of a proven path. */
const PROVEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW

/** A failed open, as the caller sees it: a symlink where a proven path had none is a swap. */
export function openFailure(error: unknown, path: string, proven: Identity | undefined): Error {
  const code = (error as NodeJS.ErrnoException).code
  if (proven && (code === 'ELOOP' || code === 'EMLINK')) return new Swapped()
  return fsErrorFrom(error, quote(path))
}

/** Refuses what was opened unless it is a regular file and, for a proven path, the file proven. */
export function checkOpened(info: Stats, path: string, proven: Identity | undefined): void {
  // A directory on the way swapped for a symlink opens some other file under the same name.
  if (proven && (info.dev !== proven.dev || info.ino !== proven.ino)) throw new Swapped()
  if (!info.isFile()) throw new FsError(`${quote(path)} is not a regular file`, 'FS_NOT_REGULAR_FILE')
}

/**
 * Sized to the file plus one byte (its first read comes up short: the end, see `readProvenSync`), so
 * a small source file costs a small buffer: a fresh 64 KiB one per read is most of the CPU of reading it. A file that grows is still read whole.
 */
export function chunkBytesFor(size: number): number {
  return Math.min(CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, size + 1))
}

export function tooLarge(path: string, maxBytes: number, total: number): FsError {
  return new FsError(`${quote(path)} exceeds the ${maxBytes}-byte limit; reading stopped after ${total} bytes`, 'FS_TOO_LARGE')
}

/** Decodes a file's bytes in order: binary content (a NUL near the start) and invalid UTF-8 are `FS_NOT_TEXT`. */
export class TextDecoding {
  /** Made for the first chunk of a file read in several (a whole file in one goes through `whole`). */
  private decoder: InstanceType<typeof TextDecoder> | undefined
  private sniffed = 0

  constructor(private readonly path: string) {}

  chunk(bytes: Buffer): string {
    this.sniff(bytes)
    return this.decode(bytes, true)
  }

  /**
   * `chunk` and `end` for a whole file read in one go, nothing decoded before: checked (`isUtf8`) and
   * decoded in one pass, without a streaming decoder (an ICU converter made per file). The same
   * text (a leading byte-order mark dropped, as the decoder drops it) and the same refusals.
   */
  whole(bytes: Buffer): string {
    this.sniff(bytes)
    return wholeText(bytes, this.path)
  }

  /** What the decoder still held (a truncated sequence is invalid). */
  end(): string {
    return this.decoder ? this.decode(undefined, false) : ''
  }

  private sniff(bytes: Buffer): void {
    if (this.sniffed >= BINARY_SNIFF_BYTES) return
    if (bytes.subarray(0, BINARY_SNIFF_BYTES - this.sniffed).includes(0)) throw new FsError(`${quote(this.path)} is a binary file`, 'FS_NOT_TEXT')
    this.sniffed += bytes.length
  }

  private decode(bytes: Uint8Array | undefined, stream: boolean): string {
    try {
      this.decoder ??= new TextDecoder('utf-8', { fatal: true })
      return this.decoder.decode(bytes, { stream })
    } catch (error) {
      throw new FsError(`${quote(this.path)} is not valid UTF-8 text`, 'FS_NOT_TEXT', { cause: error })
    }
  }
}

const BYTE_ORDER_MARK = 0xfeff

/**
 * A whole file's bytes, nothing decoded before, as `TextDecoding.whole` decodes them (its sniff
 * included): binary (a NUL near the start) and invalid UTF-8 are `FS_NOT_TEXT`, a leading
 * byte-order mark is dropped. Without a `TextDecoding` object: a source file read after every edit
 * a writer makes is whole in its first read.
 */
function wholeTextOf(bytes: Buffer, path: string): string {
  if ((bytes.length <= BINARY_SNIFF_BYTES ? bytes : bytes.subarray(0, BINARY_SNIFF_BYTES)).includes(0)) throw new FsError(`${quote(path)} is a binary file`, 'FS_NOT_TEXT')
  return wholeText(bytes, path)
}

/** `wholeTextOf` after the sniff. */
function wholeText(bytes: Buffer, path: string): string {
  if (!isUtf8(bytes)) throw new FsError(`${quote(path)} is not valid UTF-8 text`, 'FS_NOT_TEXT')
  const text = bytes.toString('utf8')
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text
}

/**
 * The buffer a sync read fills (`readOpenedSync`), made once at the largest chunk size and reused:
 * the read runs in one go on the event loop and its text is decoded (copied) out before it returns,
 * so no two reads share it. A fresh one per read was a 4 KiB ArrayBuffer allocated (not from
 * node's pool, which stops below 4 KiB) and later freed for every source read after a change.
 */
let syncBuffer: Buffer | undefined

/**
 * The whole text of a file just proven and identified (`identify`) and no larger than `maxSyncBytes`,
 * read on the event loop in one call: the same open (O_NOFOLLOW), identity check, sniff, decoding
 * and cap as the chunked read, without a promise per step. A file that grew past `maxSyncBytes`
 * since it was identified is left to the chunked read (undefined).
 */
export function readProvenSync(calls: SyncCalls, path: string, proven: Identity, options: SyncReadOptions): string | undefined {
  throwIfFsAborted(options.signal, () => `reading ${quote(path)}`)
  let fd: number
  try {
    fd = calls.open(path, openFlags(proven))
  } catch (error) {
    throw openFailure(error, path, proven)
  }
  try {
    const info = calls.fstat(fd)
    checkOpened(info, path, proven)
    if (info.size > options.maxSyncBytes) return undefined
    return readOpenedSync(calls, fd, path, info.size, options)
  } finally {
    closeQuietly(calls, fd)
  }
}

/**
 * `readProvenSync` for a canonical path just proven, with the proof made on what was opened rather
 * than before the open: the file is opened (O_NOFOLLOW) and the kernel's own name for the open file
 * (`SyncCalls.openedPath`) must be that path. That name has no symlink in it, so the file read is
 * the one at the canonical path, reached through real directories at the moment of the open: a
 * component swapped for a symlink before the open leads the open elsewhere and shows as another
 * name. `identify`'s stat and realpath (a readlink per component) are not needed then. Undefined
 * when this cannot vouch for the file (no such name known here, a name spelled otherwise, a
 * symlink or a file larger than `maxSyncBytes`): the caller identifies the path and reads as before,
 * so every refusal is the one that path always had.
 */
export function readOpenedProvenSync(calls: SyncCalls, path: string, options: SyncReadOptions): string | undefined {
  throwIfFsAborted(options.signal, () => `reading ${quote(path)}`)
  let fd: number
  try {
    fd = calls.open(path, PROVEN_FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // A symlink at the last name: `identify` tells what it is (a swap, or a path no longer canonical).
    if (code === 'ELOOP' || code === 'EMLINK') return undefined
    throw fsErrorFrom(error, quote(path))
  }
  try {
    const info = calls.fstat(fd)
    if (info.size > options.maxSyncBytes || calls.openedPath(fd) !== path) return undefined
    if (!info.isFile()) throw new FsError(`${quote(path)} is not a regular file`, 'FS_NOT_REGULAR_FILE')
    return readOpenedSync(calls, fd, path, info.size, options)
  } finally {
    closeQuietly(calls, fd)
  }
}

interface SyncReadOptions {
  readonly maxBytes: number
  readonly maxSyncBytes: number
  readonly signal?: AbortState | undefined
}

/** The text of the regular file open on `fd` (`size` bytes by its fstat), read, sniffed, decoded and capped. */
function readOpenedSync(calls: SyncCalls, fd: number, path: string, size: number, options: SyncReadOptions): string {
  const length = chunkBytesFor(size)
  const buffer = (syncBuffer ??= Buffer.allocUnsafe(CHUNK_BYTES))
  let decoding: TextDecoding | undefined
  let text = ''
  let total = 0
  for (;;) {
    let bytesRead: number
    try {
      bytesRead = calls.read(fd, buffer, length)
    } catch (error) {
      throw fsErrorFrom(error, quote(path))
    }
    if (bytesRead === 0) break
    const first = total === 0
    total += bytesRead
    // A short read that brought the stat's size in is the end (the read asks one byte past it):
    // no second read to see 0. A file reporting more than it holds (sysfs) or none (procfs) reads on.
    const end = bytesRead < length && size > 0 && total >= size
    const bytes = buffer.subarray(0, bytesRead)
    // A file whole in its first read (a source file) is decoded in one go, without a decoder.
    text += first && end ? wholeTextOf(bytes, path) : (decoding ??= new TextDecoding(path)).chunk(bytes)
    if (total > options.maxBytes) throw tooLarge(path, options.maxBytes, total)
    if (end) break
  }
  return decoding ? text + decoding.end() : text
}

export function closeQuietly(calls: SyncCalls, fd: number): void {
  try {
    calls.close(fd)
  } catch {
    // Nothing useful to do about a failed close of a read-only descriptor.
  }
}
