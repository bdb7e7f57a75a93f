import { quote } from 'dsh-core'
import { LspError, type LspPosition, type LspRange } from 'dsh-lsp'

// One line model for the file: LSP's, where `\r\n`, `\n` and a lone `\r` each end a line (as the
// servers count them, and tool-lsp's line text). Positions a server gives (a rename's range) and
// positions a caller gives (kept within their line) are both read through it, so a CR-only file or
// a stray `\r` inside a line cannot put the two on different lines.

/** Where zero-based `line` starts in `text`, or -1 when the text has fewer lines. */
function lineStart(text: string, line: number): number {
  let start = 0
  for (let at = 0; at < line; at++) {
    start = lineBreakEnd(text, start)
    if (start < 0) return -1
  }
  return start
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

/** The offset of the line break (or the text's end) ending the line that starts at `start`. */
function lineEnd(text: string, start: number): number {
  let end = start
  while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++
  return end
}

/** The UTF-16 offset of a zero-based position in `text`, clamped to its line (and a line past the end to the text's end). */
export function offsetOf(text: string, position: LspPosition): number {
  const start = lineStart(text, position.line)
  if (start < 0) return text.length
  return Math.min(start + position.character, lineEnd(text, start))
}

/**
 * `position` with its character kept within its line: the same object when it is already. The
 * protocol says a character past the line's end means the end, but tsserver (through
 * typescript-language-server) and pyright add it to the line's start, and so answer about a name on
 * a later line. A line past the end of the text is the caller's mistake, `LSP_INVALID_REQUEST`
 * naming the file's line count (the servers answered nothing there, which told a model there was
 * nothing to find); the empty line after a final line break is a line.
 */
export function withinLine(text: string, position: LspPosition, filePath: string): LspPosition {
  const start = lineStart(text, position.line)
  if (start < 0) {
    const lines = lineCount(text)
    throw new LspError(`line ${position.line + 1} is past the end of ${quote(filePath)}, which has ${lines} line${lines === 1 ? '' : 's'}`, 'LSP_INVALID_REQUEST')
  }
  const length = lineEnd(text, start) - start
  return position.character <= length ? position : { line: position.line, character: length }
}

/** How many lines `text` has (the empty line after a final line break counts). */
function lineCount(text: string): number {
  let lines = 1
  for (let start = lineBreakEnd(text, 0); start >= 0; start = lineBreakEnd(text, start)) lines++
  return lines
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
