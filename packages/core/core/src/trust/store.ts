import { realpath } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { z } from 'zod'
import { errorMessage, HarnessError } from '../errors.ts'
import { FileLock, type LockTimings } from '../file-lock.ts'
import { ensurePrivateDirectory, PRIVATE_FILE_MODE, writeFileAtomically } from '../private-file.ts'
import { readSmallRegularFile } from '../regular-file.ts'
import { dshHome } from '../home.ts'
import { lazy } from '../lazy.ts'

/** `$DSH_HOME/trusted.json`, else `~/.dsh/trusted.json`. */
export function trustStoreFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(dshHome(env), 'trusted.json')
}

/** The file's shape, built on its first read: a start that asks nothing about trust never makes it (issue 27 item 5). */
export const storeFileSchema = lazy(() => z.strictObject({ version: z.literal(1), directories: z.record(z.string(), z.strictObject({ trusted: z.boolean(), decidedAt: z.string() })) }))
type StoreFile = z.infer<ReturnType<typeof storeFileSchema>>

/** One recorded decision. */
export interface TrustRecord {
  /** The canonical directory it was recorded for. */
  readonly directory: string
  readonly trusted: boolean
  /** ISO time of the decision. */
  readonly decidedAt: string
}

/**
 * How long a writer waits for another one's lock on trusted.json (`<file>.lock`), and after how long
 * without a refresh a lock counts as left by a process that died. A write holds it for milliseconds.
 */
export const TRUST_LOCK_TIMINGS: LockTimings = { staleMs: 10_000, waitMs: 30_000 }

/** A trust file larger than this is not a list of directories someone made by hand or with `dsh trust`. */
const MAX_STORE_BYTES = 1024 * 1024

/**
 * The user's recorded trust decisions, one per canonical directory, in `trusted.json` (0600 in a
 * 0700 directory, both tightened when they already exist). A directory's decision covers what is
 * below it; the nearest recorded directory decides, so `dsh trust --revoke /w/vendor` inside a
 * trusted `/w` keeps `/w/vendor` untrusted. Read on every question: another dsh process may have
 * decided meanwhile. Writers (`dsh trust` in two shells, a prompt's answer in a long-lived host)
 * each hold `<file>.lock` across their read and rewrite, so no decision is lost to another's.
 * A file that cannot be read or is malformed decides nothing (everything stays untrusted) and is
 * never overwritten: `record` fails with `TRUST_STORE_INVALID` instead.
 */
export class TrustStore {
  /** `onUnreadable` hears why, each time a read finds a file that decides nothing (the service logs it once). */
  constructor(
    readonly file: string = trustStoreFile(),
    private readonly onUnreadable?: (problem: string) => void,
    private readonly lockTimings: LockTimings = TRUST_LOCK_TIMINGS,
  ) {}

  /** The canonical form of a directory: absolute, symlinks resolved (the nearest existing ancestor for a missing path). */
  static async canonical(directory: string): Promise<string> {
    const absolute = resolve(directory)
    const rest: string[] = []
    for (let current = absolute; ; ) {
      try {
        return join(await realpath(current), ...rest)
      } catch {
        const parent = dirname(current)
        if (parent === current) return absolute
        rest.unshift(basename(current))
        current = parent
      }
    }
  }

  /** The decision recorded for `directory` (canonical) or its nearest recorded ancestor. */
  async lookup(directory: string): Promise<TrustRecord | undefined> {
    const records = await this.list()
    let best: TrustRecord | undefined
    for (const record of records) {
      if (!covers(record.directory, directory)) continue
      if (!best || record.directory.length > best.directory.length) best = record
    }
    return best
  }

  /** Every recorded decision, sorted by directory. A missing file is an empty list. */
  async list(): Promise<TrustRecord[]> {
    const stored = await this.read()
    if (!stored.ok) {
      this.onUnreadable?.(stored.problem)
      return []
    }
    return toRecords(stored.file)
  }

