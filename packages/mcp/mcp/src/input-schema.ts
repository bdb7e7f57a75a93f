import { Ajv } from '@modelcontextprotocol/client/validators/ajv'
import { errorMessage } from 'dsh-core'

/**
 * The SDK's classic (draft-07) AJV, made at the first check. Its meta-schema stands for the newer
 * dialects too: a keyword it does not know (`prefixItems`, `$defs`) passes, so it refuses no valid
 * 2019-09 or 2020-12 schema, and still catches a value that is no schema (`properties: { a: 5 }`).
 */
let engine: InstanceType<typeof Ajv> | undefined

/** Dialects checked: none declared (MCP's default, 2020-12), 2020-12, 2019-09, draft-07 and draft-06. */
const CHECKED_DIALECT = /^https?:\/\/json-schema\.org\/(?:draft\/20(?:20-12|19-09)\/schema|draft-0[67]\/schema#?)$/

/**
 * Why a tool's `inputSchema` is not a JSON Schema, or undefined when it is one (or declares another
 * dialect, draft-04's boolean `exclusiveMinimum` say, which is not checked). A model API refuses a
 * whole request whose tools hold one invalid schema, so one careless tool would break every turn:
 * it is refused alone instead. Only the meta-schema is checked (no compile): about 40 µs a tool,
 * once per tool as listed (discovery.ts reuses unchanged tools).
 */
export function inputSchemaProblem(schema: Record<string, unknown>): string | undefined {
  const declared = schema.$schema
  if (declared !== undefined && !(typeof declared === 'string' && CHECKED_DIALECT.test(declared))) return undefined
  const stripped: Record<string, unknown> = { ...schema }
  delete stripped.$schema
  delete stripped.$id
  engine ??= new Ajv({ strict: false, validateSchema: false })
  try {
    if (engine.validateSchema(stripped) === true) return undefined
  } catch (error) {
    return `inputSchema cannot be checked: ${errorMessage(error)}`
  }
  const first = engine.errors?.[0]
  return `inputSchema${first?.instancePath ?? ''} ${first?.message ?? 'is not valid'} (not a valid JSON Schema)`
}
