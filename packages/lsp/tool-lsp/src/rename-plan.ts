import type { LspRange, LspTextEdit } from 'dsh-lsp'

/** One changed line, one-based, as it reads before and after the edit. */
export interface ChangedLine {
  readonly line: number
  readonly before: string
  readonly after: string
}

/** What the edit does to one file's text, or why it cannot be applied to it. */
export type FilePlan =
  | { readonly ok: true; readonly after: string; readonly edits: number; readonly lines: readonly ChangedLine[] }
  | { readonly ok: false; readonly problem: string }

/** Start offsets of each line (LSP ends lines at `\n`, `\r\n` or `\r`). */
function lineStarts(text: string): number[] {
  const starts = [0]
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 10 || (code === 13 && text.charCodeAt(index + 1) !== 10)) starts.push(index + 1)
  }
  return starts
}

/** The line's text without its terminator. */
function lineText(text: string, starts: readonly number[], line: number): string {
  const end = line + 1 < starts.length ? starts[line + 1]! : text.length
  return text.slice(starts[line]!, end).replace(/\r?\n$|\r$/, '')
}

/**
 * Applies a server's edits to the text they were computed from, checking first that they fit it:
 * every range inside the text and no two overlapping (LSP forbids both), and, when `oldName` is
 * known, every replaced range holding it. A rename replaces uses of the old name; a range that
 * holds anything else means the server computed the edit from another version of the file
 * (a change it was not told about) — applying it would corrupt the file.
 */
export function planFileEdit(text: string, edits: readonly LspTextEdit[], oldName: string): FilePlan {
  const starts = lineStarts(text)
  const offsetOf = (position: LspRange['start']): number | undefined => {
    if (position.line >= starts.length) return undefined
    const length = lineText(text, starts, position.line).length
    return position.character > length ? undefined : starts[position.line]! + position.character
  }
  const placed: { start: number; end: number; newText: string; line: number }[] = []
  for (const edit of edits) {
    const start = offsetOf(edit.range.start)
    const end = offsetOf(edit.range.end)
    const at = `${edit.range.start.line + 1}:${edit.range.start.character + 1}`
    if (start === undefined || end === undefined || end < start) return { ok: false, problem: `the edit at ${at} lies outside the file's text` }
    const replaced = text.slice(start, end)
    if (oldName && replaced && replaced !== oldName) return { ok: false, problem: `the edit at ${at} would replace ${JSON.stringify(replaced.slice(0, 80))}, not ${JSON.stringify(oldName)}` }
    placed.push({ start, end, newText: edit.newText, line: edit.range.start.line })
  }
  // Stable: inserts at one place keep the server's order, as the protocol says.
  placed.sort((a, b) => a.start - b.start || a.end - b.end)
  for (let index = 1; index < placed.length; index++) {
    if (placed[index]!.start < placed[index - 1]!.end) return { ok: false, problem: `two edits overlap at line ${placed[index]!.line + 1}` }
  }
  let after = ''
  let cursor = 0
  for (const edit of placed) {
    after += text.slice(cursor, edit.start) + edit.newText
    cursor = edit.end
  }
  after += text.slice(cursor)
  return { ok: true, after, edits: placed.length, lines: changedLines(text, starts, after, placed) }
}

/**
 * The lines the edits start on, before and after. A line's number after the edit moves by the line
 * breaks the earlier edits added or removed.
 */
function changedLines(before: string, starts: readonly number[], after: string, placed: readonly { start: number; end: number; newText: string; line: number }[]): ChangedLine[] {
  const afterStarts = lineStarts(after)
  const breaks = (text: string) => lineStarts(text).length - 1
  const lines: ChangedLine[] = []
  let shift = 0
  let previous = -1
  for (const edit of placed) {
    if (edit.line !== previous) {
      const afterLine = edit.line + shift
      lines.push({ line: edit.line + 1, before: lineText(before, starts, edit.line), after: afterLine < afterStarts.length ? lineText(after, afterStarts, afterLine) : '' })
      previous = edit.line
    }
    shift += breaks(edit.newText) - breaks(before.slice(edit.start, edit.end))
  }
  return lines
}
