import { assertNever, lazy } from 'dsh-core'
import { z } from 'zod'
import { catalogDescription } from '../render.ts'
import type { SkillSummary } from '../types.ts'
import { groupLine, type CatalogEntry, type NameGroup } from './budget.ts'
import { byPriority, groupByOrigin } from './priority.ts'

/** The default of the tool's `listingMaxChars`. */
export const DEFAULT_LISTING_MAX_CHARS = 200_000

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
export function listSkills(request: string, skills: readonly SkillSummary[], recent: ReadonlyMap<string, number>, descriptionMax: number, listingMaxChars = DEFAULT_LISTING_MAX_CHARS): SkillListing {
  const words = request.trim().replace(/^\?/, '').toLowerCase().split(/\s+/).filter(Boolean)
  const ordered = byPriority(skills, recent)
  if (!words.length) {
    // Every name, in priority order, as far as `listingMaxChars` goes (a name and its ", "): tens of
    // thousands of skills must not fill the model's context; the rest stays findable by `?words`.
    let used = 0
    let kept = 0
    while (kept < ordered.length && used + ordered[kept]!.skill.name.length + 2 <= listingMaxChars) used += ordered[kept++]!.skill.name.length + 2
    return { listed: 'all', total: ordered.length, groups: groupByOrigin(ordered.slice(0, kept).map(({ skill, origin }) => ({ name: skill.name, origin }))) }
  }
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
      const shown = listing.groups.reduce((sum, group) => sum + group.names.length, 0)
      const more = shown < listing.total ? ` (the first ${shown.toLocaleString('en-US')}, to fit listingMaxChars; call it with "?" followed by words to search the rest)` : ''
      return [`${listing.total.toLocaleString('en-US')} skills are available${more}; load one with the \`skill\` tool by its exact name:`, ...listing.groups.map(groupLine)].join('\n')
    case 'search': {
      if (!listing.total) return `No skill matches "${listing.query}" in its name or description; call the \`skill\` tool with the name "?" to list every skill.`
      const more = listing.total > listing.matches.length ? ` (the first ${listing.matches.length}; add words to narrow it)` : ''
      return [`${listing.total.toLocaleString('en-US')} skills match "${listing.query}"${more}:`, ...listing.matches.map((match) => `- \`${match.name}\`: ${match.description}`)].join('\n')
    }
    default:
      return assertNever(listing, 'skill listing')
  }
}
