export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue }
export type JsonObject = { readonly [key: string]: JsonValue }

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
  const seen = new Set<object>()
  const visit = (node: unknown, path: string): JsonValue => {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return node
      case 'number':
        if (!Number.isFinite(node)) throw new JsonProblem(`${path} is a non-finite number`)
        return node
      case 'object': {
        if (node === null) return null
        if (seen.has(node)) throw new JsonProblem(`${path} is a cycle`)
        if (seen.size >= maxDepth) throw new JsonProblem(`${path.slice(0, 80)}… nests deeper than ${maxDepth} levels`)
        seen.add(node)
        try {
          if (Array.isArray(node)) return node.map((item, index) => visit(item, `${path}[${index}]`))
          const proto = Object.getPrototypeOf(node)
          if (proto !== Object.prototype && proto !== null) {
            throw new JsonProblem(`${path} is a ${proto?.constructor?.name ?? 'non-plain'} object, not plain JSON`)
          }
          const out: Record<string, JsonValue> = {}
          for (const [key, item] of Object.entries(node)) {
            if (item === undefined) continue
            Object.defineProperty(out, key, { value: visit(item, `${path}.${key}`), enumerable: true, writable: true, configurable: true })
          }
          return out
        } finally {
          seen.delete(node)
        }
      }
      default:
        throw new JsonProblem(`${path} is ${node === undefined ? 'undefined' : `a ${typeof node}`}`)
    }
  }
  try {
    return { ok: true, value: visit(value, '$') }
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
