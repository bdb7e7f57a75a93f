import { constants, type Stats } from 'node:fs'
import { configParser } from '../config-parser.ts'
import { basename, dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context, Service } from 'cordis'
import { z } from 'zod'
import { quote } from '../errors.ts'
import { FsError, fsErrorFrom, throwIfFsAborted, type AbortState } from './errors.ts'
import { hostLifetime } from '../host.ts'
import { fsIo, syncCalls, type FsIo, type FsIoMode, type SyncCalls } from './io.ts'
import { checkOpened, chunkBytesFor, closeQuietly, identify, openFailure, openFlags, readOpenedProvenSync, readProvenSync, Swapped, TextDecoding, tooLarge, type Identity } from './opened-text.ts'
import { plainContains, resolvedIn } from './paths.ts'
import { replaceContainedTexts, type TextReplacement } from './replace.ts'

declare module 'cordis' {
  interface Context {
    fs: FileSystem
  }
}

/** A directory whose canonical path (symlinks resolved) every contained path is proven against. */
export interface Workspace {
  readonly path: string
  readonly url: string
}

export interface PathInfo {
  readonly type: 'file' | 'directory' | 'other'
  readonly size: number
  readonly mtimeMs: number
  /** When the inode last changed (a write, a rename, a chmod); unlike `mtimeMs`, no program can set it back. */
  readonly ctimeMs: number
  /** The file's identity: two paths with the same `dev` and `ino` name one file. */
  readonly dev: number
  readonly ino: number
}

export interface DirEntry {
  readonly name: string
  /** `dir/name`; for a symlink, the link itself. */
  readonly path: string
  /** What the entry is, following symlinks; `missing` for a symlink whose target does not exist. */
  readonly type: 'file' | 'directory' | 'other' | 'missing'
  readonly symlink: boolean
}

export interface ContainedText {
  /** Canonical absolute path (symlinks resolved). */
  readonly path: string
  readonly url: string
  readonly text: string
}

/** The start of a file, as `readHead` read it. */
export interface FileHead {
  /** The first bytes, undecoded (a byte-order mark is kept), at most `maxBytes`. */
  readonly bytes: Buffer
  /** The file's size when it was opened. */
  readonly size: number
  /** Whether `bytes` is the whole file: the read reached its end. */
  readonly complete: boolean
}

/** Canonical workspaces remembered as answering (a few per session; cleared whole when full). */
const MAX_ANSWERED_WORKSPACES = 256
/** How many path -> URL pairs `fileUrl` keeps (a few hundred short strings). */
const MAX_RECENT_URLS = 256
/** Workspace directories held open for `workspaceNow`'s proof (one descriptor each); all let go when full. */
const MAX_HELD_WORKSPACES = 8
/** A workspace directory held open: a directory only, never through a symlink at its last name. */
const HELD_DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

export const FsConfig = z.strictObject({
  /**
   * How system calls run: `sync` on the event loop (fastest on a local disk), `async` on libuv's
   * threadpool (a slow or hung filesystem then cannot freeze the host). See io.ts. Unset: `async`
   * in a long-lived host, `sync` in a one-shot command (`hostLifetime`). The host's one I/O
   * setting: other readers of files (dsh-skill-fs) follow `ioMode`.
   */
  io: z.enum(['sync', 'async']).optional(),
  /**
   * With `io: async`, the largest regular file read on the event loop once `ctx.fs` has just
   * resolved its path (a containment proof answered, so its file system answers): a small local
   * read takes microseconds, a thread-pool round trip far more. Larger files, and anything behind
   * a symlink, stay on the thread pool. 0 reads every file there.
   */
  eventLoopReadBytes: z.number().int().nonnegative().default(256 * 1024),
  /**
   * With `io: async`, a path spelled inside a canonical workspace (one `workspace()` resolved on
   * the thread pool) is proven on the event loop: its resolution walks the workspace's own file
   * system; so is a canonical workspace `workspace()` resolved before. Turn it off when the
   * workspace holds mount points of slow or hanging file systems.
   */
  proofsOnEventLoop: z.boolean().default(true),
})
export type FsConfig = z.infer<typeof FsConfig>

/**
 * `ctx.fs`: canonical paths, containment proofs and bounded text reads on the local disk.
 * Every path it returns has its symlinks resolved, so two aliases of one file compare equal.
 * Chunks are yielded one at a time, and the signal is checked between them.
 */
