import { join } from 'node:path'
import { FsError, type DirEntry, type FileSystem } from 'dsh-core'
import type { SkillCandidate, SkillDefinition } from 'dsh-skill'
import { skillFields, type SkillFields } from './fields.ts'
import { parseFrontmatter, splitFrontmatter } from './frontmatter.ts'
import type { SkillRoot } from './roots.ts'

/** A file that looks like a skill but cannot be offered, and why. */
export interface Rejection {
  readonly path: string
  readonly reason: string
}

/** What one root held at the last look. */
export interface RootReport {
  readonly root: SkillRoot
  readonly skills: number
  readonly rejected: readonly Rejection[]
}

export interface ScanLimits {
  readonly maxSkillFileBytes: number
  readonly maxFrontmatterBytes: number
}

/**
 * What each file's frontmatter gave, by path, while its size and modification time stay the same:
 * after an invalidation only changed files are read and parsed again (YAML parsing is most of a
 * discovery's cost). Bodies are never kept; loads always read the file.
 */
export class OutcomeCache {
  private readonly entries = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly outcome: Outcome }>()

  constructor(private readonly maxEntries: number) {}

  get(path: string, size: number, mtimeMs: number): Outcome | undefined {
    const entry = this.entries.get(path)
    return entry && entry.size === size && entry.mtimeMs === mtimeMs ? entry.outcome : undefined
  }

  set(path: string, size: number, mtimeMs: number, outcome: Outcome): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(path)) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(path, { size, mtimeMs, outcome })
  }
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
  /** What the frontmatter name must be. */
  readonly expectedName: string
  readonly flat: boolean
}

const absent = (error: unknown) => error instanceof FsError && (error.code === 'FS_NOT_FOUND' || error.code === 'FS_NOT_DIRECTORY')

/** A file is offered or rejected; absent files (deleted mid-scan) and plain Markdown are neither. */
type Outcome = { readonly kind: 'skill'; readonly fields: SkillFields } | { readonly kind: 'rejected'; readonly reason: string } | { readonly kind: 'none' }

/**
 * Reads a skill file's frontmatter only: chunks until the closing line, so a long body is not
 * read at discovery. Frontmatter problems are rejections; an I/O failure other than "gone" throws,
 * which makes the whole observation incomplete rather than silently smaller.
 */
async function readSkillFile(fs: FileSystem, file: SkillFile, limits: ScanLimits, cache: OutcomeCache): Promise<Outcome> {
  let info
  try {
    info = await fs.stat(file.path)
  } catch (error) {
    if (absent(error)) return { kind: 'none' }
    throw error
  }
  if (!info) return { kind: 'none' }
  if (info.type !== 'file') return { kind: 'rejected', reason: 'SKILL.md is not a regular file' }
  if (info.size > limits.maxSkillFileBytes) return { kind: 'rejected', reason: `the file has ${info.size} bytes, over the maxSkillFileBytes limit of ${limits.maxSkillFileBytes}` }
  const known = cache.get(file.path, info.size, info.mtimeMs)
  if (known) return known
  const outcome = await parseSkillFile(fs, file, limits)
  if (outcome.kind !== 'none') cache.set(file.path, info.size, info.mtimeMs, outcome)
  return outcome
}

async function parseSkillFile(fs: FileSystem, file: SkillFile, limits: ScanLimits): Promise<Outcome> {
  let head = ''
  let split
  try {
    for await (const chunk of fs.streamText(file.path)) {
      head += chunk.text
      split = splitFrontmatter(head, false)
      if (split || head.length > limits.maxFrontmatterBytes) break
    }
    split ??= head.length > limits.maxFrontmatterBytes ? { ok: false as const, reason: `no frontmatter closed within ${limits.maxFrontmatterBytes} bytes` } : splitFrontmatter(head)
  } catch (error) {
    if (absent(error)) return { kind: 'none' }
    if (error instanceof FsError && error.code === 'FS_NOT_TEXT') return { kind: 'rejected', reason: 'the file is not UTF-8 text' }
    throw error
  }
  if (!split!.ok) {
    // A flat Markdown file with no frontmatter at all is a note beside the skills, not a broken skill.
    if (file.flat && !head.startsWith('---')) return { kind: 'none' }
    return { kind: 'rejected', reason: split!.reason }
  }
  return outcomeOf(split!.yaml, file.expectedName)
}

