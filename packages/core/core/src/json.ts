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

/**
 * `toFrozenJson` for a value its caller built for this use and shares with nothing that will change
 * it (a tool's fresh answer, see `ToolDefinition.freshValue`): the same checks and refusals, but its
 * plain objects and arrays are frozen where they are (an `undefined`-valued key deleted) instead of
 * copied, and the answer is `value` itself. Whoever still holds a part of it can no longer change
 * it. A part that is frozen, sealed or otherwise not extensible (shared, perhaps with such a key)
 * or not a plain object or array is copied as `toFrozenJson` would. Data properties only: a getter is kept as a getter.
 */
export function adoptFrozenJson(value: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  return copyJson(value, maxDepth, true, true)
}

function copyJson(value: unknown, maxDepth: number, freeze: boolean, adopt = false): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  try {
    return { ok: true, value: new JsonCopy(maxDepth, freeze, adopt).visit(value) }
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
    /** Freeze the caller's own objects in place (`adoptFrozenJson`); off inside a part being copied. */
    private adopt: boolean,
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
          // Only an extensible part is frozen in place: a sealed or non-extensible one (a frozen one
          // among them) may refuse the delete of an undefined key or the swap of a copied part.
          if (this.adopt && Object.isExtensible(node)) {
            const proto = Object.getPrototypeOf(node)
            if (proto === Object.prototype || proto === null) return this.adoptObject(node as Record<string, unknown>)
            if (proto === Array.prototype) return this.adoptArray(node as unknown[])
          }
          if (this.adopt) return this.copied(node)
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

  /** An object of the caller's, checked and frozen where it is. */
  private adoptObject(node: Record<string, unknown>): JsonValue {
    const { keys } = this
    // for…in, not Object.keys: no array of keys per object (most of a walk's cost). A plain object's
    // prototype is Object.prototype or null, so what it lists beyond the own keys is only what
    // someone made enumerable on Object.prototype: checked too, never copied in.
    for (const key in node) {
      const item = node[key]
      if (item === undefined) {
        delete node[key]
        continue
      }
      keys.push(key)
      const checked = this.visit(item)
      keys.pop()
      if (checked === item) continue
      // A part that had to be copied (frozen already, or not plain) replaces the original.
      if (key === '__proto__') Object.defineProperty(node, key, { value: checked, enumerable: true, writable: true, configurable: true })
      else node[key] = checked
    }
    return Object.freeze(node) as JsonValue
  }

  /** An array of the caller's, checked and frozen where it is. */
  private adoptArray(node: unknown[]): JsonValue {
    const { keys } = this
    for (let index = 0; index < node.length; index++) {
      const item = node[index]
      keys.push(index)
      const checked = this.visit(item)
      keys.pop()
      if (checked !== item) node[index] = checked
    }
    return Object.freeze(node) as JsonValue
  }

  /** A part `adopt` cannot freeze where it is (frozen already, not plain): visited as a copy, its own parts too. */
  private copied(node: object): JsonValue {
    this.adopt = false
    // The node is on `ancestors` already: take it off while the copy visits it, then put it back.
    this.ancestors.pop()
    try {
      return this.visit(node)
    } finally {
      this.ancestors.push(node)
      this.adopt = true
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
