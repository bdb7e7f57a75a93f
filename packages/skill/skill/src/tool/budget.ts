import { characterCount } from 'dsh-core'
import { escapeCatalogText } from '../render.ts'
import { cutText } from '../text.ts'
import { compareOrigins, groupByOrigin, type Origin } from './priority.ts'
import { compareNames } from '../name.ts'

// Type aliases, not interfaces: they go into JSON tool values, and only aliases fit JsonValue.
export type CatalogEntry = {
  readonly name: string
  readonly description: string
}

/** A skill offered to the catalog, in priority order, its description already capped. */
export interface Offered extends CatalogEntry {
  readonly origin: Origin
}

/** Names listed without descriptions, one line per origin. */
export type NameGroup = {
  readonly label: string
  readonly names: readonly string[]
}

export interface FittedCatalog {
  /** Skills shown with a description, in display order (origin, then name). */
  readonly described: readonly CatalogEntry[]
  /** Skills shown by name only. */
  readonly named: readonly NameGroup[]
  /** Descriptions the budget cut. */
  readonly shortened: number
  /** Skills not shown at all. */
  readonly omitted: number
}

export interface CatalogBudget {
  /** Characters the described lines may take together. */
  readonly describedChars: number
  /** Characters the names-only lines may take together. */
  readonly namesChars: number
  /** The shortest a description is cut to before skills are listed by name only instead. */
  readonly minDescription: number
}

/** One described catalog line, exactly as rendered. */
export function entryLine(entry: CatalogEntry): string {
  return `- \`${entry.name}\`: ${escapeCatalogText(entry.description)}`
}

/** One names-only line, exactly as rendered. */
export function groupLine(group: NameGroup): string {
  return `- ${group.label}: ${group.names.join(', ')}`
}

/**
 * What one offered skill costs as a described line (newline included) with its description cut to
 * `cap` characters. Escaping can only lengthen a cut description by what it lengthens the whole one,
 * so this is an upper bound once cut, exact when not: cheap enough to try every cap.
 */
class LineCost {
  private readonly fixed: number
  private readonly length: number
  private readonly escaped: number

  constructor(readonly entry: Offered) {
    this.fixed = characterCount(entryLine({ name: entry.name, description: '' })) + 1
    this.length = characterCount(entry.description)
    this.escaped = characterCount(escapeCatalogText(entry.description))
  }

  at(cap: number): number {
    return this.fixed + (this.length <= cap ? this.escaped : cap + this.escaped - this.length)
  }

  get longest(): number {
    return this.length
  }
}

const total = (costs: readonly LineCost[], cap: number) => costs.reduce((sum, cost) => sum + cost.at(cap), 0)

/** The largest cap in [low, high] at which the lines fit, or undefined when even `low` does not. */
function largestCap(costs: readonly LineCost[], budget: number, low: number, high: number): number | undefined {
  if (total(costs, low) > budget) return undefined
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (total(costs, middle) <= budget) low = middle
    else high = middle - 1
  }
  return low
}

/**
 * Fits the offered skills (in priority order) into the catalog, deterministically, in steps:
 *
 * 1. every skill with its whole (capped) description, if that fits `describedChars`;
 * 2. else every description cut to one common length, the largest that fits, not below `minDescription`;
 * 3. else as many skills as fit at `minDescription`, in priority order, keep a description (cut to the
 *    largest common length that fits them), and the rest are listed by name only, grouped by origin,
 *    within `namesChars`;
 * 4. only skills whose names do not fit either are left out, from the end of the priority order.
 */
export function fitCatalog(offered: readonly Offered[], budget: CatalogBudget): FittedCatalog {
  const costs = offered.map((entry) => new LineCost(entry))
  const longest = costs.reduce((max, cost) => Math.max(max, cost.longest), 0)
  if (total(costs, longest) <= budget.describedChars) return finish(costs, longest, [], 0)
  const common = largestCap(costs, budget.describedChars, budget.minDescription, longest)
  if (common !== undefined) return finish(costs, common, [], 0)
  let kept = 0
  for (let used = 0; kept < costs.length; kept++) {
    used += costs[kept]!.at(budget.minDescription)
    if (used > budget.describedChars) break
  }
  const described = costs.slice(0, kept)
  const cap = largestCap(described, budget.describedChars, budget.minDescription, longest) ?? budget.minDescription
  const rest = offered.slice(kept)
  const named = namesWithin(rest, budget.namesChars)
  return finish(described, cap, groupByOrigin(named), rest.length - named.length)
}

/** The first of `entries` whose names fit `chars` as grouped lines (a group's label counted once). */
function namesWithin(entries: readonly Offered[], chars: number): Offered[] {
  const labels = new Set<string>()
  let used = 0
  let count = 0
  for (const entry of entries) {
    // `- label: ` once per group and a newline; `, ` between names.
    const cost = entry.name.length + (labels.has(entry.origin.label) ? 2 : entry.origin.label.length + 5)
    if (used + cost > chars) break
    used += cost
    labels.add(entry.origin.label)
    count++
  }
  return entries.slice(0, count)
}

function finish(costs: readonly LineCost[], cap: number, named: NameGroup[], omitted: number): FittedCatalog {
  let shortened = 0
  const described = costs
    .map(({ entry }) => {
      const description = cutText(entry.description, cap)
      if (description !== entry.description) shortened++
      return { entry, description }
    })
    .sort((a, b) => compareOrigins(a.entry.origin, b.entry.origin) || compareNames(a.entry.name, b.entry.name))
    .map(({ entry, description }) => ({ name: entry.name, description }))
  return { described, named, shortened, omitted }
}
