import type { z } from 'zod'

/**
 * A plugin's `Config` that parses each config object once. A preset boot hands a row's config to
 * three parses: dsh-core's check before anything applies, cordis's when it adds the plugin, and the
 * plugin's own in `apply` or its constructor, which cordis hands the value it parsed. Each is a full
 * walk of a schema that a one-shot `dsh` process parses only there (issue 27 item 5). So the value
 * parsed first is kept for the object it came from (weakly), a value this parser returned passes
 * through as itself, and no config (undefined or null) is `{}` parsed once. The value is shared by
 * those callers, so it is read-only, as settings are.
 */
export function configParser<S extends z.ZodType>(schema: S): (config: unknown) => z.output<S> {
  const parsed = new WeakMap<object, z.output<S>>()
  let empty: { readonly value: z.output<S> } | undefined
  const keep = (config: object, value: z.output<S>) => {
    parsed.set(config, value)
    if (typeof value === 'object' && value !== null) parsed.set(value, value)
    return value
  }
  return (config) => {
    if (config === undefined || config === null) return (empty ??= { value: keep({}, schema.parse({})) }).value
    if (typeof config !== 'object') return schema.parse(config)
    return parsed.has(config) ? parsed.get(config)! : keep(config, schema.parse(config))
  }
}
