import { z } from 'zod'

const coordinate = z.number().int().nonnegative()
const position = { line: coordinate, character: coordinate }

/** An LSP range (zero-based) in the tool's own value: nothing but its fields. */
export const StrictRange = z.strictObject({ start: z.strictObject(position), end: z.strictObject(position) })

/** An LSP range in a provider's answer: third-party code may add fields, which parsing drops. */
export const LooseRange = z.object({ start: z.object(position), end: z.object(position) })

/** An LSP position in a provider's answer (a result's `askedAt`). */
export const LoosePosition = z.object(position)
