import type { CallToolRequest, JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/server'
import { isRecord } from 'dsh-core'

// The shapes nearly every message on `dsh serve`'s hot path has, recognised without zod. Parsing
// them with the SDK's schemas costs more than the rest of the hop's own work (a union of four
// strict objects per incoming line, then the route's request schema). Each check accepts only
// values its schema accepts unchanged, so taking the value as it is gives what the parse would
// have; anything else (task metadata, error responses, a malformed message) still goes through the
// schema, which also words the reason for a refusal.

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params'])
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result'])
const TOOL_CALL_KEYS = new Set(['name', 'arguments', '_meta'])
const META_KEYS = new Set(['progressToken'])

/** A request, notification or result response in its plain form (what `JSONRPCMessageSchema` accepts as it is). */
export function isPlainMessage(json: unknown): json is JSONRPCMessage {
  if (!isRecord(json) || json.jsonrpc !== '2.0') return false
  if (typeof json.method === 'string') {
    const keys = json.id === undefined ? NOTIFICATION_KEYS : REQUEST_KEYS
    return onlyKeys(json, keys) && (json.id === undefined || isId(json.id)) && (json.params === undefined || plainParams(json.params))
  }
  return onlyKeys(json, RESULT_KEYS) && isId(json.id) && isRecord(json.result) && json.result._meta === undefined
}

/** A `tools/call` request in its plain form (name, arguments, a progress token), as `CallToolRequestSchema` would give it. */
export function plainToolCall(request: JSONRPCRequest): CallToolRequest | undefined {
  const { params } = request
  if (request.method !== 'tools/call' || !isRecord(params) || !onlyKeys(params, TOOL_CALL_KEYS) || !plainParams(params)) return undefined
  const { name, arguments: args, _meta: meta } = params
  if (typeof name !== 'string' || (args !== undefined && !isRecord(args))) return undefined
  // plainParams checked the metadata: a progress token at most.
  return { method: 'tools/call', params: { name, ...(args ? { arguments: args } : {}), ...(meta ? { _meta: meta as CallToolRequest['params']['_meta'] } : {}) } }
}

/** Params whose `_meta`, if any, carries a progress token only. */
function plainParams(params: unknown): boolean {
  if (!isRecord(params)) return false
  const meta = params._meta
  if (meta === undefined) return true
  return isRecord(meta) && onlyKeys(meta, META_KEYS) && (meta.progressToken === undefined || isId(meta.progressToken))
}

/** A request id or progress token: a string or a whole number (a safe integer, as zod's `int()` wants). */
function isId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value)
}

function onlyKeys(record: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in record) if (!allowed.has(key)) return false
  return true
}
