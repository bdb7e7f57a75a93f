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

/**
 * The JSON Schema a host publishes for a tool's canonical value (MCP's `outputSchema`): the output
 * side of its `output`, when that describes an object; undefined when it cannot be expressed.
 */
export function outputJsonSchema(schema: z.ZodType): JsonObject | undefined {
  let converted: Record<string, unknown>
  try {
    converted = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as Record<string, unknown>
  } catch {
    return undefined
  }
  delete converted.$schema
  return converted.type === 'object' ? (converted as JsonObject) : undefined
}

/** What `describeIssues` reads of a schema failure (a zod error of any copy of zod). */
export interface SchemaIssues {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]
}

/** Problems listed in one description; a value with thousands of bad items names the first few and counts the rest. */
const LISTED_ISSUES = 10
/** One problem's text is cut after this many characters (zod repeats unknown keys, which the caller chose). */
const ISSUE_CHARS = 300

/**
 * The problems on one line, `path: message` each, in zod's order; `root` names the whole value. At
 * most 10 are listed and each is cut at 300 characters, so bad input cannot make the message huge.
 */
export function describeIssues(error: SchemaIssues, root = '(arguments)'): string {
  const listed = error.issues.slice(0, LISTED_ISSUES).map((issue) => clip(`${issue.path.length ? issue.path.map(String).join('.') : root}: ${issue.message}`, ISSUE_CHARS))
  const more = error.issues.length - listed.length
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`
}
