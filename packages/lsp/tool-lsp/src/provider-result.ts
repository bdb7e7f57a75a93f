import { LspError } from 'dsh-lsp'
import { z } from 'zod'
import { LooseRange } from './range-schema.ts'


/**
 * What `ctx.lsp.query` promises. Providers are third-party code, so the tool checks the answer
 * before building on it; parsing also copies it into fresh plain objects.
 */
const ProviderResult = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('locations'),
    locations: z.array(z.object({ uri: z.string(), range: LooseRange })),
    resolvedWorkspaceUri: z.string(),
    complete: z.boolean(),
  }),
  z.object({
    kind: z.literal('hover'),
    hover: z.object({ contents: z.string(), range: LooseRange.optional() }).nullable(),
    complete: z.boolean(),
  }),
])
export type ProviderResult = z.infer<typeof ProviderResult>

/** The provider's answer, or `LSP_MALFORMED_RESPONSE` saying what was wrong with it. */
export function checkProviderResult(raw: unknown): ProviderResult {
  return checkedAgainst(ProviderResult, raw)
}

/** A provider's answer checked against `schema`, or `LSP_MALFORMED_RESPONSE` saying what was wrong with it. */
export function checkedAgainst<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw new LspError(`the language server provider returned a malformed result: ${firstIssues(parsed.error)}`, 'LSP_MALFORMED_RESPONSE')
}

/** A few `path: message` problems; a result with thousands of bad entries must not make a huge message. */
function firstIssues(error: z.ZodError, shown = 3): string {
  const lines = error.issues.slice(0, shown).map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`)
  const more = error.issues.length - shown
  return more > 0 ? `${lines.join('; ')}; and ${more} more` : lines.join('; ')
}
