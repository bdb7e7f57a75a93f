import { thenOrNow, type AbortState, type ContainedText, type FileSystem, type PathInfo, type Workspace } from 'dsh-core'
import type { CallProofs, ProvenStat } from './call-proofs.ts'

/**
 * How long after its last change a file (or a directory's entries) must have stood still before
 * what was read of it is reused. A file system stamps times from a coarse clock: two writes within
 * one tick can leave the same times behind, so a read made then could match a later state. Past
 * this age a later write moves the times. (Git treats a "racily clean" index entry the same way.)
 */
export const SETTLE_MS = 2000

/** True when `now` and `later` name one file in one state: same identity, size and change times. */
export function unchanged(now: PathInfo, later: PathInfo): boolean {
  return now.dev === later.dev && now.ino === later.ino && now.size === later.size && now.mtimeMs === later.mtimeMs && now.ctimeMs === later.ctimeMs
}

/** True when the state `info` shows had stood still for `settleMs` by `at` (a `Date.now()` taken before reading). */
export function settled(info: PathInfo, at: number, settleMs = SETTLE_MS): boolean {
  return at - Math.max(info.mtimeMs, info.ctimeMs) >= settleMs
}

export interface ProvenTextLimits {
  /** Files larger than this are read every time and never kept. */
  readonly maxFileBytes: number
  /** Bytes of text all kept files may take together; the least recently used go first. */
  readonly maxTotalBytes: number
  /** A file changed less than this before it was read is not kept (see `SETTLE_MS`). */
  readonly settleMs: number
}

export const PROVEN_TEXT_LIMITS: ProvenTextLimits = { maxFileBytes: 256 * 1024, maxTotalBytes: 4 * 1024 * 1024, settleMs: SETTLE_MS }

/** What `lookup` found: the stat (none when it could not be taken) and, for an unchanged file, its kept text. */
export type TextLookup = { readonly at: number; readonly info?: undefined; readonly hit?: undefined } | { readonly at: number; readonly info: PathInfo; readonly hit?: ContainedText }

interface Kept {
  readonly info: PathInfo
  readonly text: ContainedText
}

/**
 * Whole texts of workspace files as `ctx.fs` last read them, reused while a file is unchanged, so a
 * file asked about again and again (the source of every query, the files its answers point into)
 * costs one `stat` instead of a read. The caller proves the path first (`fs.contained`); a kept text
 * is reused only when the file at that path has the identity (device, inode), size and change times
 * it had when it was read through `fs.readContainedText` (which proves and identifies what it
 * opens), and had stood still for `settleMs` then. A miss reads the file as `readContainedText`
 * always does, with all of its checks and errors.
 */
export class ProvenTextCache {
  private readonly kept = new Map<string, Kept>()
  private totalBytes = 0

  constructor(
    private readonly fs: FileSystem,
    private readonly limits: ProvenTextLimits = PROVEN_TEXT_LIMITS,
  ) {}

  /** Files larger than this are never kept (see `fill`). */
  get maxFileBytes(): number {
    return this.limits.maxFileBytes
  }

  /**
   * The text of `path`, a canonical path `fs.contained(workspace, …)` returned a moment ago; at most
   * `maxBytes` bytes (else `FS_TOO_LARGE`, as `readContainedText`). With the call's `proofs`, the
   * file's stat is the one its proof took in this call (see `lookup`).
   */
  async read(workspace: Workspace, path: string, options: { readonly maxBytes: number; readonly signal?: AbortSignal | undefined; readonly proofs?: CallProofs | undefined }): Promise<ContainedText> {
    return thenOrNow(this.lookup(path, options.signal, options.proofs), (found) =>
      found.hit && found.info.size <= options.maxBytes ? found.hit : this.fill(workspace, path, found, { maxBytes: options.maxBytes, signal: options.signal }),
    )
  }

