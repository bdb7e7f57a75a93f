import { characterCount, clusterBoundary } from './text.ts'

/** What the cut note needs of a loaded skill: its body, and where the whole of it can be read. */
export interface CappedSource {
  readonly content: string
  readonly provider: string
  readonly path?: string
}

/**
 * A body as the model is given it: whole up to `max` characters; past that, cut at the last line end
 * that leaves room for a note (a grapheme boundary when one line alone is longer), and the note says
 * how many lines were shown, the line the rest starts at, and the file to read it from. A body the
 * size of `maxSkillFileBytes` would otherwise fill the model's context at one load.
 */
export function capSkillContent(skill: CappedSource, max: number): string {
  const { content } = skill
  if (content.length <= max || characterCount(content) <= max) return content
  const total = lineCount(content)
  // The note's own length depends on the numbers in it; the longest they can be is used for room.
  const room = max - characterCount(cutNote(skill, max, total, total))
  // `room` UTF-16 units are at most `room` characters. No grapheme segmenter over the body: its
  // iterator costs time in proportion to the whole input at every step (seconds for 100,000).
  const start = content.slice(0, clusterBoundary(content, Math.max(room, 1)))
  const lineEnd = start.lastIndexOf('\n')
  const atLineEnd = lineEnd > 0
  const shown = (atLineEnd ? start.slice(0, lineEnd) : start).trimEnd()
  // Cut inside a line (one line longer than the room): that line counts as not shown, the rest starts there.
  const whole = lineCount(shown) - (atLineEnd ? 0 : 1)
  return `${shown}${cutNote(skill, max, whole, total)}`
}

function cutNote(skill: CappedSource, max: number, shown: number, total: number): string {
  const where = skill.path ? `is in ${skill.path}; read it from there when the task needs it` : `is not shown (the "${skill.provider}" skill provider holds it)`
  return `\n\n[The instructions are cut here (loadMaxChars ${max}): ${shown} of ${total} lines are shown. The rest, from line ${shown + 1} of the instructions on, ${where}.]`
}

function lineCount(text: string): number {
  let lines = 1
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++
  return lines
}
