import { assertNever, lazy } from 'dsh-core'
import { z } from 'zod'
import { catalogDescription } from '../render.ts'
import type { SkillSummary } from '../types.ts'
import { groupLine, type CatalogEntry, type NameGroup } from './budget.ts'
import { byPriority, groupByOrigin } from './priority.ts'

/** A search answers at most this many skills, with their descriptions. */
const MAX_MATCHES = 50

export type SkillListing =
  | { readonly listed: 'all'; readonly total: number; readonly groups: readonly NameGroup[] }
  | { readonly listed: 'search'; readonly query: string; readonly total: number; readonly matches: readonly CatalogEntry[] }

/** Built with the tool's value schema (tool.ts), on first use. */
export const skillListingValue = lazy(() =>
  z.discriminatedUnion('listed', [
    z.strictObject({ listed: z.literal('all'), total: z.number().int(), groups: z.array(z.strictObject({ label: z.string(), names: z.array(z.string()) })) }),
    z.strictObject({ listed: z.literal('search'), query: z.string(), total: z.number().int(), matches: z.array(z.strictObject({ name: z.string(), description: z.string() })) }),
  ]),
)

/** Whether the tool was asked for a listing rather than a skill: an empty name, `?`, or `?words`. */
export function isListingRequest(name: string): boolean {
  return name.trim() === '' || name.trimStart().startsWith('?')
}

/**
 * Every model-invocable skill by name, grouped by origin (`?` or an empty name), or the skills whose
 * name or description holds every word (`?words`), in catalog priority order, with descriptions.
 */
export function listSkills(request: string, skills: readonly SkillSummary[], recent: ReadonlyMap<string, number>, descriptionMax: number): SkillListing {
  const words = request.trim().replace(/^\?/, '').toLowerCase().split(/\s+/).filter(Boolean)
  const ordered = byPriority(skills, recent)
  if (!words.length) return { listed: 'all', total: ordered.length, groups: groupByOrigin(ordered.map(({ skill, origin }) => ({ name: skill.name, origin }))) }
  const matching = ordered.filter(({ skill }) => {
    const text = `${skill.name} ${skill.description}`.toLowerCase()
    return words.every((word) => text.includes(word))
  })
  return {
    listed: 'search',
    query: words.join(' '),
    total: matching.length,
    matches: matching.slice(0, MAX_MATCHES).map(({ skill }) => ({ name: skill.name, description: catalogDescription(skill.description, descriptionMax) })),
  }
}

/** What the model reads for a listing. */
export function renderListing(listing: SkillListing): string {
  switch (listing.listed) {
    case 'all':
      if (!listing.total) return 'No skills are available.'
      return [`${listing.total.toLocaleString('en-US')} skills are available; load one with the \`skill\` tool by its exact name:`, ...listing.groups.map(groupLine)].join('\n')
    case 'search': {
      if (!listing.total) return `No skill matches "${listing.query}" in its name or description; call the \`skill\` tool with the name "?" to list every skill.`
      const more = listing.total > listing.matches.length ? ` (the first ${listing.matches.length}; add words to narrow it)` : ''
      return [`${listing.total.toLocaleString('en-US')} skills match "${listing.query}"${more}:`, ...listing.matches.map((match) => `- \`${match.name}\`: ${match.description}`)].join('\n')
    }
    default:
      return assertNever(listing, 'skill listing')
  }
}
