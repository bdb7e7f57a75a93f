import type { SkillSummary } from '../types.ts'
import { compareNames } from '../name.ts'

/**
 * Where a skill comes from, as the catalog groups it: `project` (any `project-*` source) first, then
 * skills from code and custom roots (their source as the label), then `user`, then `bundled`, then
 * skills an MCP server serves (`mcp:<server>`, one group per server).
 */
export interface Origin {
  readonly rank: number
  readonly label: string
}

export function originOf(source: string): Origin {
  if (source.startsWith('project')) return { rank: 0, label: 'project' }
  if (source.startsWith('user')) return { rank: 2, label: 'user' }
  if (source === 'bundled') return { rank: 3, label: 'bundled' }
  if (source.startsWith('mcp:')) return { rank: 4, label: source }
  return { rank: 1, label: source }
}

/** Orders groups and entries for display: origin, then its label, then name. */
export function compareOrigins(a: Origin, b: Origin): number {
  return a.rank - b.rank || compareNames(a.label, b.label)
}

/**
 * The skills each session loaded (with the tool or `/name`), most recent last. Kept in memory per
 * session object: a session that ends is forgotten with it.
 */
export class RecentSkills {
  private readonly bySession = new WeakMap<object, Map<string, number>>()
  private clock = 0

  used(session: object | undefined, name: string): void {
    if (!session) return
    let used = this.bySession.get(session)
    if (!used) this.bySession.set(session, (used = new Map()))
    used.set(name, ++this.clock)
  }

  /** When each skill was last used in this session (a larger number is more recent). */
  of(session: object | undefined): ReadonlyMap<string, number> {
    return (session && this.bySession.get(session)) || NONE
  }
}

const NONE: ReadonlyMap<string, number> = new Map()

/**
 * The order in which skills earn room in the catalog: project before user (see `originOf`), then
 * the ones this session used most recently, then by name. Which skills keep a description, which are
 * listed by name only and which are left out follows this order; display order does not (see `fitCatalog`).
 */
export function byPriority<T extends Pick<SkillSummary, 'name' | 'source'>>(skills: readonly T[], recent: ReadonlyMap<string, number>): { skill: T; origin: Origin }[] {
  return skills
    .map((skill) => ({ skill, origin: originOf(skill.source), used: recent.get(skill.name) ?? 0 }))
    .sort((a, b) => a.origin.rank - b.origin.rank || b.used - a.used || compareNames(a.skill.name, b.skill.name))
    .map(({ skill, origin }) => ({ skill, origin }))
}

/** Names grouped by origin: groups in origin order, names sorted within each. */
export function groupByOrigin(entries: readonly { readonly name: string; readonly origin: Origin }[]): { label: string; names: string[] }[] {
  const byLabel = new Map<string, { origin: Origin; names: string[] }>()
  for (const { name, origin } of entries) {
    let group = byLabel.get(origin.label)
    if (!group) byLabel.set(origin.label, (group = { origin, names: [] }))
    group.names.push(name)
  }
  return [...byLabel.values()].sort((a, b) => compareOrigins(a.origin, b.origin)).map((group) => ({ label: group.origin.label, names: group.names.sort(compareNames) }))
}
