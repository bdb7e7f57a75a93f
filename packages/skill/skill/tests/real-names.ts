/**
 * Skill names as long as real ones. The lengths are those of the 1,030 `name:` values of four public
 * collections (anthropics/skills, obra/superpowers, K-Dense-AI/claude-scientific-skills,
 * ComposioHQ/awesome-claude-skills; 18.8 characters on average), length → how many; only the
 * lengths are kept, the names here are made up.
 */
const LENGTHS: Record<number, number> = {
  3: 4, 4: 16, 5: 10, 6: 9, 7: 13, 8: 11, 9: 9, 10: 10, 11: 7, 12: 8, 13: 12, 14: 21, 15: 43, 16: 64, 17: 96, 18: 107, 19: 128,
  20: 124, 21: 101, 22: 59, 23: 48, 24: 35, 25: 27, 26: 19, 27: 12, 28: 6, 29: 7, 30: 6, 32: 4, 33: 2, 34: 4, 35: 2, 36: 1, 37: 3, 39: 2,
}

const FILLER = '-review-data-report-deploy-schema-notes-audit-chart-design-infra-frontend-release'

/** One length per name, in an order that mixes short and long (a stride through the sorted list). */
const ORDERED = Object.entries(LENGTHS).flatMap(([length, count]) => Array.from({ length: count }, () => Number(length)))
const STRIDE = 379 // coprime with 1,030

/** `count` distinct valid skill names whose lengths follow the real distribution. */
export function realLengthNames(count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const length = ORDERED[(index * STRIDE) % ORDERED.length]!
    // A unique base-36 prefix of three characters, then filler words up to the length.
    const name = `${index.toString(36).padStart(3, '0')}${FILLER}`.slice(0, length)
    return name.endsWith('-') ? `${name.slice(0, -1)}x` : name
  })
}
