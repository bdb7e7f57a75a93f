import { z } from 'zod'

/**
 * A value built on its first use and kept: for what a module would otherwise build at import (a
 * zod schema, a parsed constant) but a process may never need. Start-up pays for everything built
 * at import, and a short command uses little of it (issue 27, bench/RESULTS.md).
 */
export interface Lazy<T> {
  (): T
  /** Whether the value was built yet (tests check that importing a module builds nothing). */
  readonly built: boolean
}

/** `build`'s value, built on the first call and returned by every later one. A throw is not kept. */
export function lazy<T>(build: () => T): Lazy<T> {
  let state: { readonly value: T } | undefined
  const get = () => (state ??= { value: build() }).value
  return Object.defineProperty(get, 'built', { get: () => state !== undefined }) as Lazy<T>
}

/**
 * A zod schema built on its first parse (or JSON Schema rendering): a `z.lazy` over `build`, so it
 * composes, infers and validates exactly as the schema `build` returns, and a module can export it
 * as a constant without paying for it at import. For schemas a command may never touch: tool
 * values, wire formats, stored records. `schemaBuilt` says whether it was built yet.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(lazy(build))
}

/** Whether a `lazySchema` has been built; undefined for any other schema. */
export function schemaBuilt(schema: z.ZodType): boolean | undefined {
  const getter: unknown = schema instanceof z.ZodLazy ? schema.def.getter : undefined
  return typeof getter === 'function' && 'built' in getter ? Boolean(getter.built) : undefined
}
