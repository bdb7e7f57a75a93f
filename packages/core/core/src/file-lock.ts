import { open, rm, stat, utimes } from 'node:fs/promises'
import { errorMessage } from './errors.ts'
import { Lifetime } from './lifetime/lifetime.ts'
import { readSmallRegularFile } from './regular-file.ts'

export interface LockTimings {
  /** A lock whose file was not refreshed for this long was left by a process that died or froze. */
  readonly staleMs: number
  /** How long to wait for a lock another process holds before giving up. */
  readonly waitMs: number
}

/** The caller's coded error for a lock it could not take or no longer holds (`MCP_TOKEN_STORE_LOCKED`, `TRUST_STORE_LOCKED`). */
export type LockedError = (message: string) => Error

const POLL_MS = 25
/** A holder's token is a pid and a UUID: a lock file longer than this is not one of ours. */
const MAX_LOCK_FILE_BYTES = 1024

/**
 * A lock file shared by processes, held by whoever wrote the token inside it. While held it is
 * refreshed (its mtime touched every quarter of `staleMs`), so only a holder that died or froze
 * goes stale. Every refresh and every `verify()` reads the token back: a holder whose lock was taken
 * over (it froze past `staleMs`) learns it is no longer the holder, and `release()` removes the file
 * only while it still holds the holder's own token: never a lock another process holds.
 *
 * Not proper-lockfile: its release and its stale removal `rmdir` the lock without checking whose it
 * is, so a holder that froze and came back removes the lock of the process that took it over.
 */
export class FileLock {
  // node:crypto on first use only: a start that takes no lock never loads it.
  private readonly token = `${process.pid} ${process.getBuiltinModule('node:crypto').randomUUID()}`
  private timer: NodeJS.Timeout | undefined
  private lostBecause: string | undefined
  private released = false

  private constructor(
    readonly path: string,
    private readonly timings: LockTimings,
    private readonly lockedError: LockedError,
  ) {}

  /** Takes the lock at `path`, waiting up to `timings.waitMs` for another holder (then `lockedError`). */
  static async acquire(path: string, timings: LockTimings, lockedError: LockedError): Promise<FileLock> {
    const lock = new FileLock(path, timings, lockedError)
    const until = Date.now() + timings.waitMs
    while (!(await lock.tryCreate())) {
      if (await lock.removeIfStale()) continue
      if (Date.now() >= until) throw lockedError(`${path} is held by another process (${Math.round(timings.waitMs / 1000)} s waited); try again`)
      await Lifetime.run({}, (waiting) => waiting.sleep(POLL_MS))
    }
    lock.keepFresh()
    return lock
  }

  /** Throws the caller's locked error unless this process still holds the lock (before each write). */
  async verify(): Promise<void> {
    if (!this.lostBecause && (await this.holder()) !== this.token) this.lose('another process took the lock over')
    if (this.lostBecause) throw this.lockedError(`${this.path}: ${this.lostBecause}; nothing was written`)
  }

  /** Stops refreshing and removes the lock file if it is still this holder's. */
  async release(): Promise<void> {
    this.released = true
    clearTimeout(this.timer)
    // A lock file that is no longer ours, or no longer a lock file at all, is left where it is.
    if (this.lostBecause || (await this.holder().catch(() => undefined)) !== this.token) return
    await rm(this.path, { force: true })
  }

  private async tryCreate(): Promise<boolean> {
    let handle
    try {
      handle = await open(this.path, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw error
    }
    try {
      await handle.writeFile(this.token)
    } finally {
      await handle.close()
    }
    return true
  }

  /**
   * Removes a lock nobody refreshed for `staleMs`. Two waiters may judge the same file stale: the
   * token read before is compared with the one read right before removing, so the second never
   * removes the lock the first has just created (a fresh file has another token).
   */
  private async removeIfStale(): Promise<boolean> {
    const seen = await this.holder()
    const age = await stat(this.path).then(
      (info) => Date.now() - info.mtimeMs,
      () => Number.POSITIVE_INFINITY,
    )
    if (age <= this.timings.staleMs) return false
    if (seen === undefined) return true // gone meanwhile: try again
    if ((await this.holder()) !== seen) return true
    await rm(this.path, { force: true })
    return true
  }

  private keepFresh(): void {
    this.timer = setTimeout(() => void this.refresh(), Math.max(1, Math.floor(this.timings.staleMs / 4)))
    this.timer.unref()
  }

  private async refresh(): Promise<void> {
    if (this.released) return
    let holder
    try {
      holder = await this.holder()
    } catch (error) {
      return this.lose(errorMessage(error))
    }
    if (holder !== this.token) return this.lose('another process took the lock over (this one did not refresh it in time)')
    const now = new Date()
    await utimes(this.path, now, now).catch(() => {})
    if (!this.lostBecause && !this.released) this.keepFresh()
  }

  private lose(why: string): void {
    this.lostBecause ??= why
    clearTimeout(this.timer)
  }

  /**
   * The token in the lock file, or undefined when there is none. Read bounded and only from a
   * regular file: a FIFO planted at the lock's path would block a plain read for good, and the
   * wait for it would spin; it is the caller's locked error instead, naming the file.
   */
  private async holder(): Promise<string | undefined> {
    try {
      return await readSmallRegularFile(this.path, MAX_LOCK_FILE_BYTES)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOTREGULAR' || code === 'EFBIG') throw this.lockedError(`${errorMessage(error)}; it is no lock file of dsh's: remove it`)
      return undefined
    }
  }
}
