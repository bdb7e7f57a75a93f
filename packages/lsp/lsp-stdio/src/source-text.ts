import { quote } from 'dsh-core'
import { LspError, type LspPosition, type LspRange } from 'dsh-lsp'

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

/**
 * `position` with its character kept within its line (line breaks `\r\n`, `\n` or `\r`, as LSP counts
 * them): the same object when it is already. The protocol says a character past the line's end means
 * the end, but tsserver (through typescript-language-server) and pyright add it to the line's start,
 * and so answer about a name on a later line. A line past the end of the text is the caller's
 * mistake, `LSP_INVALID_REQUEST` naming the file's line count (the servers answered nothing there,
 * which told a model there was nothing to find); the empty line after a final line break is a line.
 */
export function withinLine(text: string, position: LspPosition, filePath: string): LspPosition {
  let start = 0
  for (let line = 0; line < position.line; line++) {
    const next = lineBreakEnd(text, start)
    if (next < 0) throw new LspError(`line ${position.line + 1} is past the end of ${quote(filePath)}, which has ${line + 1} line${line ? 's' : ''}`, 'LSP_INVALID_REQUEST')
    start = next
  }
  let end = start
  while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++
  const length = end - start
  return position.character <= length ? position : { line: position.line, character: length }
}

/** The offset just past the line break that ends the line starting at `start`, or -1 on the last line. */
function lineBreakEnd(text: string, start: number): number {
  for (let at = start; at < text.length; at++) {
    const char = text.charCodeAt(at)
    if (char === 10) return at + 1
    if (char === 13) return text.charCodeAt(at + 1) === 10 ? at + 2 : at + 1
  }
  return -1
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