  /** Why the file decides nothing, if it does not. */
  async problem(): Promise<string | undefined> {
    const stored = await this.read()
    return stored.ok ? undefined : stored.problem
  }

  /** Records a decision for `directory` (canonicalised here), replacing its earlier one. */
  async record(directory: string, trusted: boolean): Promise<TrustRecord> {
    const canonical = await TrustStore.canonical(directory)
    return this.updating(async (file) => {
      const entry = { trusted, decidedAt: new Date().toISOString() }
      file.directories[canonical] = entry
      await this.write(file)
      return { directory: canonical, ...entry }
    })
  }

  /** Forgets the decision recorded for exactly `directory`; says whether there was one. */
  async forget(directory: string): Promise<boolean> {
    const canonical = await TrustStore.canonical(directory)
    return this.updating(async (file) => {
      if (!Object.hasOwn(file.directories, canonical)) return false
      delete file.directories[canonical]
      await this.write(file)
      return true
    })
  }

  /** `change` on the file as it is now, while holding its lock: another writer's decision is never lost. */
  private async updating<T>(change: (file: StoreFile) => Promise<T>): Promise<T> {
    try {
      // The directory holds the lock too; it holds secrets, so it is 0700 (tightened if it exists).
      await ensurePrivateDirectory(dirname(this.file))
    } catch (error) {
      throw this.cannotWrite(error)
    }
    const lock = await FileLock.acquire(`${this.file}.lock`, this.lockTimings, (message) => new HarnessError(message, 'TRUST_STORE_LOCKED'))
    try {
      const stored = await this.read()
      if (!stored.ok) throw new HarnessError(`${this.file} is not a trust file dsh can update (${stored.problem}); fix or remove it`, 'TRUST_STORE_INVALID')
      // A holder that froze past the stale time may have been taken over: then it writes nothing.
      await lock.verify()
      return await change(stored.file)
    } finally {
      await lock.release()
    }
  }

  private async read(): Promise<{ ok: true; file: StoreFile } | { ok: false; problem: string }> {
    let text: string
    try {
      text = await readSmallRegularFile(this.file, MAX_STORE_BYTES)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, file: { version: 1, directories: {} } }
      return { ok: false, problem: errorMessage(error) }
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      return { ok: false, problem: `not JSON: ${errorMessage(error)}` }
    }
    const parsed = storeFileSchema().safeParse(json)
    if (!parsed.success) return { ok: false, problem: `not a trust file: ${parsed.error.issues[0]?.path.join('.') || 'file'}: ${parsed.error.issues[0]?.message}` }
    // Only canonical absolute keys can ever match a question.
    for (const key of Object.keys(parsed.data.directories)) if (!isAbsolute(key)) return { ok: false, problem: `${JSON.stringify(key)} is not an absolute directory` }
    return { ok: true, file: parsed.data }
  }

  private async write(file: StoreFile): Promise<void> {
    const sorted: StoreFile = { version: 1, directories: Object.fromEntries(Object.entries(file.directories).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }
    // A uniquely named sibling then a rename: a reader never sees half a file, and a crash leaves the old one.
    try {
      await writeFileAtomically(this.file, `${JSON.stringify(sorted, null, 2)}\n`, PRIVATE_FILE_MODE)
    } catch (error) {
      throw this.cannotWrite(error)
    }
  }

  private cannotWrite(error: unknown): HarnessError {
    return new HarnessError(`${this.file} cannot be written: ${errorMessage(error)}`, 'TRUST_STORE_WRITE_FAILED', { cause: error })
  }
}

function toRecords(file: StoreFile): TrustRecord[] {
  return Object.entries(file.directories)
    .map(([directory, entry]) => ({ directory, ...entry }))
    .sort((a, b) => (a.directory < b.directory ? -1 : a.directory > b.directory ? 1 : 0))
}

/** Whether a decision for `parent` covers `child` (both canonical): the same directory or one below it. */
export function covers(parent: string, child: string): boolean {
  if (child === parent) return true
  const prefix = parent.endsWith(sep) ? parent : parent + sep
  return child.startsWith(prefix)
}