  /**
   * The file's stat now, and the kept text when the file is unchanged since it was read. A value,
   * not a promise, unless a symlink must be followed (on the thread pool). With the call's
   * `proofs`, the stat is the lstat the file's proof took in this call a moment ago (`statOf`),
   * not a second one: the proof walked to this very name, and every read still identifies what it opens.
   */
  lookup(path: string, signal: AbortSignal | undefined, proofs?: CallProofs): TextLookup | Promise<TextLookup> {
    const proven = proofs?.statOf(path)
    if (proven) return this.lookupProven(path, proven)
    // Taken before the stat, and the stat before any read: what is kept is never older than its key.
    const at = Date.now()
    let info: PathInfo | undefined | 'symlink'
    try {
      info = this.fs.lstatBesideProven(path, signal)
    } catch {
      // Known only as a cheaper way to a miss: a failed stat leaves the read to report the failure.
      return { at }
    }
    if (info !== 'symlink') return this.found(path, at, info?.type === 'file' ? info : undefined)
    return this.fs.stat(path, signal).then(
      (followed) => this.found(path, at, followed?.type === 'file' ? followed : undefined),
      () => ({ at }),
    )
  }

  /**
   * `lookup` with the lstat a proof of `path` took a moment ago (`CallProofs.statOf`), not a second
   * one: for a caller that knows the proof was taken in the same pass (no wait since), so a write
   * made meanwhile cannot have been missed.
   */
  lookupProven(path: string, proven: ProvenStat): TextLookup {
    return this.found(path, proven.at, proven.info.type === 'file' ? proven.info : undefined)
  }

  /** What `lookup` answers for the stat `info` (of a regular file) taken at `at`. */
  private found(path: string, at: number, info: PathInfo | undefined): TextLookup {
    if (!info) return { at }
    const kept = this.kept.get(path)
    if (!kept) return { at, info }
    if (!unchanged(kept.info, info)) {
      this.forget(path)
      return { at, info }
    }
    this.kept.delete(path)
    this.kept.set(path, kept)
    return { at, info, hit: kept.text }
  }

  /**
   * Reads `path` (proven by the caller, see `read`) with `fs.readContainedText` as proven: checked to
   * be still canonical and the file opened the one identified, not resolved a second time; a swap
   * meanwhile is proven afresh and refused as any read. Keeps the text when `lookup` saw a settled
   * file small enough. `signal` is only checked (a `Lifetime` or a call's scope serves: `AbortState`).
   */
  async fill(workspace: Workspace, path: string, found: TextLookup, options: { readonly maxBytes: number; readonly signal?: AbortState | undefined }): Promise<ContainedText> {
    return this.keptRead(path, found, await this.fs.readContainedText(workspace, path, { ...options, proven: true }))
  }

  /**
   * `fill` answered in the call for a small file (`ctx.fs.readContainedTextNow`: read on the event
   * loop in one go, same checks and refusals, thrown); undefined when the read must wait, and the
   * caller awaits `fill` then. A changed source is read after every edit a writer makes.
   */
  fillNow(workspace: Workspace, path: string, found: TextLookup, options: { readonly maxBytes: number; readonly signal?: AbortState | undefined }): ContainedText | undefined {
    const text = this.fs.readContainedTextNow(workspace, path, options)
    return text && this.keptRead(path, found, text)
  }

  /** `text`, read for `path` after `lookup` found `found`; kept when that saw a settled file small enough. */
  private keptRead(path: string, found: TextLookup, text: ContainedText): ContainedText {
    const { info } = found
    if (info && text.path === path && info.size <= this.limits.maxFileBytes && settled(info, found.at, this.limits.settleMs)) this.keep(path, { info, text })
    return text
  }

  private keep(path: string, entry: Kept): void {
    this.forget(path)
    this.kept.set(path, entry)
    this.totalBytes += entry.info.size
    for (const oldest of this.kept.keys()) {
      if (this.totalBytes <= this.limits.maxTotalBytes) break
      this.forget(oldest)
    }
  }

  private forget(path: string): void {
    const entry = this.kept.get(path)
    if (!entry) return
    this.kept.delete(path)
    this.totalBytes -= entry.info.size
  }
}
