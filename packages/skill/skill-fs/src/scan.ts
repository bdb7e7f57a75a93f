import { join } from 'node:path'
import { assertNever, type DirEntry, type FileSystem } from 'dsh-core'
import type { FileOrigin, SkillCandidate, SkillFields } from 'dsh-skill'
import { frontmatterParser, type FrontmatterParser } from './frontmatter.ts'
import { readHead } from './head.ts'
import { NONE, outcomeOf, rejected, type Outcome, type OutcomeCache } from './outcomes.ts'
import { absent, readProblem } from './problems.ts'
import type { SkillRoot } from './roots.ts'

/** A file that looks like a skill but cannot be offered, and why. */
export interface Rejection {
  readonly path: string
  readonly reason: string
}

/**
 * One root looked at: what it offers (in its entries' order), what it rejected, what it offers
 * with a warning, why it could not be listed at all, and whether a passing I/O error means the next
 * read must look again.
 */
export interface ScannedRoot {
  readonly root: SkillRoot
  readonly candidates: SkillCandidate[]
  readonly rejected: readonly Rejection[]
  /** Skills offered although they stray from the spec (a name that differs from its directory, a long description). */
  readonly warnings: readonly Rejection[]
  readonly unreadable?: string
  /** Entries past `maxRootEntries` were not looked at: how many, for the root's row and the log. */
  readonly unlooked?: number
  readonly lookAgain: boolean
}

export interface ScanSettings {
  readonly maxSkillFileBytes: number
  readonly maxFrontmatterBytes: number
  readonly io: 'sync' | 'async'
  /** Files of one root read at once (with `io: async`). */
  readonly readConcurrency: number
  /** The root's entries that can be skills (folders, `.md` files, broken links) looked at, in name order. */
  readonly maxRootEntries: number
}

/** Where a candidate's body is: handed back to `load()` as the locator. */
export interface SkillLocator {
  readonly path: string
  readonly directory: string
}

/** One skill file in a root: `<root>/<name>/SKILL.md` (a bundle) or `<root>/<name>.md` (flat). */
interface SkillFile {
  readonly path: string
  /** The resource base: the bundle directory, or the root for a flat file. */
  readonly directory: string
  /** The name the spec expects it to carry. */
  readonly origin: FileOrigin
}

export { absent }

/** A file after its I/O: decided already (gone, rejected, remembered), or a frontmatter still to parse. */
type Read = Outcome | { readonly kind: 'unparsed'; readonly yaml: string; readonly size: number; readonly mtimeMs: number }

/** A read failure as that file's rejection: a permission or a symlink loop is the file's problem, not the root's. */
function unreadable(error: unknown): Outcome {
  const problem = readProblem(error)
  return rejected(problem.reason, problem.lasting)
}

/** What Node puts in a directory entry's name for bytes that are not UTF-8. */
const UNDECODABLE = '\uFFFD'
const NOT_UTF8_NAME = 'its name is not valid UTF-8 (shown as \uFFFD), so it cannot be opened by name; rename it'

/**
 * The I/O for one skill file: a stat, then (unless its outcome is remembered for that size and mtime)
 * its frontmatter only (see `readHead`). A head that is not usable, and a file that cannot be read,
 * are rejections of that file alone.
 */
async function readSkillFile(fs: FileSystem, file: SkillFile, settings: ScanSettings, cache: OutcomeCache): Promise<Read> {
  let info
  try {
    info = await fs.stat(file.path)
  } catch (error) {
    return absent(error) ? NONE : unreadable(error)
  }
  if (!info) {
    // Listed, yet not there: a name Node could not decode shows U+FFFD for its bytes and names nothing.
    if (file.origin.expectedName.includes(UNDECODABLE)) return rejected(NOT_UTF8_NAME)
    return file.origin.kind === 'directory' ? missingSkillFile(fs, file) : NONE
  }
  if (info.type !== 'file') return rejected('SKILL.md is not a regular file')
  if (info.size > settings.maxSkillFileBytes) return rejected(`the file has ${info.size} bytes, over the maxSkillFileBytes limit of ${settings.maxSkillFileBytes}`)
  const known = cache.get(file.path, info.size, info.mtimeMs)
  if (known) return known
  let head
  try {
    head = await readHead(fs, file.path, info.size, settings.maxFrontmatterBytes)
  } catch (error) {
    return unreadable(error)
  }
  if (!head) return NONE
  if (head.ok) return { kind: 'unparsed', yaml: head.yaml, size: info.size, mtimeMs: info.mtimeMs }
  const outcome = rejected(head.reason)
  cache.set(file.path, info.size, info.mtimeMs, outcome)
  return outcome
}

/** The outcome of a read, parsing its frontmatter if it still has to be (and remembering that). */
function settle(read: Read, file: SkillFile, cache: OutcomeCache, parse: FrontmatterParser | undefined): Outcome {
  if (read.kind !== 'unparsed') return read
  // scanRoot loads the parser whenever a read is unparsed.
  const outcome = outcomeOf(read.yaml, file.origin, parse!)
  cache.set(file.path, read.size, read.mtimeMs, outcome)
  return outcome
}

/** What a root entry is: a skill file to read, a rejection already, or nothing of ours. */
async function skillFileOf(fs: FileSystem, root: SkillRoot, entry: DirEntry): Promise<SkillFile | Rejection | undefined> {
  if (entry.name === root.skip) return undefined
  switch (entry.type) {
    case 'directory':
      return { path: join(entry.path, 'SKILL.md'), directory: entry.path, origin: { expectedName: entry.name, kind: 'directory' } }
    case 'file':
      return entry.name.endsWith('.md') ? { path: entry.path, directory: root.path, origin: { expectedName: entry.name.slice(0, -3), kind: 'file' } } : undefined
    case 'missing':
      return { path: entry.path, reason: await brokenLink(fs, entry.path) }
    case 'other':
      // A FIFO, socket or device named like a flat skill: never opened, but said.
      return entry.name.endsWith('.md') ? { path: entry.path, reason: 'not a regular file' } : undefined
    default:
      return assertNever(entry.type, 'directory entry type')
  }
}