function outcomeOf(yaml: string, expectedName: string): Outcome {
  const parsed = parseFrontmatter(yaml)
  if (!parsed.ok) return { kind: 'rejected', reason: parsed.reason }
  const checked = skillFields(parsed.data, expectedName)
  return checked.ok ? { kind: 'skill', fields: checked.fields } : { kind: 'rejected', reason: checked.reason }
}

function skillFileOf(root: SkillRoot, entry: DirEntry): SkillFile | Rejection | undefined {
  if (entry.name === root.skip) return undefined
  switch (entry.type) {
    case 'directory':
      return { path: join(entry.path, 'SKILL.md'), directory: entry.path, expectedName: entry.name, flat: false }
    case 'file':
      return entry.name.endsWith('.md') ? { path: entry.path, directory: root.path, expectedName: entry.name.slice(0, -3), flat: true } : undefined
    case 'missing':
      return { path: entry.path, reason: 'a broken symbolic link' }
    case 'other':
      return undefined
  }
}

/** Scans one root: its candidates and what it rejected. A missing root is an empty one. */
export async function scanRoot(fs: FileSystem, root: SkillRoot, providerName: string, limits: ScanLimits, cache: OutcomeCache): Promise<{ candidates: SkillCandidate[]; report: RootReport }> {
  let entries: DirEntry[]
  try {
    entries = await fs.listDir(root.path)
  } catch (error) {
    if (absent(error)) return { candidates: [], report: { root, skills: 0, rejected: [] } }
    throw error
  }
  const candidates: SkillCandidate[] = []
  const rejected: Rejection[] = []
  for (const entry of entries) {
    const file = skillFileOf(root, entry)
    if (!file) continue
    if ('reason' in file) {
      rejected.push(file)
      continue
    }
    const outcome = await readSkillFile(fs, file, limits, cache)
    switch (outcome.kind) {
      case 'none':
        break
      case 'rejected':
        rejected.push({ path: file.path, reason: outcome.reason })
        break
      case 'skill': {
        const locator: SkillLocator = { path: file.path, directory: file.directory }
        candidates.push({ ...outcome.fields, source: root.source, provider: providerName, rank: root.rank, locator, resourceBase: { kind: 'directory', path: file.directory }, path: file.path })
        break
      }
    }
  }
  return { candidates, report: { root, skills: candidates.length, rejected } }
}

/**
 * Loads a listed skill again, whole: frontmatter and body are read fresh on every load, so an edit
 * shows at once. Undefined when the file is gone or no longer a valid skill of that name.
 */
export async function loadSkill(fs: FileSystem, candidate: SkillCandidate, limits: ScanLimits, signal: AbortSignal | undefined): Promise<SkillDefinition | undefined> {
  const locator = candidate.locator as SkillLocator
  let text: string
  try {
    text = await fs.readText(locator.path, { maxBytes: limits.maxSkillFileBytes, ...(signal ? { signal } : {}) })
  } catch (error) {
    if (absent(error)) return undefined
    throw error
  }
  const split = splitFrontmatter(text)
  if (!split?.ok) return undefined
  const outcome = outcomeOf(split.yaml, candidate.name)
  if (outcome.kind !== 'skill') return undefined
  return {
    ...outcome.fields,
    source: candidate.source,
    provider: candidate.provider,
    resourceBase: { kind: 'directory', path: locator.directory },
    path: locator.path,
    content: split.body.replace(/\r\n/g, '\n').trim(),
  }
}
