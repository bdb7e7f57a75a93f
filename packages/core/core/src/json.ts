export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue }
export type JsonObject = { readonly [key: string]: JsonValue }

/** An object that is not an array or null: the shape of a JSON object, a config record, a wire message. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** How deep `toJson` follows objects and arrays unless told otherwise. */
export const DEFAULT_MAX_JSON_DEPTH = 512

/**
 * Copies a value into plain JSON, refusing anything JSON cannot carry losslessly
 * (undefined in arrays, functions, symbols, bigints, non-finite numbers, cycles, class instances)
 * and nesting deeper than `maxDepth`. Keys are copied as own properties, so `"__proto__"` stays a
 * key and never becomes the copy's prototype. Returns the problem as a string instead of throwing
 * so callers can attach their own code.
 */
export function toJson(value: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  // The objects being copied and the keys leading to the current node. The path is only spelled
  // out when there is a problem: building it for every key made copying the hot path's main cost.
  const ancestors: object[] = []
  const keys: (string | number)[] = []
  const fail = (what: string): never => {
    const path = `$${keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('')}`
    throw new JsonProblem(`${path.length > 80 ? `${path.slice(0, 80)}…` : path} ${what}`)
  }
  const visit = (node: unknown): JsonValue => {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return node
      case 'number':
        return Number.isFinite(node) ? node : fail('is a non-finite number')
      case 'object': {
        if (node === null) return null
        if (ancestors.includes(node)) return fail('is a cycle')
        if (ancestors.length >= maxDepth) return fail(`nests deeper than ${maxDepth} levels`)
        ancestors.push(node)
        try {
          if (Array.isArray(node)) {
            const out: JsonValue[] = new Array(node.length)
            for (let index = 0; index < node.length; index++) {
              keys.push(index)
              out[index] = visit(node[index])
              keys.pop()
            }
            return out
          }
          const proto = Object.getPrototypeOf(node)
          if (proto !== Object.prototype && proto !== null) return fail(`is a ${proto?.constructor?.name ?? 'non-plain'} object, not plain JSON`)
          const out: Record<string, JsonValue> = {}
          for (const key of Object.keys(node)) {
            const item = (node as Record<string, unknown>)[key]
            if (item === undefined) continue
            keys.push(key)
            const copy = visit(item)
            keys.pop()
            // Assigning "__proto__" would set the copy's prototype; it must stay an ordinary key.
            if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true })
            else out[key] = copy
          }
          return out
        } finally {
          ancestors.pop()
        }
      }
      default:
        return fail(`is ${node === undefined ? 'undefined' : `a ${typeof node}`}`)
    }
  }
  try {
    return { ok: true, value: visit(value) }
  } catch (error) {
    if (error instanceof JsonProblem) return { ok: false, problem: error.message }
    throw error
  }
}

class JsonProblem extends Error {}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const item of Object.values(value)) deepFreeze(item)
  }
  return value
}