export class FileSystem extends Service {
  static Config = configParser(FsConfig)
  static inject = { dshHost: { required: false } }

  /** How this host's system calls run (the row's `io`, else the lifetime's default). */
  readonly ioMode: FsIoMode
  private readonly io: FsIo
  /** The calls that follow a resolution on the path it proved (see `eventLoopReadBytes`). */
  private readonly proven: FsIo = fsIo('sync')
  /** The identity check of a path just proven, and the read of a small file there, in one go (see `readContainedText`). */
  private readonly provenCalls: SyncCalls = syncCalls
  private readonly eventLoopReadBytes: number
  private readonly proofsOnEventLoop: boolean
  /** Canonical workspace directories resolved before, with their URLs (see `workspace()`); bounded by MAX_ANSWERED_WORKSPACES. */
  private readonly answeredWorkspaces = new Map<string, string>()
  /** URLs `fileUrl` made lately, by path. */
  private readonly recentUrls = new Map<string, string>()
  /** The directory each workspace this service answered with was when checked: its stat (see `containedBelowNow`, `provenWorkspaceInfo`). */
  private readonly workspaceIdentities = new WeakMap<Workspace, PathInfo>()
  /**
   * Canonical workspace directories `workspaceNow` proved, each held open (its descriptor): the next
   * proof reads the kernel's own name for it and its fstat instead of a realpath and a stat (see
   * `heldWorkspaceNow`). Bounded by MAX_HELD_WORKSPACES; closed when the service goes (`holding` false then).
   */
  private readonly heldWorkspaces = new Map<string, number>()
  private holding = true

  constructor(ctx: Context, config: FsConfig = FsConfig.parse({})) {
    super(ctx, 'fs', true)
    // A long-lived host serves many sessions: one hung mount must not freeze them all.
    this.ioMode = config.io ?? (hostLifetime(ctx) === 'one-shot' ? 'sync' : 'async')
    this.io = fsIo(this.ioMode)
    this.eventLoopReadBytes = config.eventLoopReadBytes
    this.proofsOnEventLoop = config.proofsOnEventLoop
    ctx.effect(() => () => {
      this.holding = false
      this.letGoOfWorkspaces()
    })
  }

  /**
   * The canonical absolute path of `path` (relative paths against `cwd`, default the process
   * directory). The path need not exist: the nearest existing ancestor is resolved and the rest appended.
   */
  async resolve(path: string, options: { cwd?: string | undefined; signal?: AbortSignal | undefined } = {}): Promise<string> {
    return this.resolveWith(this.io, path, options)
  }

  private async resolveWith(io: FsIo, path: string, options: { cwd?: string | undefined; signal?: AbortState | undefined }): Promise<string> {
    throwIfFsAborted(options.signal, () => `resolving ${quote(path)}`)
    const absolute = resolvePath(options.cwd ?? process.cwd(), path)
    const missing: string[] = []
    let probe = absolute
    for (;;) {
      try {
        const real = await io.realpath(probe)
        return missing.length ? join(real, ...missing.reverse()) : real
      } catch (error) {
        probe = missingStep(error, probe, missing, path)
      }
    }
  }

  /** `resolveWith` on the event loop in the call (the proven calls): the same steps and failures, no promise. */
  private resolveNow(path: string, cwd: string): string {
    const missing: string[] = []
    let probe = resolvePath(cwd, path)
    for (;;) {
      try {
        const real = this.provenCalls.realpath(probe)
        return missing.length ? join(real, ...missing.reverse()) : real
      } catch (error) {
        probe = missingStep(error, probe, missing, path)
      }
    }
  }

  /** Information about a path, or undefined when nothing is there. */
  async stat(path: string, signal?: AbortSignal): Promise<PathInfo | undefined> {
    return this.statWith(this.io, path, signal)
  }

  /**
   * `stat` of a name in a directory `ctx.fs` has just resolved (a containment proof walked it): the
   * lookup runs on the event loop and cannot leave that directory's file system (an lstat); only a
   * symlink is followed, on the thread pool as any other call. Root-marker lookups use it.
   */
  async statBesideProven(path: string, signal?: AbortSignal): Promise<PathInfo | undefined> {
    const info = this.lstatBesideProven(path, signal)
    return info === 'symlink' ? this.stat(path, signal) : info
  }

