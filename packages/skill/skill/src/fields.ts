import { characterCount, isRecord, quote } from 'dsh-core'
import { MAX_DESCRIPTION_LENGTH, normalisedSkillName, skillNameProblem } from './name.ts'
import type { InvocationPolicy } from './types.ts'

export interface SkillFields {
  readonly name: string
  readonly description: string
  readonly whenToUse?: string
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly invocation: InvocationPolicy
}

/** Where a skill file sits: the name the Agent Skills spec expects it to carry. */
export interface FileOrigin {
  /** The bundle directory's name, or a flat file's name without `.md`. */
  readonly expectedName: string
  readonly kind: 'directory' | 'file'
}

export type CheckedFields = { readonly ok: true; readonly fields: SkillFields; readonly warnings: readonly string[] } | { readonly ok: false; readonly reason: string }

const NO_WARNINGS: readonly string[] = []

const LEGACY_KEYS: readonly (readonly [legacy: string, replacement: string])[] = [
  ['disableModelInvocation', 'disable-model-invocation'],
  ['modelInvocable', 'disable-model-invocation'],
  ['userInvocable', 'user-invocable'],
]

const TRUE = new Set(['true', 'yes', 'on', '1'])
const FALSE = new Set(['false', 'no', 'off', '0'])

/** YAML booleans, 1/0, and true/yes/on, false/no/off in any case; anything else is undefined. */
function booleanLike(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 0) return value === 1
  if (typeof value !== 'string') return undefined
  const word = value.toLowerCase()
  return TRUE.has(word) ? true : FALSE.has(word) ? false : undefined
}

/** What a value that should have been text is instead, or undefined when it is text (or absent). */
function notText(key: string, value: unknown): string | undefined {
  if (typeof value === 'number') return `${key} is the number ${value}`
  if (typeof value === 'boolean') return `${key} is ${value}, a boolean`
  if (Array.isArray(value)) return `${key} is a list`
  if (value instanceof Uint8Array) return `${key} is binary data (a !!binary tag)`
  if (isRecord(value)) return `${key} is a mapping`
  return undefined
}

/**
 * S1: the frontmatter read as the Agent Skills integration guide asks, leniently. The name is
 * `[a-z0-9]` runs joined by single hyphens, at most 64 characters; a name that differs from its
 * directory (or flat file) loads under the name it gives, with a warning. The description must be
 * there; over 1,024 characters it loads whole with a warning (the catalog cuts it). An invocation key
 * that cannot be read as a boolean rejects the skill rather than guessing, so a restriction is never
 * silently dropped.
 */
export function skillFields(data: unknown, origin: FileOrigin): CheckedFields {
  if (!isRecord(data) || !Object.keys(data).length) return { ok: false, reason: 'the frontmatter is empty or not a mapping of keys' }
  for (const [legacy, replacement] of LEGACY_KEYS) {
    if (legacy in data) return { ok: false, reason: `"${legacy}" is not supported, use "${replacement}"` }
  }
  const { name, description } = data
  if (name === undefined || name === null) return { ok: false, reason: 'name is missing' }
  const nameNotText = notText('name', name)
  if (nameNotText) return { ok: false, reason: `${nameNotText}; a skill name is text: lowercase letters, digits and single hyphens` }
  const written = String(name)
  const nameProblem = skillNameProblem(written)
  // The client guide's lenient reading: a name the spec refuses (too long, uppercase, spaces,
  // underscores) loads under its normalised spelling, with a warning saying which.
  const loadedName = nameProblem ? normalisedSkillName(written) : written
  if (!loadedName) return { ok: false, reason: `name ${shown(name)}: ${nameProblem}, and no letter or digit of a-z, 0-9 is left to load it under` }
  const descriptionNotText = notText('description', description)
  if (descriptionNotText) return { ok: false, reason: `${descriptionNotText}; quote it to make it text` }
  if (typeof description !== 'string' || !description.trim()) return { ok: false, reason: 'description is missing or empty' }
  const disable = data['disable-model-invocation']
  const user = data['user-invocable']
  const disableModel = disable === undefined ? false : booleanLike(disable)
  if (disableModel === undefined) return { ok: false, reason: `disable-model-invocation: ${shown(disable)} is not a boolean (true/false, yes/no, on/off, 1/0)` }
  const userInvocable = user === undefined ? true : booleanLike(user)
  if (userInvocable === undefined) return { ok: false, reason: `user-invocable: ${shown(user)} is not a boolean (true/false, yes/no, on/off, 1/0)` }
  const { whenToUse, metadata } = data
  return {
    ok: true,
    fields: {
      name: loadedName,
      description,
      ...(typeof whenToUse === 'string' && whenToUse ? { whenToUse } : {}),
      ...(isRecord(metadata) ? { metadata } : {}),
      invocation: { modelInvocable: !disableModel, userInvocable },
    },
    warnings: warningsOf(written, loadedName, nameProblem, description, origin),
  }
}

/**
 * A value from the file as a reason repeats it: cut after 200 characters (`quote`'s default, far
 * above a real name's length) with its whole length, so a 5,000-character name cannot fill a
 * `dsh status` row (or the log) with itself.
 */
function shown(value: unknown): string {
  return quote(value)
}

/** Where a usable skill strays from the spec: loaded all the same, and said once. */
function warningsOf(written: string, name: string, nameProblem: string | undefined, description: string, origin: FileOrigin): readonly string[] {
  const sameName = (written === origin.expectedName || name === origin.expectedName) && !nameProblem
  // Most descriptions are far shorter than the limit even in UTF-16 units: no count needed.
  const length = description.length > MAX_DESCRIPTION_LENGTH ? characterCount(description) : 0
  if (sameName && length <= MAX_DESCRIPTION_LENGTH) return NO_WARNINGS
  const warnings: string[] = []
  if (nameProblem) warnings.push(`name ${shown(written)}: ${nameProblem}; loaded as "${name}" (the name /${name} and the skill tool take)`)
  else if (!sameName) warnings.push(`name "${name}" differs from its ${origin.kind} name "${origin.expectedName}"; loaded as "${name}"`)
  if (length > MAX_DESCRIPTION_LENGTH) warnings.push(`description has ${length} characters, over the limit of ${MAX_DESCRIPTION_LENGTH}; the catalog shows the first ${MAX_DESCRIPTION_LENGTH}`)
  return warnings
}
