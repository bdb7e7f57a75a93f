import { escapeText } from '../render.ts'
import { characterCount, cutText } from '../text.ts'

export interface CatalogEntry {
  readonly name: string
  readonly description: string
}

export interface Budgeted {
  readonly entries: readonly CatalogEntry[]
  /** Names whose descriptions were cut to fit. */
  readonly shortened: readonly string[]
  /** Names left out because even the shortest descriptions did not fit. */
  readonly omitted: readonly string[]
}

/** One catalog line, exactly as rendered. */
export function entryLine(entry: CatalogEntry): string {
  return `- \`${entry.name}\`: ${escapeText(entry.description)}`
}

function size(entries: readonly CatalogEntry[]): number {
  let total = 0
  for (const entry of entries) total += characterCount(entryLine(entry)) + 1
  return total
}

/** Descriptions are already whitespace-normalised (catalogDescription): cutting keeps whole characters and adds `...`. */
function capped(entries: readonly CatalogEntry[], cap: number): CatalogEntry[] {
  return entries.map((entry) => {
    const description = cutText(entry.description, cap)
    return description === entry.description ? entry : { name: entry.name, description }
  })
}

/**
 * Fits entry lines into `budget` characters, deterministically: first every description longer than
 * a common cap is cut to it (the largest cap that fits, found by bisection, never below `floor`);
 * only if the lines still do not fit at `floor` are entries left out, from the end of the sorted list.
 */
export function fitBudget(entries: readonly CatalogEntry[], budget: number, floor: number): Budgeted {
  if (size(entries) <= budget) return { entries, shortened: [], omitted: [] }
  const longest = Math.max(...entries.map((entry) => characterCount(entry.description)))
  let kept: CatalogEntry[]
  if (size(capped(entries, floor)) <= budget) {
    // The largest cap in [floor, longest) that fits: size only grows with the cap.
    let low = floor
    let high = longest - 1
    while (low < high) {
      const middle = Math.ceil((low + high) / 2)
      if (size(capped(entries, middle)) <= budget) low = middle
      else high = middle - 1
    }
    kept = capped(entries, low)
  } else {
    kept = capped(entries, floor)
    let total = size(kept)
    while (kept.length && total > budget) total -= characterCount(entryLine(kept.pop()!)) + 1
  }
  const omitted = entries.slice(kept.length).map((entry) => entry.name)
  const shortened = kept.filter((entry, index) => entry.description !== entries[index]!.description).map((entry) => entry.name)
  return { entries: kept, shortened, omitted }
}
