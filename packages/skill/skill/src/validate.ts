import { isRecord } from 'dsh-core'
import { SkillError, type SkillErrorCode } from './errors.ts'
import { skillNameProblem } from './name.ts'
import type { InvocationPolicy, Observation, ResourceBase, SkillDefinition, SkillSummary } from './types.ts'

// Providers are third-party code: everything they hand the registry is checked here, at the
// boundary, so the rest of the registry and every consumer can trust the types.

type Fields = Record<string, unknown>

/** The problem with the summary fields every candidate and definition share, or undefined. */
function summaryProblem(value: Fields): string | undefined {
  const nameProblem = skillNameProblem(value.name)
  if (nameProblem) return `name ${JSON.stringify(value.name)}: ${nameProblem}`
  if (typeof value.description !== 'string' || !value.description) return 'description must be a non-empty string'
  if (value.whenToUse !== undefined && typeof value.whenToUse !== 'string') return 'whenToUse must be a string when present'
  const invocationProblem = policyProblem(value.invocation)
  if (invocationProblem) return invocationProblem
  if (typeof value.source !== 'string') return 'source must be a string'
  if (typeof value.provider !== 'string') return 'provider must be a string'
  if (value.path !== undefined && typeof value.path !== 'string') return 'path must be a string when present'
  if (value.resourceBase !== undefined && !isResourceBase(value.resourceBase)) return 'resourceBase must be a directory, url or opaque resource base'
  return undefined
}

export function policyProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'invocation must be an object { modelInvocable, userInvocable }'
  if (typeof value.modelInvocable !== 'boolean') return 'invocation.modelInvocable must be a boolean'
  if (typeof value.userInvocable !== 'boolean') return 'invocation.userInvocable must be a boolean'
  return undefined
}

function isResourceBase(value: unknown): value is ResourceBase {
  if (!isRecord(value)) return false
  switch (value.kind) {
    case 'directory':
      return typeof value.path === 'string'
    case 'url':
      return typeof value.url === 'string'
    case 'opaque':
      return typeof value.description === 'string'
    default:
      return false
  }
}

function fail(code: SkillErrorCode, message: string): never {
  throw new SkillError(message, code)
}

/** Normalises a `list()` answer; anything else is `SKILL_INVALID_OBSERVATION` naming the provider and the field. */
export function checkObservation(providerName: string, value: unknown): Observation {
  const observation: unknown = Array.isArray(value) ? { candidates: value, complete: true } : value
  if (!isRecord(observation) || !Array.isArray(observation.candidates) || typeof observation.complete !== 'boolean') {
    fail('SKILL_INVALID_OBSERVATION', `skill provider "${providerName}" answered list() with neither an array of candidates nor { candidates, complete }`)
  }
  const { maxAgeMs } = observation
  if (maxAgeMs !== undefined && (typeof maxAgeMs !== 'number' || !(maxAgeMs >= 0))) {
    fail('SKILL_INVALID_OBSERVATION', `skill provider "${providerName}": maxAgeMs must be a number ≥ 0 when present`)
  }
  const { untrusted } = observation
  if (untrusted !== undefined && !(typeof untrusted === 'number' && Number.isSafeInteger(untrusted) && untrusted >= 0)) {
    fail('SKILL_INVALID_OBSERVATION', `skill provider "${providerName}": untrusted must be an integer ≥ 0 when present`)
  }
  observation.candidates.forEach((candidate: unknown, index: number) => {
    const where = `skill provider "${providerName}", candidate ${index}`
    if (!isRecord(candidate)) fail('SKILL_INVALID_OBSERVATION', `${where}: not an object`)
    const problem = summaryProblem(candidate) ?? (typeof candidate.rank !== 'number' || !Number.isFinite(candidate.rank) ? 'rank must be a finite number' : undefined)
    if (problem) fail('SKILL_INVALID_OBSERVATION', `${where}: ${problem}`)
    if (candidate.provider !== providerName) fail('SKILL_INVALID_OBSERVATION', `${where}: provider is "${String(candidate.provider)}", not the registering provider's name`)
    if (candidate.metadata !== undefined && !isRecord(candidate.metadata)) fail('SKILL_INVALID_OBSERVATION', `${where}: metadata must be an object when present`)
  })
  return observation as unknown as Observation
}

/** Checks a `get()` answer; a malformed one is `SKILL_INVALID_DEFINITION`. */
export function checkDefinition(providerName: string, value: unknown): SkillDefinition {
  const where = `skill provider "${providerName}" loaded a definition that is invalid`
  if (!isRecord(value)) fail('SKILL_INVALID_DEFINITION', `${where}: not an object`)
  const problem = summaryProblem(value) ?? (typeof value.content !== 'string' ? 'content must be a string' : undefined)
  if (problem) fail('SKILL_INVALID_DEFINITION', `${where}: ${problem}`)
  return value as unknown as SkillDefinition
}

/** The summary of a candidate or definition: its own fields only, nested objects kept by identity. */
export function summaryOf(value: SkillSummary): SkillSummary {
  return {
    name: value.name,
    description: value.description,
    ...(value.whenToUse !== undefined ? { whenToUse: value.whenToUse } : {}),
    invocation: value.invocation,
    source: value.source,
    provider: value.provider,
    ...(value.resourceBase !== undefined ? { resourceBase: value.resourceBase } : {}),
  }
}

export function isModelInvocable(skill: { readonly invocation: InvocationPolicy }): boolean {
  return skill.invocation.modelInvocable
}

export function isUserInvocable(skill: { readonly invocation: InvocationPolicy }): boolean {
  return skill.invocation.userInvocable
}

