import { z } from 'zod'
import { ToolError } from '../errors.ts'
import type { JsonObject } from '../json.ts'

/** The model-visible JSON Schema of a zod input schema (input side, so defaulted fields stay optional). */
export function inputJsonSchema(toolName: string, schema: z.ZodType): JsonObject {
  let converted: Record<string, unknown>
  try {
    converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>
  } catch (error) {
    throw new ToolError(`tool "${toolName}": input schema cannot be expressed as JSON Schema`, 'INVALID_TOOL', { cause: error })
  }
  delete converted.$schema
  if (converted.type !== 'object') throw new ToolError(`tool "${toolName}": input schema must describe an object`, 'INVALID_TOOL')
  return converted as JsonObject
}

/** One line per problem: `path: message`, in zod's order; `root` names the whole value. */
export function describeIssues(error: z.ZodError, root = '(arguments)'): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : root}: ${issue.message}`).join('; ')
}
