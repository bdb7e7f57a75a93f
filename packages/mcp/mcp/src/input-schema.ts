import { Ajv } from '@modelcontextprotocol/client/validators/ajv'
import { DEFAULT_MAX_JSON_DEPTH, errorMessage } from 'dsh-core'
import { DRAFT_04_META_SCHEMA } from './draft-04.ts'

/**
 * The SDK's classic (draft-07) AJV, made at the first check. Its meta-schema stands for the newer
 * dialects too: a keyword it does not know (`prefixItems`, `$defs`) passes, so it refuses no valid
 * 2019-09 or 2020-12 schema, and still catches a value that is no schema (`properties: { a: 5 }`).
 */
let engine: InstanceType<typeof Ajv> | undefined

/** Dialects checked against draft-07's meta-schema: none declared (MCP's default, 2020-12), 2020-12, 2019-09, draft-07 and draft-06. */
const CLASSIC_DIALECT = /^https?:\/\/json-schema\.org\/(?:draft\/20(?:20-12|19-09)\/schema|draft-0[67]\/schema#?)$/
/** Draft-04, whose `exclusiveMinimum: true` draft-07's meta-schema refuses: checked against its own (draft-04.ts). */
const DRAFT_04 = /^https?:\/\/json-schema\.org\/draft-04\/schema#?$/

let draft04: ReturnType<InstanceType<typeof Ajv>['compile']> | undefined

/**
 * Why a tool's `inputSchema` is not a JSON Schema, or undefined when it is one. A model API refuses
 * a whole request whose tools hold one invalid schema, so one careless tool would break every turn:
 * it is refused alone instead. A schema declaring draft-04 is checked against draft-04's meta-schema
 * (its boolean `exclusiveMinimum` passes, a number there does not); one declaring another dialect
 * (draft-03, a URI of the server's own) is not checked: no meta-schema of ours reads it right.
 * Only the meta-schema is checked (no compile of the tool's schema): about 40 µs a tool, once per
 * tool as listed (discovery.ts reuses unchanged tools).
 */
export function inputSchemaProblem(schema: Record<string, unknown>): string | undefined {
  const declared = schema.$schema
  const draft4 = typeof declared === 'string' && DRAFT_04.test(declared)
  if (declared !== undefined && !draft4 && !(typeof declared === 'string' && CLASSIC_DIALECT.test(declared))) return undefined
  const stripped: Record<string, unknown> = { ...schema }
  delete stripped.$schema
  delete stripped.$id
  if (draft4) delete stripped.id
  engine ??= new Ajv({ strict: false, validateSchema: false })
  let errors: readonly { instancePath?: string; message?: string }[] | null | undefined
  try {
    if (draft4) {
      draft04 ??= engine.compile(DRAFT_04_META_SCHEMA)
      if (draft04(stripped)) return undefined
      errors = draft04.errors
    } else {
      if (engine.validateSchema(stripped) === true) return undefined
      errors = engine.errors
    }
  } catch (error) {
    return `inputSchema cannot be checked: ${errorMessage(error)}`
  }
  // The deepest error says what is wrong: where a subschema may be a boolean or a schema, the first
  // one is "must be boolean" at the subschema, the deepest the keyword inside it that is wrong.
  const first = errors?.length ? errors.reduce((deepest, error) => ((error.instancePath ?? '').length > (deepest.instancePath ?? '').length ? error : deepest)) : undefined
  return `inputSchema${first?.instancePath ?? ''} ${first?.message ?? 'is not valid'} (not a valid ${draft4 ? 'draft-04 ' : ''}JSON Schema)`
}

/**
 * Whether a tool entry nests deeper than the host keeps (dsh-core's `DEFAULT_MAX_JSON_DEPTH`, 512
 * levels), measured without recursion. Deeper, the SDK's tool schema (about 2,000 levels) or the
 * page's fingerprint (JSON.stringify, about 10,000) overflowed the stack: the whole tools/list failed
 * as a lost connection, MCP_CONNECT_FAILED, every tool with it; and from 513 levels the host's
 * registration refused the parameters and with them every tool of the batch. Such a tool is refused
 * alone, before any of them.
 */
export function nestsTooDeep(value: unknown, max = DEFAULT_MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    if (depth > max) return true
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
  }
  return false
}
