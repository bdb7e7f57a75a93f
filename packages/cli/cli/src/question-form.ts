import { assertNever, isRecord, type JsonObject, type JsonValue } from 'dsh-core'

/** One choice of an enum field: the value sent back, and what the person reads. */
export interface Choice {
  readonly value: string
  readonly label: string
}

/**
 * A field of an elicitation form as the terminal asks it. MCP forms are flat objects of plain
 * fields (the spec's PrimitiveSchemaDefinition): text, a number, yes/no, one choice or several.
 */
export type FormField = { readonly name: string; readonly label: string; readonly description: string | undefined; readonly required: boolean; readonly default: JsonValue | undefined } & (
  | { readonly kind: 'text'; readonly minLength: number | undefined; readonly maxLength: number | undefined; readonly format: string | undefined }
  | { readonly kind: 'number'; readonly integer: boolean; readonly minimum: number | undefined; readonly maximum: number | undefined }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'choice'; readonly choices: readonly Choice[] }
  | { readonly kind: 'choices'; readonly choices: readonly Choice[]; readonly minItems: number | undefined; readonly maxItems: number | undefined }
)

/** A typed answer, or why the typed line is not one. */
export type FieldAnswer = { readonly ok: true; readonly value: JsonValue | undefined } | { readonly ok: false; readonly why: string }

const FORMATS: Readonly<Record<string, RegExp>> = {
  email: /^[^\s@]+@[^\s@]+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i,
}

/**
 * The form's fields in the server's order, or why the terminal cannot ask it: a field that is not
 * one of the spec's plain kinds cannot be answered faithfully, so the whole form is declined.
 */
export function formFields(schema: JsonObject): { readonly fields: readonly FormField[] } | { readonly unsupported: string } {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [])
  const fields: FormField[] = []
  for (const [name, raw] of Object.entries(properties)) {
    const field = isRecord(raw) ? fieldOf(name, raw, required.has(name)) : undefined
    if (!field) return { unsupported: `the field ${JSON.stringify(name)} is not a plain text, number, yes/no or choice field` }
    fields.push(field)
  }
  return { fields }
}

function fieldOf(name: string, schema: JsonObject, required: boolean): FormField | undefined {
  const common = {
    name,
    label: typeof schema.title === 'string' && schema.title ? schema.title : name,
    description: typeof schema.description === 'string' && schema.description ? schema.description : undefined,
    required,
    default: schema.default,
  }
  const number = (key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined)
  switch (schema.type) {
    case 'string': {
      const choices = choicesOf(schema)
      if (choices) return { ...common, kind: 'choice', choices }
      return { ...common, kind: 'text', minLength: number('minLength'), maxLength: number('maxLength'), format: typeof schema.format === 'string' ? schema.format : undefined }
    }
    case 'number':
    case 'integer':
      return { ...common, kind: 'number', integer: schema.type === 'integer', minimum: number('minimum'), maximum: number('maximum') }
    case 'boolean':
      return { ...common, kind: 'boolean' }
    case 'array': {
      const choices = isRecord(schema.items) ? choicesOf(schema.items) : undefined
      return choices ? { ...common, kind: 'choices', choices, minItems: number('minItems'), maxItems: number('maxItems') } : undefined
    }
    default:
      return undefined
  }
}

/** SEP-1330's enum spellings: `enum` (with the legacy `enumNames`), titled `oneOf`, titled `anyOf` items. */
function choicesOf(schema: JsonObject): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : []
    return schema.enum.filter((value): value is string => typeof value === 'string').map((value, at) => ({ value, label: typeof names[at] === 'string' ? names[at] : value }))
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  if (!titled) return undefined
  return titled.filter(isRecord).flatMap((option) => (typeof option.const === 'string' ? [{ value: option.const, label: typeof option.title === 'string' ? option.title : option.const }] : []))
}

/**
 * What one typed line means for `field`: an empty line takes the default (or leaves an optional
 * field out); anything else must satisfy the field's own schema.
 */
export function answerField(field: FormField, line: string): FieldAnswer {
  const typed = line.trim()
  if (!typed) {
    if (field.default !== undefined) return { ok: true, value: field.default }
    return field.required ? { ok: false, why: 'this field is required' } : { ok: true, value: undefined }
  }
  switch (field.kind) {
    case 'text':
      return textAnswer(field, typed)
    case 'number': {
      const value = Number(typed)
      if (!Number.isFinite(value)) return { ok: false, why: 'a number is expected' }
      if (field.integer && !Number.isInteger(value)) return { ok: false, why: 'a whole number is expected' }
      if (field.minimum !== undefined && value < field.minimum) return { ok: false, why: `at least ${field.minimum}` }
      if (field.maximum !== undefined && value > field.maximum) return { ok: false, why: `at most ${field.maximum}` }
      return { ok: true, value }
    }
    case 'boolean':
      if (/^y(es)?$/i.test(typed)) return { ok: true, value: true }
      if (/^no?$/i.test(typed)) return { ok: true, value: false }
      return { ok: false, why: 'answer y or n' }
    case 'choice': {
      const choice = pick(field.choices, typed)
      return choice ? { ok: true, value: choice.value } : { ok: false, why: `pick one of 1-${field.choices.length}` }
    }
    case 'choices': {
      const picked: string[] = []
      for (const part of typed.split(',').map((word) => word.trim()).filter(Boolean)) {
        const choice = pick(field.choices, part)
        if (!choice) return { ok: false, why: `${JSON.stringify(part)} is not one of 1-${field.choices.length}` }
        if (!picked.includes(choice.value)) picked.push(choice.value)
      }
      if (field.minItems !== undefined && picked.length < field.minItems) return { ok: false, why: `pick at least ${field.minItems}` }
      if (field.maxItems !== undefined && picked.length > field.maxItems) return { ok: false, why: `pick at most ${field.maxItems}` }
      return { ok: true, value: picked }
    }
    default:
      return assertNever(field, 'form field')
  }
}

function textAnswer(field: Extract<FormField, { kind: 'text' }>, typed: string): FieldAnswer {
  const length = [...typed].length
  if (field.minLength !== undefined && length < field.minLength) return { ok: false, why: `at least ${field.minLength} characters` }
  if (field.maxLength !== undefined && length > field.maxLength) return { ok: false, why: `at most ${field.maxLength} characters` }
  if (field.format === 'uri' && !URL.canParse(typed)) return { ok: false, why: 'a URI is expected' }
  const format = field.format ? FORMATS[field.format] : undefined
  if (format && !format.test(typed)) return { ok: false, why: `${field.format === 'email' ? 'an email address' : `a ${field.format}`} is expected` }
  return { ok: true, value: typed }
}

/** A choice by its number in the list, its value, or its label. */
function pick(choices: readonly Choice[], typed: string): Choice | undefined {
  const at = /^\d+$/.test(typed) ? Number(typed) - 1 : -1
  return choices[at] ?? choices.find((choice) => choice.value === typed) ?? choices.find((choice) => choice.label.toLowerCase() === typed.toLowerCase())
}
