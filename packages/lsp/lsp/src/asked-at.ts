import type { LspPosition } from './types.ts'

/**
 * What a result's `askedAt` tells a model, one-based: `column 80 is past the end of line 12 (41
 * characters); asked at its end`. A provider moves a position only to keep it within its line
 * (servers read a column past the end as one on a later line), and says so: the model asked about
 * a place that does not exist, and an answer about the line's end (often none) must not read as an
 * answer about it. Columns are UTF-16 code units, as everywhere in the seam.
 */
export function askedAtNote(requested: LspPosition, askedAt: LspPosition): string {
  if (askedAt.line === requested.line && askedAt.character < requested.character) {
    const length = askedAt.character
    return `column ${requested.character + 1} is past the end of line ${requested.line + 1} (${length} character${length === 1 ? '' : 's'}); asked at its end`
  }
  return `asked at ${askedAt.line + 1}:${askedAt.character + 1}, not ${requested.line + 1}:${requested.character + 1}`
}
