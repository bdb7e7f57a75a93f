import { characterCount, characterEnd, clusterBoundary, fitsWithin } from './characters.ts'

/**
 * What a cut text was and where the rest of it is, for the note every cut text of MCP and skills
 * ends with (a skill's body, an MCP result, error, description or server instructions).
 */
export interface CutNote {
  /** What was cut, named in the note ("… of the result shown"): `result`, `skill's instructions`. */
  readonly what: string
  /** The setting that bounds it, named with its value: `loadMaxChars`, `maxResultChars`. */
  readonly setting: string
  /** Where the rest is, ending "the rest, from line N, …": `is in the tool's value`, `is not kept`. */
  readonly rest: string
}

export interface CapOptions {
  /**
   * Kept whole after the note however long the text (the head-and-tail mode), and counted in `max`:
   * what says how far to trust the text above it (a server still indexing, problems that may be
   * missing), which a cut at the end would drop first.
   */
  readonly tail?: string
  /** The text lost its end before it came here (a provider's or a server's own cut): noted though it fits. */
  readonly cutBefore?: boolean
}

/** A cut line is left out whole (the cut at its start) unless that drops more than this share of the room. */
const LINE_SLACK = 1 / 8

/**
 * `text` as the model is given it: whole (then `tail`) up to `max` characters (code points); past
 * that, or when `cutBefore`, its start, the note, then `tail`, in at most `max` characters. The
 * start ends at a line end when one is near the cut, else at a grapheme boundary (never inside a
 * character a reader sees as one), trailing space dropped. The note is a surface's own text, or the
 * one wording of a `CutNote`: how many characters and lines were shown, of how many lines, the line
 * the rest starts at, and where it is.
 *
 * Looks at no more of the text than it shows, but for one pass of `indexOf('\n')` for a `CutNote`'s
 * line total: counting the characters of 17 MB of emoji lines took 77–123 ms, the lines 4–14 ms. No
 * grapheme segmenter over the whole of it either (its iterator costs time in proportion to the whole
 * input at every step: seconds for 100,000 characters).
 */
export function capText(text: string, max: number, note: CutNote | string, options: CapOptions = {}): string {
  const tail = options.tail ?? ''
  if (!options.cutBefore && text.length + tail.length <= max) return text + tail
  if (!options.cutBefore && fitsWithin(tail, max) && fitsWithin(text, max - characterCount(tail))) return text + tail
  const totalLines = typeof note === 'string' ? 0 : lineCount(text)
  const noteFor = (chars: number, lines: number): string => (typeof note === 'string' ? note : cutNote(note, max, chars, lines, totalLines))
  if (options.cutBefore) {
    // Cut before, and whole here with the note.
    const whole = text.trimEnd()
    if (fitsWithin(whole, max)) {
      const noted = noteFor(characterCount(whole), lineCount(whole)) + tail
      if (fitsWithin(whole, max - characterCount(noted))) return whole + noted
    }
  }
  // The note's own length depends on the numbers in it; the longest they can be is used for room.
  const room = max - characterCount(noteFor(max, totalLines)) - characterCount(tail)
  if (room <= 0) {
    const alone = (noteFor(0, 0) + tail).trimStart()
    return alone.slice(0, clusterBoundary(alone, characterEnd(alone, max)))
  }
  const end = clusterBoundary(text, characterEnd(text, room))
  const start = text.slice(0, end)
  const lineEnd = start.lastIndexOf('\n')
  const atLineEnd = lineEnd > 0 && end - lineEnd <= end * LINE_SLACK
  const shown = (atLineEnd ? start.slice(0, lineEnd) : start).trimEnd()
  // Cut inside a line: that line counts as not shown, the rest starts there.
  const whole = lineCount(shown) - (atLineEnd ? 0 : 1)
  return `${shown}${noteFor(characterCount(shown), whole)}${tail}`
}

function cutNote(cut: CutNote, max: number, chars: number, lines: number, totalLines: number): string {
  return `\n\n[Cut at ${cut.setting} ${max}: ${chars} characters (${lines} of ${totalLines} lines) of the ${cut.what} shown; the rest, from line ${lines + 1}, ${cut.rest}.]`
}

function lineCount(text: string): number {
  let lines = 1
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++
  return lines
}
