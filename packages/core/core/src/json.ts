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
  return copyJson(value, maxDepth, false)
}

/**
 * `toJson`, with every object and array of the copy frozen as it is made: the same as
 * `deepFreeze(toJson(value).value)` in one walk instead of two (the tools runtime does this for
 * every call's arguments and value).
 */
export function toFrozenJson(value: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  return copyJson(value, maxDepth, true)
}

function copyJson(value: unknown, maxDepth: number, freeze: boolean): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  try {
    return { ok: true, value: new JsonCopy(maxDepth, freeze).visit(value) }
  } catch (error) {
    if (error instanceof JsonProblem) return { ok: false, problem: error.message }
    throw error
  }
}

/**
 * One copy's state. A class rather than closures inside `toJson`: every tool call copies twice,
 * and closures made per call cost more than the copy of a small value (under tsx's keepNames,
 * each named closure is also a defineProperty).
 */
class JsonCopy {
  // The objects being copied and the keys leading to the current node. The path is only spelled
  // out when there is a problem: building it for every key made copying the hot path's main cost.
  private readonly ancestors: object[] = []
  private readonly keys: (string | number)[] = []

  constructor(
    private readonly maxDepth: number,
    private readonly freeze: boolean,
  ) {}

  visit(node: unknown): JsonValue {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return node
      case 'number':
        return Number.isFinite(node) ? node : this.fail('is a non-finite number')
      case 'object': {
        if (node === null) return null
        const { ancestors, keys } = this
        if (ancestors.includes(node)) return this.fail('is a cycle')
        if (ancestors.length >= this.maxDepth) return this.fail(`nests deeper than ${this.maxDepth} levels`)
        ancestors.push(node)
        try {
          if (Array.isArray(node)) {
            const out: JsonValue[] = new Array(node.length)
            for (let index = 0; index < node.length; index++) {
              keys.push(index)
              out[index] = this.visit(node[index])
              keys.pop()
            }
            return this.freeze ? Object.freeze(out) : out
          }
          const proto = Object.getPrototypeOf(node)
          if (proto !== Object.prototype && proto !== null) return this.fail(`is a ${proto?.constructor?.name ?? 'non-plain'} object, not plain JSON`)
          const out: Record<string, JsonValue> = {}
          for (const key of Object.keys(node)) {
            const item = (node as Record<string, unknown>)[key]
            if (item === undefined) continue
            keys.push(key)
            const copy = this.visit(item)
            keys.pop()
            // Assigning "__proto__" would set the copy's prototype; it must stay an ordinary key.
            if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true })
            else out[key] = copy
          }
          return this.freeze ? Object.freeze(out) : out
        } finally {
          ancestors.pop()
        }
      }
      default:
        return this.fail(`is ${node === undefined ? 'undefined' : `a ${typeof node}`}`)
    }
  }

  private fail(what: string): never {
    const path = `$${this.keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('')}`
    throw new JsonProblem(`${path.length > 80 ? `${path.slice(0, 80)}…` : path} ${what}`)
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
