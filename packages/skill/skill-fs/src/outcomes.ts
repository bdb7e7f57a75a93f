import { skillFields, type FileOrigin, type SkillFields } from 'dsh-skill'
import type { FrontmatterParser } from './frontmatter.ts'

/**
 * What a skill file gave: a skill (with what it does not do as the spec says), or a rejection with
 * its reason. `lasting: false` marks a rejection the next read must look at again (an I/O error
 * rather than the file's content).
 */
export type Outcome =
  | { readonly kind: 'skill'; readonly fields: SkillFields; readonly warnings: readonly string[] }
  /** `at`: the file the reason is about, when it is not the skill file itself (a `skill.md` in the wrong case). */
  | { readonly kind: 'rejected'; readonly reason: string; readonly lasting: boolean; readonly at?: string }
  | { readonly kind: 'none' }

/** A file deleted mid-scan: neither offered nor rejected. */
export const NONE: Outcome = { kind: 'none' }

export function rejected(reason: string, lasting = true, at?: string): Outcome {
  return at === undefined ? { kind: 'rejected', reason, lasting } : { kind: 'rejected', reason, lasting, at }
}

/** The outcome of a frontmatter already cut out of its file, parsed by `parse` (`frontmatterParser()`). */
export function outcomeOf(yaml: string, origin: FileOrigin, parse: FrontmatterParser): Outcome {
  const parsed = parse(yaml)
  if (!parsed.ok) return rejected(parsed.reason)
  const checked = skillFields(parsed.data, origin)
  if (!checked.ok) return rejected(checked.reason)
  if (!parsed.repaired.length) return { kind: 'skill', fields: checked.fields, warnings: checked.warnings }
  const repaired = `${parsed.repaired.join(', ')}: an unquoted ": " in the value, which YAML reads as a mapping; read as if quoted (quote the value to silence this)`
  return { kind: 'skill', fields: checked.fields, warnings: [...checked.warnings, repaired] }
}

/**
 * What each file's frontmatter gave, by path, while its size and modification time stay the same:
 * after an invalidation only changed files are read and parsed again (YAML parsing is most of a
 * discovery's cost). Bodies are never kept; loads always read the file. Only lasting outcomes are kept.
 */
export class OutcomeCache {
  private readonly entries = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly outcome: Outcome }>()

  constructor(private readonly maxEntries: number) {}

  get(path: string, size: number, mtimeMs: number): Outcome | undefined {
    const entry = this.entries.get(path)
    return entry && entry.size === size && entry.mtimeMs === mtimeMs ? entry.outcome : undefined
  }

  set(path: string, size: number, mtimeMs: number, outcome: Outcome): void {
    if (outcome.kind === 'rejected' && !outcome.lasting) return
    if (this.entries.size >= this.maxEntries && !this.entries.has(path)) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(path, { size, mtimeMs, outcome })
  }
}
