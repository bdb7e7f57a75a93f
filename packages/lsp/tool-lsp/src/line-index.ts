import type { ContainedText } from 'dsh-core'

// Where each line of a text starts, for texts asked about again and again: a kept text comes back
// as the same object while its file is unchanged (dsh-lsp's ProvenTextCache), so the line text of
// a warm call looks its lines up instead of scanning the file to them on every call.

/** Line starts of texts seen more than once, released with the text. */
const indexes = new WeakMap<ContainedText, Uint32Array>()
/** Texts seen once: a text read for one call only is scanned to its lines, never indexed whole. */
const seenOnce = new WeakSet<ContainedText>()

/** The line starts of `text` from its second use on; undefined on its first (scan it instead). */
export function lineIndexOf(text: ContainedText): Uint32Array | undefined {
  const known = indexes.get(text)
  if (known) return known
  if (!seenOnce.has(text)) {
    seenOnce.add(text)
    return undefined
  }
  const index = lineStarts(text.text)
  indexes.set(text, index)
  return index
}

/** Offsets where each line begins, for LSP's terminators (`\r\n`, `\r`, `\n`), as LineCollector splits. */
export function lineStarts(text: string): Uint32Array {
  const starts = [0]
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code === 10) starts.push(at + 1)
    else if (code === 13) {
      if (text.charCodeAt(at + 1) === 10) at++
      starts.push(at + 1)
    }
  }
  return Uint32Array.from(starts)
}

/** Zero-based line `line` of `text` without its terminator; undefined past the last line. */
export function lineAt(text: string, starts: Uint32Array, line: number): string | undefined {
  if (line >= starts.length) return undefined
  const start = starts[line]!
  if (line + 1 === starts.length) return text.slice(start)
  let end = starts[line + 1]! - 1
  if (end > start && text.charCodeAt(end) === 10 && text.charCodeAt(end - 1) === 13) end--
  return text.slice(start, end)
}
