import { characterCount, clusterBoundary } from './text.ts'

/**
 * What a cut text was and where the rest of it is, for the one note every cut text for the model
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

/**
 * `text` as the model is given it: whole up to `max` characters (code points); past that, cut at
 * the last line end that leaves room for the note (at a grapheme boundary when one line alone is
 * longer, never inside a character a reader sees as one), and the note says how many characters and
 * lines were shown, the line the rest starts at, and where it is. Linear in the text: no grapheme
 * segmenter over the whole of it (its iterator costs time in proportion to the whole input at every
 * step: seconds for 100,000 characters).
 */
export function capText(text: string, max: number, cut: CutNote): string {
  if (text.length <= max) return text
  const totalChars = characterCount(text)
  if (totalChars <= max) return text
  const totalLines = lineCount(text)
  // The note's own length depends on the numbers in it; the longest they can be is used for room.
  const room = max - characterCount(cutNote(cut, max, totalChars, totalLines, totalChars, totalLines))
  if (room <= 0) return cutNote(cut, max, 0, 0, totalChars, totalLines).trimStart().slice(0, max)
  // `room` UTF-16 units are at most `room` characters.
  const start = text.slice(0, clusterBoundary(text, room))
  const lineEnd = start.lastIndexOf('\n')
  const atLineEnd = lineEnd > 0
  const shown = (atLineEnd ? start.slice(0, lineEnd) : start).trimEnd()
  // Cut inside a line (one line longer than the room): that line counts as not shown, the rest starts there.
  const whole = lineCount(shown) - (atLineEnd ? 0 : 1)
  return `${shown}${cutNote(cut, max, characterCount(shown), whole, totalChars, totalLines)}`
}

function cutNote(cut: CutNote, max: number, chars: number, lines: number, totalChars: number, totalLines: number): string {
  return `\n\n[Cut at ${cut.setting} ${max}: ${chars} of ${totalChars} characters (${lines} of ${totalLines} lines) of the ${cut.what} shown; the rest, from line ${lines + 1}, ${cut.rest}.]`
}

/** What the cut note needs of a loaded skill: its body, and where the whole of it can be read. */
export interface CappedSource {
  readonly content: string
  readonly provider: string
  readonly path?: string
}

/** A skill's body as the model is given it (`loadMaxChars`): the rest is in its file, or with its provider. */
export function capSkillContent(skill: CappedSource, max: number): string {
  const rest = skill.path ? `is in ${skill.path}; read it from there when the task needs it` : `is not shown (the "${skill.provider}" skill provider holds it)`
  return capText(skill.content, max, { what: "skill's instructions", setting: 'loadMaxChars', rest })
}

function lineCount(text: string): number {
  let lines = 1
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++
  return lines
}
