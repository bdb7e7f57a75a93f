import { chmod, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { z } from 'zod'
import { errorMessage, HarnessError } from '../errors.ts'
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

/** A trust file larger than this is not a list of directories someone made by hand or with `dsh trust`. */
const MAX_STORE_BYTES = 1024 * 1024

/**
 * The user's recorded trust decisions, one per canonical directory, in `trusted.json` (0600 in a
 * 0700 directory, both tightened when they already exist). A directory's decision covers what is
 * below it; the nearest recorded directory decides, so `dsh trust --revoke /w/vendor` inside a
 * trusted `/w` keeps `/w/vendor` untrusted. Read on every question: another dsh process may have
 * decided meanwhile. A file that cannot be read or is malformed decides nothing (everything stays
 * untrusted) and is never overwritten: `record` fails with `TRUST_STORE_INVALID` instead.
 */
export class TrustStore {
  /** `onUnreadable` hears why, each time a read finds a file that decides nothing (the service logs it once). */
  constructor(
    readonly file: string = trustStoreFile(),
    private readonly onUnreadable?: (problem: string) => void,
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
    const file = await this.readForUpdate()
    const entry = { trusted, decidedAt: new Date().toISOString() }
    file.directories[canonical] = entry
    await this.write(file)
    return { directory: canonical, ...entry }
  }

  /** Forgets the decision recorded for exactly `directory`; says whether there was one. */
  async forget(directory: string): Promise<boolean> {
    const canonical = await TrustStore.canonical(directory)
    const file = await this.readForUpdate()
    if (!Object.hasOwn(file.directories, canonical)) return false
    delete file.directories[canonical]
    await this.write(file)
    return true
  }

  private async readForUpdate(): Promise<StoreFile> {
    const stored = await this.read()
    if (stored.ok) return stored.file
    throw new HarnessError(`${this.file} is not a trust file dsh can update (${stored.problem}); fix or remove it`, 'TRUST_STORE_INVALID')
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
    const dir = dirname(this.file)
    await mkdir(dir, { recursive: true, mode: 0o700 })
    // mkdir leaves an existing directory as it was: tighten it, it holds secrets too.
    await chmod(dir, 0o700)
    const sorted: StoreFile = { version: 1, directories: Object.fromEntries(Object.entries(file.directories).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }
    // A sibling then a rename: a reader never sees half a file, and a crash leaves the old one.
    const temporary = `${this.file}.${process.pid}.tmp`
    try {
      await writeFile(temporary, `${JSON.stringify(sorted, null, 2)}\n`, { mode: 0o600 })
      await chmod(temporary, 0o600)
      await rename(temporary, this.file)
    } catch (error) {
      await rm(temporary, { force: true })
      throw new HarnessError(`${this.file} cannot be written: ${errorMessage(error)}`, 'TRUST_STORE_WRITE_FAILED', { cause: error })
    }
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
