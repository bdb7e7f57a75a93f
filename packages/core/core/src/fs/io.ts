import { close, closeSync, realpath as realpathCallback, fstat, fstatSync, lstatSync, open, openSync, read, readdirSync, readlinkSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { assertNever } from '../errors.ts'

/**
 * The system calls `ctx.fs` makes, in two flavours. `sync` runs them on the event loop: a local
 * metadata call takes microseconds, far less than a threadpool round trip, so the LSP hot path is
 * fastest. `async` runs them on libuv's threadpool: each costs a round trip, but a slow filesystem
 * (NFS, WSL's /mnt/c, a hung mount) then delays only the query that touches it instead of freezing
 * the whole host. bench/RESULTS.md ("fs") has the measurements behind the default.
 */
export interface FsIo {
  realpath(path: string): Promise<string>
  stat(path: string): Promise<Stats>
  readdir(dir: string): Promise<Dirent[]>
  open(path: string, flags: number): Promise<number>
  fstat(fd: number): Promise<Stats>
  read(fd: number, buffer: Buffer, length: number): Promise<number>
  close(fd: number): Promise<void>
}

export type FsIoMode = 'sync' | 'async'

/**
 * The event loop's calls themselves, for work made in one go without a promise per call: the
 * identity check and the read of a small file just proven (opened-text.ts).
 */
export interface SyncCalls {
  realpath(path: string): string
  stat(path: string): Stats
  /** The name itself (a symlink is not followed); undefined when nothing is there. */
  lstat(path: string): Stats | undefined
  open(path: string, flags: number): number
  fstat(fd: number): Stats
  read(fd: number, buffer: Buffer, length: number): number
  close(fd: number): void
  /**
   * The kernel's own name for the file open on `fd` (Linux: `/proc/self/fd/<fd>`): the path it was
   * reached by, every directory in it real. Undefined where no such name is known: for this call
   * when one read fails (an fd closed under it), for good where the system names no open files
   * (another system, no /proc, /proc refusing).
   */
  openedPath(fd: number): string | undefined
  /** False where `openedPath` cannot answer (another system, or a /proc that names no open files). */
  namesOpenedFiles(): boolean
}

/** Whether `/proc/self/fd` names open files here; false once a failure shows it cannot. */
let procFdNames = process.platform === 'linux'

function openedPath(fd: number): string | undefined {
  if (!procFdNames) return undefined
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch (error) {
    // One failure is that call's (its fd closed in a race, a transient errno): the caller falls back
    // to its full proof, and the next call asks again. Only a /proc that cannot name open files at
    // all turns the question off for the process, so a system without it pays one failure.
    if (!procCanNameFds((error as NodeJS.ErrnoException).code)) procFdNames = false
    return undefined
  }
}

/** After a failed readlink: whether /proc may still name other fds (the failure was not the system's refusal). */
function procCanNameFds(code: string | undefined): boolean {
  if (code === 'EACCES' || code === 'EPERM' || code === 'ENOSYS') return false
  try {
    return statSync('/proc/self/fd', { throwIfNoEntry: false })?.isDirectory() === true
  } catch {
    return false
  }
}

export const syncCalls: SyncCalls = {
  realpath: (path) => realpathSync.native(path),
  stat: (path) => statSync(path),
  // Most names looked up are absent: no exception (and its stack) for those.
  lstat: (path) => lstatSync(path, { throwIfNoEntry: false }),
  open: (path, flags) => openSync(path, flags),
  fstat: (fd) => fstatSync(fd),
  read: (fd, buffer, length) => readSync(fd, buffer, 0, length, null),
  close: (fd) => closeSync(fd),
  openedPath,
  namesOpenedFiles: () => procFdNames,
}

const syncIo: FsIo = {
  realpath: async (path) => syncCalls.realpath(path),
  stat: async (path) => syncCalls.stat(path),
  readdir: async (dir) => readdirSync(dir, { withFileTypes: true }),
  open: async (path, flags) => syncCalls.open(path, flags),
  fstat: async (fd) => syncCalls.fstat(fd),
  read: async (fd, buffer, length) => syncCalls.read(fd, buffer, length),
  close: async (fd) => syncCalls.close(fd),
}

const asyncIo: FsIo = {
  realpath: (path) => callback<string>((done) => realpathNative(path, done)),
  stat: (path) => stat(path),
  readdir: (dir) => readdir(dir, { withFileTypes: true }),
  open: (path, flags) => callback<number>((done) => open(path, flags, done)),
  fstat: (fd) => callback<Stats>((done) => fstat(fd, done)),
  read: (fd, buffer, length) => callback<number>((done) => read(fd, buffer, 0, length, null, done)),
  close: (fd) => callback<void>((done) => close(fd, done)),
}

export function fsIo(mode: FsIoMode): FsIo {
  switch (mode) {
    case 'sync':
      return syncIo
    case 'async':
      return asyncIo
    default:
      return assertNever(mode, 'fs io mode')
  }
}

const realpathNative = realpathCallback.native

function callback<T>(start: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value))))
}
