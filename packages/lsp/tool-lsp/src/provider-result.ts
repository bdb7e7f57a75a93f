import { LspError } from 'dsh-lsp'
import { z } from 'zod'
import { LooseRange, LoosePosition } from './range-schema.ts'


/**
 * What `ctx.lsp.query` promises. Providers are third-party code, so the tool checks the answer
 * before building on it; parsing also copies it into fresh plain objects.
 */
export const ProviderResult = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('locations'),
    locations: z.array(z.object({ uri: z.string(), range: LooseRange })),
    resolvedWorkspaceUri: z.string(),
    complete: z.boolean(),
    askedAt: LoosePosition.optional(),
  }),
  z.object({
    kind: z.literal('hover'),
    hover: z.object({ contents: z.string(), range: LooseRange.optional() }).nullable(),
    complete: z.boolean(),
    askedAt: LoosePosition.optional(),
  }),
])
export type ProviderResult = z.infer<typeof ProviderResult>
type Range = z.infer<typeof LooseRange>
type Location = Extract<ProviderResult, { kind: 'locations' }>['locations'][number]

/**
 * The provider's answer, or `LSP_MALFORMED_RESPONSE` saying what was wrong with it. A well-formed
 * answer is checked and copied without zod (`quickResult`); anything else goes to the schema.
 */
export function checkProviderResult(raw: unknown): ProviderResult {
  return quickResult(raw) ?? checkedAgainst(ProviderResult, raw)
}

/** A provider's answer checked against `schema`, or `LSP_MALFORMED_RESPONSE` saying what was wrong with it. */
export function checkedAgainst<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw new LspError(`the language server provider returned a malformed result: ${firstIssues(parsed.error)}`, 'LSP_MALFORMED_RESPONSE')
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `ProviderResult`'s parse of an answer it certainly accepts, without zod: fresh plain objects
 * holding only the schema's fields. Undefined for anything unusual (valid or not), which the schema
 * then decides. Every query's answer passes here, a references answer with many locations.
 */
export function quickResult(raw: unknown): ProviderResult | undefined {
  // A moved position is rare: the schema reads it.
  if (!isObject(raw) || typeof raw.complete !== 'boolean' || raw.askedAt !== undefined) return undefined
  const { complete } = raw
  if (raw.kind === 'hover') {
    const { hover } = raw
    if (hover === null) return { kind: 'hover', hover: null, complete }
    if (!isObject(hover) || typeof hover.contents !== 'string') return undefined
    if (!('range' in hover)) return { kind: 'hover', hover: { contents: hover.contents }, complete }
    const range = quickRange(hover.range)
    return range && { kind: 'hover', hover: { contents: hover.contents, range }, complete }
  }
  if (raw.kind !== 'locations' || typeof raw.resolvedWorkspaceUri !== 'string' || !Array.isArray(raw.locations)) return undefined
  const given: unknown[] = raw.locations
  const locations: Location[] = new Array(given.length)
  for (let index = 0; index < given.length; index++) {
    const location = given[index]
    if (!isObject(location) || typeof location.uri !== 'string') return undefined
    const range = quickRange(location.range)
    if (!range) return undefined
    locations[index] = { uri: location.uri, range }
  }
  return { kind: 'locations', locations, resolvedWorkspaceUri: raw.resolvedWorkspaceUri, complete }
}

/** `LooseRange`'s parse of a range it certainly accepts, without zod: a fresh copy of its four coordinates; undefined for anything else. */
export function quickRange(range: unknown): Range | undefined {
  if (!isObject(range)) return undefined
  const start = quickPosition(range.start)
  const end = start && quickPosition(range.end)
  return end && { start, end }
}

function quickPosition(position: unknown): Range['start'] | undefined {
  if (!isObject(position)) return undefined
  const { line, character } = position
  return coordinate(line) && coordinate(character) ? { line, character } : undefined
}

function coordinate(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** A few `path: message` problems; a result with thousands of bad entries must not make a huge message. */
function firstIssues(error: z.ZodError, shown = 3): string {
  const lines = error.issues.slice(0, shown).map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`)
  const more = error.issues.length - shown
  return more > 0 ? `${lines.join('; ')}; and ${more} more` : lines.join('; ')
}
