import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv'
import { errorMessage } from 'dsh-core'

/** Checks `structuredContent`; returns the problem, or undefined when it fits. */
export type OutputCheck = (structuredContent: unknown) => string | undefined

/** Keywords that only describe a schema. SDK-built servers put `$schema` in every schema; `$id` would make AJV cache schemas across tools. */
const META_KEYWORDS = ['$schema', '$id', '$comment'] as const

const validators = new AjvJsonSchemaValidator()

/**
 * Compiles a tool's advertised `outputSchema` (full JSON Schema, through the SDK's AJV), ignoring
 * the meta keywords at the root. A schema AJV cannot compile is reported and not enforced.
 */
export function compileOutputSchema(schema: unknown): { check: OutputCheck } | { problem: string } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { problem: 'the output schema is not an object' }
  const stripped: Record<string, unknown> = { ...(schema as Record<string, unknown>) }
  for (const keyword of META_KEYWORDS) delete stripped[keyword]
  let validate: ReturnType<typeof validators.getValidator>
  try {
    validate = validators.getValidator(stripped)
  } catch (error) {
    return { problem: `the output schema cannot be compiled: ${errorMessage(error)}` }
  }
  return {
    check: (structuredContent) => {
      const result = validate(structuredContent)
      // AJV names the checked value `data`; the model knows it as the result's structuredContent.
      return result.valid ? undefined : result.errorMessage.replace(/(^|, )data/g, '$1value.structuredContent')
    },
  }
}