/**
 * A bundle directory without a readable `SKILL.md`: a directory of resources stays silent, but a
 * `SKILL.md` that is a broken link, or a `skill.md` in the wrong case (other systems are not
 * case-sensitive), is what the author meant as a skill and gets a line.
 */
async function missingSkillFile(fs: FileSystem, file: SkillFile): Promise<Outcome> {
  let entries: DirEntry[]
  try {
    entries = await fs.listDir(file.directory)
  } catch {
    return NONE
  }
  for (const entry of entries) {
    if (entry.name === 'SKILL.md' && entry.type === 'missing') return rejected(await brokenLink(fs, entry.path))
  }
  const misnamed = entries.find((entry) => entry.name !== 'SKILL.md' && entry.name.toLowerCase() === 'skill.md')
  return misnamed ? rejected('the file must be named SKILL.md, in capitals', true, misnamed.path) : NONE
}

/** A symlink whose target cannot be reached: a loop, or a target that is not there. */
async function brokenLink(fs: FileSystem, path: string): Promise<string> {
  try {
    if (!(await fs.stat(path))) return 'a broken symbolic link: its target does not exist'
  } catch (error) {
    return readProblem(error).reason
  }
  return 'a broken symbolic link'
}

/**
 * A candidate built field by field: spreading the fields object into a literal that adds more
 * properties takes V8's slow path, about 10 µs per candidate, a tenth of a cold discovery.
 */
function candidateOf(fields: SkillFields, root: SkillRoot, file: SkillFile, provider: string): SkillCandidate {
  const { whenToUse, metadata } = fields
  return {
    name: fields.name,
    description: fields.description,
    invocation: fields.invocation,
    source: root.source,
    provider,
    rank: root.rank,
    locator: { path: file.path, directory: file.directory } satisfies SkillLocator,
    resourceBase: { kind: 'directory', path: file.directory },
    path: file.path,
    ...(whenToUse !== undefined ? { whenToUse } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  }
}

/**
 * Scans one root: its candidates and what it rejected. A missing root is an empty one; a root that
 * cannot be listed (no permission, a symlink loop) offers nothing and says why. Nothing one entry
 * does can hide another entry, or another root.
 */
export async function scanRoot(fs: FileSystem, root: SkillRoot, providerName: string, settings: ScanSettings, cache: OutcomeCache): Promise<ScannedRoot> {
  let entries: DirEntry[]
  try {
    entries = await fs.listDir(root.path)
  } catch (error) {
    if (absent(error)) return { root, candidates: [], rejected: [], warnings: [], lookAgain: false }
    const problem = readProblem(error)
    return { root, candidates: [], rejected: [], warnings: [], unreadable: problem.reason, lookAgain: !problem.lasting }
  }
  const { looked, unlooked } = boundEntries(entries, root, settings.maxRootEntries)
  const files = await Promise.all(looked.map((entry) => skillFileOf(fs, root, entry)))
  const reads = await mapBounded(files, settings.io === 'sync' ? 1 : settings.readConcurrency, (file) => (file && !('reason' in file) ? readSkillFile(fs, file, settings, cache) : undefined))
  // All the I/O first, then all the parsing: YAML parsing in one tight loop runs measurably faster
  // (about a sixth of a cold discovery) than parsing interleaved with system calls. The parser (the
  // yaml package) is loaded only when some file has to be parsed.
  const parse = reads.some((read) => read?.kind === 'unparsed') ? await frontmatterParser() : undefined
  const candidates: SkillCandidate[] = []
  const rejections: Rejection[] = []
  const warnings: Rejection[] = []
  let lookAgain = false
  files.forEach((file, index) => {
    if (!file) return
    if ('reason' in file) return void rejections.push(file)
    const outcome = settle(reads[index]!, file, cache, parse)
    switch (outcome.kind) {
      case 'none':
        return
      case 'rejected':
        lookAgain ||= !outcome.lasting
        return void rejections.push({ path: outcome.at ?? file.path, reason: outcome.reason })
      case 'skill':
        for (const reason of outcome.warnings) warnings.push({ path: file.path, reason })
        return void candidates.push(candidateOf(outcome.fields, root, file, providerName))
      default:
        return assertNever(outcome, 'skill file outcome')
    }
  })
  return { root, candidates, rejected: rejections, warnings, lookAgain, ...(unlooked ? { unlooked } : {}) }
}

/**
 * The entries of a root that can be skills (a folder costs a stat and, without a SKILL.md, a
 * listing: 20,000 empty folders took 1.3 s of system calls at every rebuild), the first `max` in
 * name order; other files cost nothing and are not counted.
 */
function boundEntries(entries: readonly DirEntry[], root: SkillRoot, max: number): { looked: DirEntry[]; unlooked: number } {
  const looked: DirEntry[] = []
  let unlooked = 0
  for (const entry of entries) {
    if (entry.name === root.skip || (entry.type === 'file' && !entry.name.endsWith('.md'))) continue
    if (looked.length < max) looked.push(entry)
    else unlooked++
  }
  return { looked, unlooked }
}

/**
 * `work` over every item, at most `limit` at a time, results in item order (with `io: async`, several
 * files' reads wait on the threadpool at once). The first failure rejects; no new item is started after it.
 */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R> | R): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++
      try {
        results[index] = await work(items[index]!)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
