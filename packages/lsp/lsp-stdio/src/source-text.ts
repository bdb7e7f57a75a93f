import type { LspPosition, LspRange } from 'dsh-lsp'

/** The UTF-16 offset of a zero-based position in `text` (clamped to the text), lines split at `\n`. */
export function offsetOf(text: string, position: LspPosition): number {
  let offset = 0
  for (let line = 0; line < position.line; line++) {
    const end = text.indexOf('\n', offset)
    if (end < 0) return text.length
    offset = end + 1
  }
  const end = text.indexOf('\n', offset)
  return Math.min(offset + position.character, end < 0 ? text.length : end)
}

/** The text a range covers. */
export function textIn(text: string, range: LspRange): string {
  return text.slice(offsetOf(text, range.start), offsetOf(text, range.end))
}

const IDENTIFIER_PART = /[\p{ID_Continue}$\u200c\u200d]/u

/** The identifier the position touches (empty when none): what a server that leaves the name to its client renames. */
export function nameAt(text: string, position: LspPosition): string {
  const at = offsetOf(text, position)
  let start = at
  let end = at
  while (start > 0 && IDENTIFIER_PART.test(text[start - 1]!)) start--
  while (end < text.length && IDENTIFIER_PART.test(text[end]!)) end++
  return text.slice(start, end)
}
