/** The name grammar, unanchored: `[a-z0-9]` runs joined by single hyphens (the length limit is checked apart). */
export const SKILL_NAME_PATTERN = '[a-z0-9]+(?:-[a-z0-9]+)*'
const SKILL_NAME = new RegExp(`^${SKILL_NAME_PATTERN}$`)

/** The Agent Skills limit on a name's length. */
export const MAX_SKILL_NAME_LENGTH = 64

/** The Agent Skills limit on a description, in characters; the catalog never shows more. */
export const MAX_DESCRIPTION_LENGTH = 1024

/** `[a-z0-9]` runs joined by single hyphens, 1–64 characters. */
export function isSkillName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_SKILL_NAME_LENGTH && SKILL_NAME.test(value)
}

/** Why `value` is not a skill name, or undefined when it is one. */
export function skillNameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return 'a skill name must be a non-empty string'
  if (value.length > MAX_SKILL_NAME_LENGTH) return `a skill name has at most ${MAX_SKILL_NAME_LENGTH} characters (this one has ${value.length})`
  if (!SKILL_NAME.test(value)) return 'a skill name uses lowercase letters a-z and digits, with single hyphens between them (no leading, trailing or double hyphen)'
  return undefined
}

/**
 * The lenient reading of a name the spec refuses (the Agent Skills client guide loads such skills
 * with a warning): letters lowercased and stripped of accents, every run of other characters (a
 * space, `_`, `.`) one hyphen, none at either end, at most 64 characters. `PDF Tools_v2` →
 * `pdf-tools-v2`. Undefined when nothing is left (a name of only other scripts).
 */
export function normalisedSkillName(value: string): string | undefined {
  const name = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_SKILL_NAME_LENGTH)
    .replace(/-+$/, '')
  return name || undefined
}

/** Code-point order, never locale order: the same on every machine. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
