import { createUserMessage, errorMessage, throwIfAborted, type PreStepMiddleware, type UserMessage } from 'dsh-core'
import { SKILL_NAME_PATTERN } from '../name.ts'
import { renderSkillContent } from '../render.ts'
import type { SkillRegistry } from '../service.ts'
import type { RecentSkills } from './priority.ts'
import { sessionView } from './tool.ts'

export const INVOCATION_KIND = 'skill-invocation'

// A `/name` token: after the start of the text or whitespace, a skill-grammar name, then whitespace
// or the end. `/x/refs`, `5/8`, `foo/x`, `/x.` and `/Upper` are not tokens.
const GESTURE = new RegExp(String.raw`(^|\s)\/(${SKILL_NAME_PATTERN})(?=\s|$)`, 'g')

/** Skill names the user typed as `/name`, first-seen order, each once; only user-authored text counts. */
export function gestureNames(messages: readonly UserMessage[]): string[] {
  const names = new Set<string>()
  for (const message of messages) {
    if (message.source.kind !== 'user') continue
    for (const block of message.content) {
      if (block.type !== 'text') continue
      for (const match of block.text.matchAll(GESTURE)) names.add(match[2]!)
    }
  }
  return [...names]
}

/**
 * The `/name` gesture: a user-invocable skill named in the user's own message is loaded and entered
 * after everything else this step enters, rendered exactly as the tool renders it. An unknown name,
 * or a skill the user may not start, stays plain prose. Model invocability plays no part: this is
 * how a `disable-model-invocation` skill runs. A skill the user asked for that fails to load rejects
 * the step (nothing is recorded) rather than answering as if it had not been asked for; the host skips
 * a link that throws, so the failure is returned as the rejection instead.
 */
export function invocationLink(skills: SkillRegistry, recent: RecentSkills): PreStepMiddleware {
  return async (input, next) => {
    const decision = await next()
    if (decision.kind === 'reject') return decision
    const names = gestureNames(input.messages)
    if (!names.length) return decision
    const { session, signal } = input
    throwIfAborted(signal)
    const injections: UserMessage[] = []
    for (const name of names) {
      let definition
      try {
        definition = await skills.get(name, sessionView(session, signal))
        throwIfAborted(signal)
      } catch (error) {
        return { kind: 'reject', reason: `loading skill "${name}" for /${name} failed: ${errorMessage(error)}` }
      }
      if (!definition?.invocation.userInvocable) continue
      recent.used(session, name)
      injections.push(createUserMessage(renderSkillContent({ ...definition, content: skills.forModel(definition) }), { kind: INVOCATION_KIND, name, form: 'instructions' }))
    }
    return injections.length ? { kind: 'enter', messages: [...decision.messages, ...injections] } : decision
  }
}
