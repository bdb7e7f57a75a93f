import { lazySchema, quote, type ToolDefinition, type ToolExecution } from 'dsh-core'
import { z } from 'zod'
import { SkillError } from '../errors.ts'
import { isSkillName, normalisedSkillName, skillNameProblem } from '../name.ts'
import { renderSkillContent } from '../render.ts'
import type { SkillRegistry } from '../service.ts'
import type { ResourceBase, ViewOptions } from '../types.ts'
import type { ToolSkillConfig } from './config.ts'
import { isListingRequest, listSkills, renderListing, skillListingValue, type SkillListing } from './listing.ts'
import type { RecentSkills } from './priority.ts'
import { isModelInvocable } from '../validate.ts'

export const SKILL_TOOL_DESCRIPTION = [
  'Loads the full instructions of a skill by its exact name from the available skills list.',
  'Call it before acting on a task that names a skill or clearly matches a skill description, then follow the instructions it returns.',
  'The name "?" lists every available skill; "?" followed by words searches skill names and descriptions.',
].join(' ')

/** Far above any skill name (64 characters): longer is INVALID_ARGS before the name is even looked at. */
export const MAX_SKILL_NAME_ARGUMENT_CHARS = 1024

const SkillToolInput = z.strictObject({
  name: z.string().max(MAX_SKILL_NAME_ARGUMENT_CHARS).describe('The exact skill name from the available skills list; "?" to list every skill, "?words" to search.'),
})

/** A loaded skill: never rank, locator, path, source or metadata. */
export type LoadedSkillValue = {
  readonly name: string
  readonly provider: string
  readonly resourceBase?: ResourceBase
  readonly content: string
}

/** The canonical value: a loaded skill, or a listing (`?`, `?words`). */
export type SkillToolValue = LoadedSkillValue | SkillListing
/**
 * Built on first use (a call's output check, or a host asking for the output schema): a catalog
 * (`dsh tools`) never needs it, and its two dozen schemas were built at import (issue 27 item 5).
 */
export const SkillToolValue = lazySchema(() => {
  const resourceBase = z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('directory'), path: z.string() }),
    z.strictObject({ kind: z.literal('url'), url: z.string() }),
    z.strictObject({ kind: z.literal('opaque'), description: z.string() }),
  ])
  const loadedSkill = z.strictObject({ name: z.string(), provider: z.string(), resourceBase: resourceBase.optional(), content: z.string() })
  return z.union([loadedSkill, skillListingValue()])
}) as unknown as z.ZodType<SkillToolValue>

/** The session's view: its workspace, its scope, the call's signal. */
export function sessionView(session: { readonly cwd: string } | undefined, signal: AbortSignal): ViewOptions {
  return session ? { cwd: session.cwd, scope: session, signal } : { signal }
}

/**
 * The `skill` tool: list, check that the skill is there and the model may start it, load, check
 * again (the file may have changed in between), and answer the loaded body. Invocation policy is
 * read twice so a skill that turned user-only while loading never reaches the model. `?` (or an
 * empty name) lists every model-invocable skill, `?words` searches them: what the catalog could not
 * show stays findable.
 */
export function skillTool(skills: SkillRegistry, recent: RecentSkills, settings: ToolSkillConfig): ToolDefinition<z.infer<typeof SkillToolInput>, SkillToolValue> {
  return {
    name: 'skill',
    surface: 'skill',
    description: SKILL_TOOL_DESCRIPTION,
    input: SkillToolInput,
    output: SkillToolValue,
    timeoutMs: settings.timeoutMs,
    async execute({ name }, exec: ToolExecution) {
      const view = sessionView(exec.session, exec.signal)
      if (isListingRequest(name)) return listSkills(name, (await skills.list(view)).filter(isModelInvocable), recent.of(exec.session), settings.catalogDescriptionMaxLength, settings.listingMaxChars)
      // A path is never a spelling of a name: normalising `../good` to `good` would answer for a file the model did not mean.
      if (PATH_LIKE.test(name)) throw new SkillError(`${quote(name)} is a path, not a skill name: use a name from the skill list (\`?\` lists them)`, 'SKILL_INVALID_NAME')
      const listed = await skills.list(view)
      if (!isSkillName(name)) {
        // A name as its file spelled it (`PDF Processing`) finds the skill loaded under its normalised name.
        const lenient = normalisedSkillName(name)
        if (!lenient || !listed.some((skill) => skill.name === lenient)) throw new SkillError(`${quote(name)} is not a skill name: ${skillNameProblem(name)}`, 'SKILL_INVALID_NAME')
        name = lenient
      }
      const summary = listed.find((skill) => skill.name === name)
      if (!summary) throw unknownSkill(name)
      if (!summary.invocation.modelInvocable) throw userOnly(name)
      const definition = await skills.get(name, view)
      if (!definition) throw unknownSkill(name)
      if (!definition.invocation.modelInvocable) throw userOnly(name)
      recent.used(exec.session, name)
      const { resourceBase } = definition
      return {
        name: definition.name,
        provider: definition.provider,
        ...(resourceBase ? { resourceBase: { ...resourceBase } } : {}),
        content: skills.forModel(definition),
      }
    },
    render: (_args, value) => ('listed' in value ? renderListing(value) : renderSkillContent(value)),
  }
}

// A separator anywhere (`../x`, `x/SKILL.md`, `..\\x`), or the name `.` or `..`: a path, never the spelling of a name.
const PATH_LIKE = /[/\\]|^\.\.?$/

function unknownSkill(name: string): SkillError {
  return new SkillError(`no skill named "${name}" is available (any more); use a name from the current skill list`, 'SKILL_UNKNOWN')
}

function userOnly(name: string): SkillError {
  return new SkillError(`skill "${name}" is for the user to start (disable-model-invocation), not for the skill tool`, 'SKILL_NOT_MODEL_INVOCABLE')
}
