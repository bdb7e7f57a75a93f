import { askedAtNote, type LspPosition } from 'dsh-lsp'
import { z } from 'zod'

const OneBased = z.number().int().min(1)

/**
 * In a value: where the server was asked, one-based, when the provider moved the call's position
 * (a column past the end of its line is asked at the line's end), and the note saying so, which
 * the text shows in its first line.
 */
export const AskedAt = z.strictObject({ line: OneBased, character: OneBased, note: z.string() })
export type AskedAt = z.infer<typeof AskedAt>

/** A provider's `askedAt` (zero-based) for the call's zero-based `requested`, as the value's field; undefined when it was not moved. */
export function askedAtValue(requested: LspPosition, askedAt: LspPosition | undefined): AskedAt | undefined {
  if (askedAt === undefined || (askedAt.line === requested.line && askedAt.character === requested.character)) return undefined
  return { line: askedAt.line + 1, character: askedAt.character + 1, note: askedAtNote(requested, askedAt) }
}
