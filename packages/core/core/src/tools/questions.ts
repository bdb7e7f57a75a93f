import { isRecord, type JsonValue } from '../json.ts'
import type { UserAnswer, UserQuestion } from './types.ts'

/**
 * The answer of someone who accepts what the server proposes (`dsh call --yes`): a form is
 * accepted with each field's `default` (SEP-1034), when every required field has one; a form that
 * needs a value nobody gave, or a URL to visit, is declined.
 */
export function acceptDefaults(question: UserQuestion): UserAnswer {
  if (question.kind === 'url') return { action: 'decline' }
  const properties = isRecord(question.schema.properties) ? question.schema.properties : {}
  const required = Array.isArray(question.schema.required) ? question.schema.required.filter((name): name is string => typeof name === 'string') : []
  const content: Record<string, JsonValue> = {}
  for (const [name, field] of Object.entries(properties)) {
    if (isRecord(field) && field.default !== undefined) content[name] = field.default as JsonValue
  }
  return required.every((name) => Object.hasOwn(content, name)) ? { action: 'accept', content } : { action: 'decline' }
}