  /**
   * `statBesideProven` without a promise: the answer when the lstat settles it, or `'symlink'` for
   * a name the caller must follow with `stat` (on the thread pool). For lookups repeated on every
   * call (the root finder's warm path), where each promise and its async hooks cost more than the
   * lstat itself. Throws what `statBesideProven` rejects with.
   */
  lstatBesideProven(path: string, signal?: AbortSignal): PathInfo | undefined | 'symlink' {
    throwIfFsAborted(signal, () => `stat of ${quote(path)}`)
    let info: Stats | undefined
    try {
      info = this.provenCalls.lstat(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
      throw fsErrorFrom(error, `${quote(path)}`)
    }
    if (!info) return undefined
    return info.isSymbolicLink() ? 'symlink' : pathInfo(info)
  }

  private async statWith(io: FsIo, path: string, signal: AbortSignal | undefined): Promise<PathInfo | undefined> {
    throwIfFsAborted(signal, () => `stat of ${quote(path)}`)
    try {
      const info = await io.stat(path)
      return pathInfo(info)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw fsErrorFrom(error, `${quote(path)}`)
    }
  }

  /**
   * The direct children of a directory, sorted by name in code-point order. `type` follows
   * symlinks (`symlink` says an entry is one); a symlink whose target is gone has type `missing`.
   * `path` is the entry inside `dir` itself, not the symlink's target: `resolve(path)` gives that.
   * A missing directory is `FS_NOT_FOUND`, a file `FS_NOT_DIRECTORY`.
   */
  async listDir(dir: string, signal?: AbortSignal): Promise<DirEntry[]> {
    throwIfFsAborted(signal, () => `listing ${quote(dir)}`)
    let dirents
    try {
      dirents = await this.io.readdir(dir)
    } catch (error) {
      throw fsErrorFrom(error, `${quote(dir)}`)
    }
    const entries = await Promise.all(dirents.map(async (dirent): Promise<DirEntry> => {
      const path = join(dir, dirent.name)
      if (!dirent.isSymbolicLink()) return { name: dirent.name, path, type: typeOf(dirent), symlink: false }
      try {
        const target = await this.io.stat(path)
        return { name: dirent.name, path, type: typeOf(target), symlink: true }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return { name: dirent.name, path, type: 'missing', symlink: true }
        throw fsErrorFrom(error, `${quote(path)}`)
      }
    }))
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  fileUrl(path: string): string {
    // A file changed is named twice in a row (a writer's notice, then the read of its text): the
    // same URL, built once. A pure function of the path; the map starts over when full.
    const known = this.recentUrls.get(path)
    if (known !== undefined) return known
    if (this.recentUrls.size >= MAX_RECENT_URLS) this.recentUrls.clear()
    const url = pathToFileURL(path).href
    this.recentUrls.set(path, url)
    return url
  }

  /**
   * True when `child` is `parent` or below it. Both must be canonical. Two plain absolute POSIX
   * paths (what a canonical path is, unless a name starts with a dot) are compared as strings: a
   * warm diagnostics call after an edit asks this five times, and `path.relative`, which normalises
   * both first, was a tenth of that call's instructions (fs/paths.ts). Any other spelling is
   * compared as before.
   */
  contains(parent: string, child: string): boolean {
    const plain = plainContains(parent, child)
    if (plain !== undefined) return plain
    const rel = relative(parent, child)
    return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`))
  }

  /** Canonicalises a workspace directory; a missing path or a file is refused with a code. */
  async workspace(dir: string, signal?: AbortSignal): Promise<Workspace> {
    const now = this.workspaceNow(dir, signal)
    if (now) return now
    const path = await this.resolveWith(this.io, dir, { signal })
    if (path === dir && !this.answeredWorkspaces.has(dir)) {
      if (this.answeredWorkspaces.size >= MAX_ANSWERED_WORKSPACES) this.answeredWorkspaces.clear()
      this.answeredWorkspaces.set(dir, this.fileUrl(path))
    }
    // Just resolved: canonical, no symlink left in it, on a file system that answered.
    return this.checkedWorkspace(dir, path, await this.statWith(this.proven, path, signal), signal)
  }

  /**
   * `workspace(dir)` answered in the call, without a promise, for a canonical workspace resolved
   * before while `proofsOnEventLoop` is on: its file system answered, so it is resolved and checked
   * again on the event loop (the same realpath and stat, the same refusals, thrown). Undefined when
   * the proof belongs on the thread pool (a directory not resolved before, or proofs off): the
   * caller awaits `workspace` then. Every lsp call asks this once.
   */
  workspaceNow(dir: string, signal?: AbortSignal): Workspace | undefined {
    if (!this.proofsOnEventLoop || !this.answeredWorkspaces.has(dir)) return undefined
    throwIfFsAborted(signal, () => `resolving ${quote(dir)}`)
    const held = this.heldWorkspaceNow(dir)
    if (held) return this.checkedWorkspace(dir, dir, held, signal)
    const path = this.resolveNow(dir, process.cwd())
    const info = statNow(this.provenCalls, path)
    if (path === dir && info?.type === 'directory') this.holdWorkspace(dir, info)
    return this.checkedWorkspace(dir, path, info, signal)
  }

  /**
   * The stat of the canonical workspace `dir` when the directory held open for it still proves it:
   * the kernel's own name for the open directory (`SyncCalls.openedPath`) is `dir`, so `dir` leads
   * through real directories, no symlink on the way, to that very directory at this moment, which
   * is what a realpath equal to `dir` and a stat say; its fstat is that stat. One readlink and an
   * fstat, where the realpath costs a readlink per component. Undefined when the name is another
   * (the directory moved, was removed or replaced, a name on the way became a symlink: its
   * descriptor is let go of) or nothing is held: `workspaceNow` resolves and stats as before.
   */
  private heldWorkspaceNow(dir: string): PathInfo | undefined {
    const fd = this.heldWorkspaces.get(dir)
    if (fd === undefined) return undefined
    try {
      if (this.provenCalls.openedPath(fd) === dir) return pathInfo(this.provenCalls.fstat(fd))
    } catch {
      // What the descriptor cannot tell, the resolution does.
    }
    this.heldWorkspaces.delete(dir)
    closeQuietly(this.provenCalls, fd)
    return undefined
  }

  /**
   * Holds the canonical workspace directory `dir` open (just resolved to itself, `info` its stat),
   * where open files are named (`namesOpenedFiles`): kept only when what was opened is the
   * directory checked (same device and inode) and the kernel names it `dir`.
   */
  private holdWorkspace(dir: string, info: PathInfo): void {
    if (!this.holding || !this.provenCalls.namesOpenedFiles()) return
    if (this.heldWorkspaces.size >= MAX_HELD_WORKSPACES) this.letGoOfWorkspaces()
    let fd: number
    try {
      fd = this.provenCalls.open(dir, HELD_DIRECTORY_FLAGS)
    } catch {
      return
    }
    try {
      const opened = this.provenCalls.fstat(fd)
      if (opened.dev === info.dev && opened.ino === info.ino && this.provenCalls.openedPath(fd) === dir) {
        this.heldWorkspaces.set(dir, fd)
        return
      }
    } catch {
      // Not held: the next proof resolves as before.
    }
    closeQuietly(this.provenCalls, fd)
  }

  private letGoOfWorkspaces(): void {
    for (const fd of this.heldWorkspaces.values()) closeQuietly(this.provenCalls, fd)
    this.heldWorkspaces.clear()
  }

  /** The workspace `dir` resolved to `path`, whose stat is `info`, once it is an existing directory. */
  private checkedWorkspace(dir: string, path: string, info: PathInfo | undefined, signal: AbortSignal | undefined): Workspace {
    throwIfFsAborted(signal, () => `workspace ${quote(dir)}`)
    if (!info) throw new FsError(`workspace ${quote(dir)} does not exist`, 'FS_NOT_FOUND')
    if (info.type !== 'directory') throw new FsError(`workspace ${quote(dir)} is not a directory`, 'FS_NOT_DIRECTORY')
    // A canonical workspace's URL is kept with it (a URL encoding per call otherwise).
    const known = path === dir ? this.answeredWorkspaces.get(dir) : undefined
    const workspace = { path, url: known ?? this.fileUrl(path) }
    this.workspaceIdentities.set(workspace, info)
    return workspace
  }

  /**
   * The stat the proof of `workspace` took (`workspace()` or `workspaceNow()`, just after its
   * realpath), undefined for a workspace this service did not answer with. A caller whose work
   * began with that proof (dsh-lsp's CallProofs: a proof per call) has looked at the workspace
   * directory already: its walks below it pass `workspaceChecked`, and this stands for the
   * directory's own lstat (the lsp root finder's marker lookup there).
   */
  provenWorkspaceInfo(workspace: Workspace): PathInfo | undefined {
    return this.workspaceIdentities.get(workspace)
  }

  /**
   * Resolves `filePath` against the workspace and proves the canonical result lies inside it, so a
   * path that escapes by `..`, by an absolute spelling or through a symlink is refused.
   */
  async contained(workspace: Workspace, filePath: string, signal?: AbortState): Promise<string> {
    throwIfFsAborted(signal, () => `resolving ${quote(filePath)}`)
    const now = this.containedNow(workspace, filePath)
    if (now !== undefined) return now
    return this.inside(workspace, filePath, await this.resolveWith(this.io, filePath, { cwd: workspace.path, signal }))
  }

  /**
   * `contained` answered in the call, for a path spelled inside the canonical workspace while
   * `proofsOnEventLoop` is on (that proof runs on the event loop anyway): the same resolution, the
   * same refusal (thrown), without a promise. Undefined when the proof belongs on the thread pool
   * (spelled outside, or proofs off): the caller awaits `contained` then. For work repeated on
   * every call or change (the lsp provider's notices and sources), where each promise and its async
   * hooks cost more than the realpath.
   */
  containedNow(workspace: Workspace, filePath: string): string | undefined {
    if (!this.proofsOnEventLoop || !this.contains(workspace.path, resolvedIn(workspace.path, filePath))) return undefined
    return this.inside(workspace, filePath, this.resolveNow(filePath, workspace.path))
  }

  /**
   * `containedNow` for a workspace `workspace()` answered with a moment ago in the same piece of work
   * (a call's proofs, dsh-lsp's CallProofs), without resolving the path from `/`: the workspace
   * directory is looked at again by lstat (still no symlink, still the directory `workspace()`
   * checked: same device and inode), then each name below it; a path with no symlink below a
   * canonical directory is canonical, so it is what `containedNow` would answer. Anything else — a
   * symlink on the way, a name that cannot be examined, a workspace not made here — is resolved as
   * `containedNow` does, with the same answer and refusals. The names above the workspace are as
   * `workspace()` saw them a moment ago.
   *
   * `info` is the lstat of the path itself when the walk reached it (undefined when it is missing
   * or was resolved instead): a caller about to stat the file (a kept text's check) has it already.
   * Undefined as `containedNow` (the proof belongs on the thread pool).
   *
   * `workspaceChecked`: the caller looked at the workspace directory in this same piece of work
   * already (an earlier walk of the call's, or its proof), so it is not lstat'd again: a call that
   * proves several files checks its workspace directory once, not once per file. `directories`
   * receives the lstat of each directory the walk passed (the workspace too when it looked at it),
   * by path: a caller about to look at those directories in the same pass (the lsp root finder's
   * marker lookups) has them already.
   */
  containedBelowNow(
    workspace: Workspace,
    filePath: string,
    options?: { readonly workspaceChecked?: boolean; readonly directories?: Map<string, PathInfo> },
  ): { readonly path: string; readonly info: PathInfo | undefined } | undefined {
    if (!this.proofsOnEventLoop) return undefined
    const absolute = resolvedIn(workspace.path, filePath)
    if (!this.contains(workspace.path, absolute)) return undefined
    const walked = this.walkBelow(workspace, absolute, options?.workspaceChecked === true, options?.directories)
    return walked ?? { path: this.inside(workspace, filePath, this.resolveNow(filePath, workspace.path)), info: undefined }
  }

  /**
   * `absolute` (inside the workspace, normalised) and its lstat when lstats alone prove it
   * canonical: the workspace directory unchanged, no symlink below it. A missing name ends the
   * walk as a resolution does (the rest appended to the canonical part). Undefined when the
   * lstats cannot settle it.
   */
  private walkBelow(
    workspace: Workspace,
    absolute: string,
    workspaceChecked: boolean,
    directories: Map<string, PathInfo> | undefined,
  ): { path: string; info: PathInfo | undefined } | undefined {
    const identity = this.workspaceIdentities.get(workspace)
    if (!identity) return undefined
    let info: Stats | undefined
    try {
      if (!workspaceChecked || absolute === workspace.path) {
        info = this.provenCalls.lstat(workspace.path)
        if (!info || !info.isDirectory() || info.dev !== identity.dev || info.ino !== identity.ino) return undefined
        if (absolute === workspace.path) return { path: absolute, info: pathInfo(info) }
        directories?.set(workspace.path, pathInfo(info))
      }
      // `contains` held: `absolute` is the workspace's path, a separator, then names.
      const start = workspace.path.endsWith(sep) ? workspace.path.length : workspace.path.length + 1
      for (let end = absolute.indexOf(sep, start); ; end = absolute.indexOf(sep, end + 1)) {
        const last = end === -1
        const at = last ? absolute : absolute.slice(0, end)
        info = this.provenCalls.lstat(at)
        if (!info) return { path: absolute, info: undefined }
        if (info.isSymbolicLink() || (!last && !info.isDirectory())) return undefined
        if (last) return { path: absolute, info: pathInfo(info) }
        directories?.set(at, pathInfo(info))
      }
    } catch {
      // What an lstat cannot examine, the resolution reports in its own words.
      return undefined
    }
  }

  /** `path` (what `filePath` resolved to) when it lies inside the workspace; else FS_OUTSIDE_WORKSPACE. */
  private inside(workspace: Workspace, filePath: string, path: string): string {
    if (!this.contains(workspace.path, path)) {
      throw new FsError(`${quote(filePath)} resolves outside the workspace ${workspace.path}`, 'FS_OUTSIDE_WORKSPACE')
    }
    return path
  }

  /** Decoded UTF-8 chunks of a regular text file. Binary content and invalid UTF-8 are `FS_NOT_TEXT`. */
  streamText(path: string, signal?: AbortSignal): AsyncGenerator<{ text: string; bytes: number }> {
    return this.chunks(path, signal, undefined)
  }

  /** `streamText`; with `proven`, the file opened must be that one (see `readContainedText`), else `Swapped`. */
  private async *chunks(path: string, signal: AbortState | undefined, proven: Identity | undefined): AsyncGenerator<{ text: string; bytes: number }> {
    throwIfFsAborted(signal, () => `reading ${quote(path)}`)
    // A proven path was just resolved and identified: its open and fstat follow on the event loop.
    const opening = proven ? this.proven : this.io
    let io = opening
    let fd: number
    try {
      fd = await opening.open(path, openFlags(proven))
    } catch (error) {
      throw openFailure(error, path, proven)
    }
    try {
      const info = await opening.fstat(fd)
      checkOpened(info, path, proven)
      // An open regular file this small is read (and closed) on the event loop: see `eventLoopReadBytes`.
      io = info.size <= this.eventLoopReadBytes ? this.proven : this.io
      const decoding = new TextDecoding(path)
      const chunkBytes = chunkBytesFor(info.size)
      const buffer = Buffer.allocUnsafe(chunkBytes)
      for (;;) {
        throwIfFsAborted(signal, () => `reading ${quote(path)}`)
        let bytesRead: number
        try {
          bytesRead = await io.read(fd, buffer, chunkBytes)
        } catch (error) {
          throw fsErrorFrom(error, `${quote(path)}`)
        }
        if (bytesRead === 0) break
        yield { text: decoding.chunk(buffer.subarray(0, bytesRead)), bytes: bytesRead }
      }
      const tail = decoding.end()
      if (tail) yield { text: tail, bytes: 0 }
    } finally {
      try {
        await io.close(fd)
      } catch {
        // Nothing useful to do about a failed close of a read-only descriptor.
      }
    }
  }

  /**
   * At most the first `maxBytes` bytes of a regular file, undecoded, for callers that decide from a
   * file's start alone (a skill's frontmatter): the rest is never read. Opened like every read here
   * (`O_NONBLOCK`, so a FIFO cannot block the open, then refused as not a regular file), through this
   * host's `io`. Failures are `FsError` (`FS_NOT_FOUND`, `FS_NOT_REGULAR_FILE`, …).
   */
  async readHead(path: string, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<FileHead> {
    throwIfFsAborted(options.signal, () => `reading ${quote(path)}`)
    let fd: number
    try {
      fd = await this.io.open(path, constants.O_RDONLY | constants.O_NONBLOCK)
    } catch (error) {
      throw fsErrorFrom(error, quote(path))
    }
    try {
      const info = await this.io.fstat(fd)
      if (!info.isFile()) throw new FsError(`${quote(path)} is not a regular file`, 'FS_NOT_REGULAR_FILE')
      const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(options.maxBytes, info.size)))
      let filled = 0
      let ended = false
      while (filled < buffer.length) {
        throwIfFsAborted(options.signal, () => `reading ${quote(path)}`)
        const bytes = await this.io.read(fd, buffer.subarray(filled), buffer.length - filled)
        if (bytes === 0) {
          ended = true
          break
        }
        filled += bytes
      }
      return { bytes: buffer.subarray(0, filled), size: info.size, complete: ended || filled >= info.size }
    } catch (error) {
      throw fsErrorFrom(error, quote(path))
    } finally {
      try {
        await this.io.close(fd)
      } catch {
        // Nothing useful to do about a failed close of a read-only descriptor.
      }
    }
  }

  /** A whole text file, refused with `FS_TOO_LARGE` once more than `maxBytes` bytes have been read. */
  readText(path: string, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<string> {
    return this.collect(this.streamText(path, options.signal), path, options.maxBytes)
  }

  private async collect(chunks: AsyncIterable<{ text: string; bytes: number }>, path: string, maxBytes: number): Promise<string> {
    const parts: string[] = []
    let total = 0
    for await (const chunk of chunks) {
      total += chunk.bytes
      if (total > maxBytes) throw tooLarge(path, maxBytes, total)
      parts.push(chunk.text)
    }
    return parts.join('')
  }

  /**
   * The path a contained read opens: with `proven`, on the first attempt, `filePath` itself (a
   * canonical path `contained()` returned a moment ago, still spelled inside the workspace); `identify`
   * then checks it is still canonical and the open that it is still the file. Otherwise, and on the
   * attempt after a swap, proven afresh.
   */
  private provenOrContained(workspace: Workspace, filePath: string, attempt: number, options: { signal?: AbortState | undefined; proven?: boolean | undefined }): Promise<string> | string {
    if (attempt === 1 && options.proven === true && isAbsolute(filePath) && this.contains(workspace.path, filePath)) return filePath
    return this.contained(workspace, filePath, options.signal)
  }

  /**
   * The workspace-contained, byte-capped read every surface that opens model-named files uses.
   * Containment is proven on the real path, and the file opened must be the one proven: its last
   * component is opened without following a symlink, and its device and inode must match. So a
   * component swapped for a symlink between the proof and the open cannot lead the read out of the
   * workspace. A file replaced in between (an editor's atomic save) is proven again once. With
   * `proven`, `filePath` is a canonical path `contained()` returned a moment ago: checked again on
   * the event loop (still canonical, still inside, the file opened the one identified) instead of
   * being resolved again, as `streamContainedText` does. `signal` is checked between steps only: a
   * `Lifetime` serves as well as its signal (see `AbortState`).
   */
  async readContainedText(workspace: Workspace, filePath: string, options: { maxBytes: number; signal?: AbortState | undefined; proven?: boolean | undefined }): Promise<ContainedText> {
    for (let attempt = 1; ; attempt++) {
      const proving = this.provenOrContained(workspace, filePath, attempt, options)
      const path = typeof proving === 'string' ? proving : await proving
      try {
        const small = this.readSmallNow(path, options)
        const text = typeof small === 'string' ? small : await this.collect(this.chunks(path, options.signal, small), path, options.maxBytes)
        return { path, url: this.fileUrl(path), text }
      } catch (error) {
        if (!(error instanceof Swapped)) throw error
        if (attempt === 2) throw swappedTwice(workspace, filePath)
      }
    }
  }

  /**
   * `readContainedText(workspace, path, { proven: true })` answered in the call, without a promise,
   * for a small file (see `eventLoopReadBytes`) at a canonical path `contained()` returned a moment
   * ago: the same proof of what is opened, read, decoding, cap and refusals (thrown). Undefined when
   * the read must wait (a larger file, or a path to prove again after a swap): the caller awaits
   * `readContainedText` then. For a read repeated on every change (the lsp provider's source).
   */
  readContainedTextNow(workspace: Workspace, path: string, options: { maxBytes: number; signal?: AbortState | undefined }): ContainedText | undefined {
    if (!isAbsolute(path) || !this.contains(workspace.path, path)) return undefined
    let small: string | Identity
    try {
      small = this.readSmallNow(path, options)
    } catch (error) {
      if (error instanceof Swapped) return undefined
      throw error
    }
    return typeof small === 'string' ? { path, url: this.fileUrl(path), text: small } : undefined
  }

  /**
   * The text of the file at a proven canonical path when it is small enough to be read on the event
   * loop in one go, else its identity for the chunked read. A small file is first opened and proven
   * by what was opened (its descriptor's own name): one open, fstat, readlink, read and close, where
   * `identify` costs a stat and a readlink per component of the path before the open. Anything
   * that name cannot vouch for is identified first, as every proven read was. Throws `Swapped`.
   */
  private readSmallNow(path: string, options: { maxBytes: number; signal?: AbortState | undefined }): string | Identity {
    const sync = { maxBytes: options.maxBytes, maxSyncBytes: this.eventLoopReadBytes, signal: options.signal }
    const opened = this.eventLoopReadBytes > 0 && this.provenCalls.namesOpenedFiles() ? readOpenedProvenSync(this.provenCalls, path, sync) : undefined
    if (opened !== undefined) return opened
    const proven = identify(this.provenCalls, path)
    // A small file is read whole on the event loop in one call (see `eventLoopReadBytes`): the
    // chunk stream's promise per step (open, fstat, each read, close, each chunk) is most of the
    // CPU of reading a source file. Same open, identity check, decoding and cap.
    return (proven.size <= this.eventLoopReadBytes ? readProvenSync(this.provenCalls, path, proven, sync) : undefined) ?? proven
  }

  /**
   * `readContainedText`'s proof and open, streamed: decoded chunks of a workspace-contained regular
   * text file, for a reader that stops early (the lines up to the last one it wants). With
   * `proven`, `filePath` is a canonical path `contained()` returned a moment ago: it is checked
   * again on the event loop (still canonical, still inside) instead of being resolved again. Nothing
   * is cached: every call reads the file as it is now.
   */
  async *streamContainedText(workspace: Workspace, filePath: string, options: { signal?: AbortSignal | undefined; proven?: boolean } = {}): AsyncGenerator<{ text: string; bytes: number }> {
    const { signal } = options
    for (let attempt = 1; ; attempt++) {
      const path = await this.provenOrContained(workspace, filePath, attempt, options)
      // A swap shows at the identity check or the open, before the first chunk: a retry never repeats text.
      let started = false
      try {
        const proven = identify(this.provenCalls, path)
        for await (const chunk of this.chunks(path, signal, proven)) {
          started = true
          yield chunk
        }
        return
      } catch (error) {
        if (!(error instanceof Swapped) || started) throw error
        if (attempt === 2) throw swappedTwice(workspace, filePath)
      }
    }
  }

  /**
   * Rewrites workspace files all or nothing (see replace.ts): each proven inside the workspace and
   * holding exactly its `expected` text (else `FS_OUTSIDE_WORKSPACE` / `FS_CONFLICT`, nothing
   * written), staged beside its target and renamed over it. Returns the canonical paths written.
   */
  replaceContainedTexts(workspace: Workspace, replacements: readonly TextReplacement[], options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<string[]> {
    return replaceContainedTexts(this, workspace, replacements, options)
  }
}

/**
 * One step of a resolution towards an existing ancestor: `probe` did not resolve, so its last name
 * is remembered as missing and its parent is next. Anything but a missing name, or nothing left to
 * climb, is the resolution's failure.
 */
function missingStep(error: unknown, probe: string, missing: string[], path: string): string {
  const code = (error as NodeJS.ErrnoException).code
  const parent = dirname(probe)
  if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === probe) throw fsErrorFrom(error, `${quote(path)}`)
  missing.push(basename(probe))
  return parent
}

/** `statWith` on the event loop in the call: undefined when nothing is there. */
function statNow(calls: SyncCalls, path: string): PathInfo | undefined {
  try {
    return pathInfo(calls.stat(path))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw fsErrorFrom(error, `${quote(path)}`)
  }
}

function swappedTwice(workspace: Workspace, filePath: string): FsError {
  return new FsError(`${quote(filePath)} kept changing while it was opened; refused, as it may lead out of the workspace ${workspace.path}`, 'FS_OUTSIDE_WORKSPACE')
}

function pathInfo(info: Stats): PathInfo {
  return { type: typeOf(info), size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, dev: info.dev, ino: info.ino }
}

/** What a stat or a directory entry is, as `PathInfo` and `DirEntry` name it. */
function typeOf(info: { isFile(): boolean; isDirectory(): boolean }): 'file' | 'directory' | 'other' {
  return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other'
}
