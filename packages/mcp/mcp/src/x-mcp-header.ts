import type { JsonValue } from 'dsh-core'

/**
 * SEP-2243 (MCP 2026-07-28): a tool's input schema may mark top-level-reachable primitive
 * parameters with `x-mcp-header: <Name>`; a client then mirrors each one's value in an
 * `Mcp-Param-<Name>` header of the `tools/call` POST, so gateways can route without parsing the
 * body. A tool whose declarations are invalid must not be published.
 */
export interface HeaderParameter {
  /** Property names from the root to the parameter. */
  readonly path: readonly string[]
  readonly header: string
}

const KEYWORD = 'x-mcp-header'
/** RFC 9110 `token`: what a header name may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean'])
/** Subschemas a parameter is not statically reachable through (a value may or may not be there). */
const UNREACHABLE = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions']
const KEYED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions'])

/** The header parameters an input schema declares, or why its declarations are invalid. */
export function declaredHeaderParameters(inputSchema: unknown): { readonly parameters: readonly HeaderParameter[] } | { readonly invalid: string } {
  const parameters: HeaderParameter[] = []
  const seen = new Map<string, string>()
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (typeof node !== 'object' || node === null) return undefined
    const schema = node as Record<string, unknown>
    const where = path.length ? path.join('.') : '<root>'
    if (KEYWORD in schema) {
      const header = schema[KEYWORD]
      if (!reachable || !path.length) return `${where}: x-mcp-header is allowed only on a property reached through "properties" alone`
      if (typeof header !== 'string' || !header) return `${where}: x-mcp-header must be a non-empty string`
      if (!TOKEN.test(header)) return `${where}: x-mcp-header ${JSON.stringify(header)} is not an HTTP header token`
      if (typeof schema.type !== 'string' || !PRIMITIVE_TYPES.has(schema.type)) return `${where}: x-mcp-header is allowed only on a string, integer or boolean property (got ${typeof schema.type === 'string' ? schema.type : 'no type'})`
      const other = seen.get(header.toLowerCase())
      if (other !== undefined) return `x-mcp-header ${JSON.stringify(header)} is declared twice (also as ${JSON.stringify(other)})`
      seen.set(header.toLowerCase(), header)
      parameters.push({ path, header })
    }
    if (typeof schema.properties === 'object' && schema.properties !== null) {
      for (const [name, child] of Object.entries(schema.properties)) {
        const problem = visit(child, [...path, name], reachable)
        if (problem) return problem
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub) ? sub : KEYED.has(keyword) && typeof sub === 'object' && sub !== null ? Object.values(sub) : [sub]
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false)
        if (problem) return problem
      }
    }
    return undefined
  }
  const invalid = visit(inputSchema, [], true)
  return invalid ? { invalid } : { parameters }
}

/**
 * The `Mcp-Param-*` headers of one call: each declared parameter present in `args` with a
 * primitive value; a value that is not plain visible ASCII (or is empty, or padded) is sent as
 * `=?base64?<UTF-8, base64>?=`. Null and absent values send no header.
 */
export function parameterHeaders(parameters: readonly HeaderParameter[], args: JsonValue): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const { path, header } of parameters) {
    let value: unknown = args
    for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
    const text = typeof value === 'string' ? value : typeof value === 'boolean' ? String(value) : typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)) ? String(value) : undefined
    if (text !== undefined) headers[`Mcp-Param-${header}`] = plainAscii(text) ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`
  }
  return headers
}

function plainAscii(text: string): boolean {
  if (!text || text !== text.trim() || (text.startsWith('=?base64?') && text.endsWith('?='))) return false
  return /^[\t\x20-\x7e]*$/.test(text)
}
