/**
 * Length limits on model-visible text. `boundText`, `boundLines` and `ellipsize` count characters
 * (code points), as every cut text for the model does (dsh-core's `capText` and characters.ts), and
 * cut only between characters a reader sees as one (grapheme clusters).
 */

import { capText, characterCount, cutCharacters, fitsWithin } from 'dsh-core'

const ELLIPSIS = '\u2026'

// A hover's contents are cut with it (query.ts): counting UTF-16 units, 40 emoji under a 60-character
// limit were cut to 30 and said to be truncated.
export { cutCharacters } from 'dsh-core'

/**
 * `text`, or a prefix of it ending in `…`, in at most `max` characters (code points). The prefix
 * ends at a grapheme boundary: counting UTF-16 units, an emoji-heavy name was cut at half its limit
 * and a cut could part a character (a skin tone from its hand, a family emoji after its first person).
 */
export function ellipsize(text: string, max: number): string {
  if (fitsWithin(text, max)) return text
  if (max < ELLIPSIS.length) return ''
  return `${cutCharacters(text, max - ELLIPSIS.length).trimEnd()}${ELLIPSIS}`
}

/**
 * Bounds the whole rendered text to `max` characters with dsh-core's `capText` (code points, cut at
 * a line end or a grapheme boundary). When it does not fit (or `alreadyCut` says the text lost its
 * end earlier), the end is replaced by a notice so the model knows,
 * `\n… <label> truncated (limit <max> characters).`, and `tail` follows it whole: the notes that say
 * how far to trust the text (a server still indexing) are what a cut at the end dropped first. If
 * even the notice does not fit, its start is returned.
 */
export function boundText(text: string, max: number, label: string, options: { readonly alreadyCut?: boolean; readonly tail?: string } = {}): string {
  return capText(text, max, `\n${ELLIPSIS} ${label} truncated (limit ${max} characters).`, { cutBefore: options.alreadyCut === true, tail: options.tail ?? '' })
}

/** A rendered answer in three parts, for `boundLines`. */
export interface LinedAnswer {
  /** What the answer is (its counts): always kept. */
  readonly head: readonly string[]
  /** The listing: left out from its end, whole lines, when the answer does not fit. */
  readonly body: readonly string[]
  /** Where the body's lines left out are counted (`dropped` by the bound; 0 when it fit): a line, or none. */
  readonly omitted: (dropped: number) => string | undefined
  /** Notes that say how far to trust the body (servers that did not answer, indexing, errors a write left): always kept. */
  readonly tail: readonly string[]
}

/**
 * The answer in at most `max` characters (code points): its head, as many of the body's lines as
 * fit whole, the omission line counting the rest, and its tail. Cutting the joined text at `max`
 * (boundText) lost the tail — an applied rename's errors, a search's unanswered servers — and split
 * a line. Only when head, omission and tail alone do not fit is the whole cut as boundText cuts it.
 * (Counting UTF-16 units, it left out half the lines of an answer of emoji-named symbols that fit.)
 */
export function boundLines(answer: LinedAnswer, max: number, label: string): string {
  const { head, body, tail, omitted } = answer
  const assemble = (kept: number): string => {
    const omission = omitted(body.length - kept)
    return [...head, ...body.slice(0, kept), ...(omission === undefined ? [] : [omission]), ...tail].join('\n')
  }
  const whole = assemble(body.length)
  if (fitsWithin(whole, max)) return whole
  // A line's characters, counted no further than `2 * max` units: one longer never fits (its units
  // are still more than `max`), and a 20 MB line is not walked.
  const chars = (line: string): number => (line.length > 2 * max ? line.length : characterCount(line))
  // The joined length with `kept` body lines, without joining: each line adds itself and a break.
  const fixed = [...head, ...tail].reduce((sum, line) => sum + chars(line) + 1, 0)
  const lengthWith = (kept: number, bodyChars: number): number => {
    const omission = omitted(body.length - kept)
    return fixed + bodyChars + (omission === undefined ? 0 : chars(omission) + 1) - 1
  }
  let best = lengthWith(0, 0) <= max ? 0 : -1
  let bodyChars = 0
  for (let kept = 1; kept < body.length; kept++) {
    bodyChars += chars(body[kept - 1]!) + 1
    if (bodyChars + fixed > max) break
    if (lengthWith(kept, bodyChars) <= max) best = kept
  }
  return best < 0 ? boundText(assemble(0), max, label) : assemble(best)
}
