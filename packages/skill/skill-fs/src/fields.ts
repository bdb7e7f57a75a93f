import { isRecord } from 'dsh-core'
import { skillNameProblem, type InvocationPolicy } from 'dsh-skill'

/** The Agent Skills limit on a description. */
export const MAX_DESCRIPTION_LENGTH = 1024

export interface SkillFields {
  readonly name: string
  readonly description: string
  readonly whenToUse?: string
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly invocation: InvocationPolicy
}

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

/**
 * S1: the frontmatter checked against the Agent Skills spec. The name is `[a-z0-9]` runs joined by
 * single hyphens, at most 64 characters, and equal to its directory (or, for a flat file, its file
 * name without `.md`); the description is 1–1024 characters. An invocation key that cannot be read
 * as a boolean rejects the skill rather than guessing, so a restriction is never silently dropped.
 */
export function skillFields(data: unknown, expectedName: string): { ok: true; fields: SkillFields } | { ok: false; reason: string } {
  if (!isRecord(data) || !Object.keys(data).length) return { ok: false, reason: 'the frontmatter is empty or not a mapping of keys' }
  for (const [legacy, replacement] of LEGACY_KEYS) {
    if (legacy in data) return { ok: false, reason: `"${legacy}" is not supported, use "${replacement}"` }
  }
  const { name, description } = data
  if (name === undefined) return { ok: false, reason: 'name is missing' }
  const nameProblem = skillNameProblem(name)
  if (nameProblem) return { ok: false, reason: `name ${JSON.stringify(name)}: ${nameProblem}` }
  if (name !== expectedName) return { ok: false, reason: `name "${name as string}" does not match its directory or file name "${expectedName}"` }
  if (typeof description !== 'string' || !description.trim()) return { ok: false, reason: 'description is missing or empty' }
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return { ok: false, reason: `description has ${description.length} characters, over the limit of ${MAX_DESCRIPTION_LENGTH}` }
  }
  const disable = data['disable-model-invocation']
  const user = data['user-invocable']
  const disableModel = disable === undefined ? false : booleanLike(disable)
  if (disableModel === undefined) return { ok: false, reason: `disable-model-invocation: ${JSON.stringify(disable)} is not a boolean (true/false, yes/no, on/off, 1/0)` }
  const userInvocable = user === undefined ? true : booleanLike(user)
  if (userInvocable === undefined) return { ok: false, reason: `user-invocable: ${JSON.stringify(user)} is not a boolean (true/false, yes/no, on/off, 1/0)` }
  const { whenToUse, metadata } = data
  return {
    ok: true,
    fields: {
      name: name as string,
      description,
      ...(typeof whenToUse === 'string' && whenToUse ? { whenToUse } : {}),
      ...(isRecord(metadata) ? { metadata } : {}),
      invocation: { modelInvocable: !disableModel, userInvocable },
    },
  }
}
