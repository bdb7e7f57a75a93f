import { isRecord, type JsonObject, type JsonValue } from '../json.ts'
import type { UserAnswer, UserQuestion } from './types.ts'

/**
 * The answer of someone who accepts what the server proposes (`dsh call --yes`): a form is
 * accepted with each field's `default` (SEP-1034), when every required field has one; a form that
 * needs a value nobody gave (`requiredWithoutDefault`), or a URL to visit, is declined.
 */
export function acceptDefaults(question: UserQuestion): UserAnswer {
  if (question.kind === 'url') return { action: 'decline' }
  if (requiredWithoutDefault(question.schema).length) return { action: 'decline' }
  const properties = isRecord(question.schema.properties) ? question.schema.properties : {}
  const content: Record<string, JsonValue> = {}
  for (const [name, field] of Object.entries(properties)) {
    if (isRecord(field) && field.default !== undefined) content[name] = field.default as JsonValue
  }
  return { action: 'accept', content }
}

/**
 * The required fields of a form's schema that have no `default`, in the order `required` lists
 * them: what `acceptDefaults` cannot fill in, and so why it declines (a caller saying so names them).
 */
export function requiredWithoutDefault(schema: JsonObject): string[] {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []
  return required.filter((name) => {
    const field = Object.hasOwn(properties, name) ? properties[name] : undefined
    return !isRecord(field) || field.default === undefined
  })
}
