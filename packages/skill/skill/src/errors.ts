import { HarnessError } from 'dsh-core'

export const SkillErrorCode = {
  /** A name that is not a skill name: `[a-z0-9]` runs joined by single hyphens, at most 64 characters. */
  SKILL_INVALID_NAME: 'SKILL_INVALID_NAME',
  /** No skill of that name is available in the caller's view (any more). */
  SKILL_UNKNOWN: 'SKILL_UNKNOWN',
  /** The skill exists but its frontmatter says `disable-model-invocation`. */
  SKILL_NOT_MODEL_INVOCABLE: 'SKILL_NOT_MODEL_INVOCABLE',
  /** A provider registration is malformed, or uses the reserved name `runtime`. */
  SKILL_INVALID_PROVIDER: 'SKILL_INVALID_PROVIDER',
  /** A provider with that name is already registered in the same layer. */
  SKILL_DUPLICATE_PROVIDER: 'SKILL_DUPLICATE_PROVIDER',
  /** A runtime skill registration is malformed. */
  SKILL_INVALID_SKILL: 'SKILL_INVALID_SKILL',
  /** A provider's `list()` answered something that is not an observation of valid candidates. */
  SKILL_INVALID_OBSERVATION: 'SKILL_INVALID_OBSERVATION',
  /** A provider's `get()` answered something that is not a valid definition. */
  SKILL_INVALID_DEFINITION: 'SKILL_INVALID_DEFINITION',
  /** The provider was unregistered (the reason its control signal carries). */
  SKILL_PROVIDER_DISPOSED: 'SKILL_PROVIDER_DISPOSED',
  /** The caller's signal aborted a read without an Error reason of its own. */
  SKILL_ABORTED: 'SKILL_ABORTED',
} as const
export type SkillErrorCode = (typeof SkillErrorCode)[keyof typeof SkillErrorCode]

export class SkillError extends HarnessError<SkillErrorCode> {}
