// Lengths the model's budgets speak of are characters (code points), never UTF-16 units, and text is
// only ever cut where a reader would see a whole character (a grapheme cluster).

// Made on first use: creating it loads ICU's segmentation data, about 10 ms a command that never
// cuts a text (`dsh tools`) should not pay.
let graphemes: Intl.Segmenter | undefined

/** The one grapheme segmenter, made on first use. */
export const graphemeSegmenter = (): Intl.Segmenter => (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }))

/** Any half of a surrogate pair. */
const SURROGATE = /[\ud800-\udfff]/

/** The characters (code points) of `text`: a surrogate pair counts once. */
export function characterCount(text: string): number {
  // Most text has no character past U+FFFF; V8 answers this at once for a one-byte string, where the
  // loop below took 65 ms for 20 MB (an MCP result cut by capText).
  if (!SURROGATE.test(text)) return text.length
  let count = text.length
  for (let index = 0; index < text.length - 1; index++) {
    const unit = text.charCodeAt(index)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--
        index++
      }
    }
  }
  return count
}

/**
 * Whether `text` has at most `max` characters, looking at no more than `2 * max` UTF-16 units of it:
 * a 17 MB text is known not to fit from its length alone.
 */
export function fitsWithin(text: string, max: number): boolean {
  if (text.length <= max) return true
  if (text.length > 2 * max) return false
  return characterCount(text) <= max
}

/** The UTF-16 index just past the first `count` characters of `text` (its length when it has fewer). Looks at no more than that. */
export function characterEnd(text: string, count: number): number {
  let index = 0
  for (let seen = 0; seen < count && index < text.length; seen++) {
    const unit = text.charCodeAt(index)
    index += unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00 ? 2 : 1
  }
  return index
}

/**
 * The last grapheme-cluster boundary at or before UTF-16 index `at` (never inside a surrogate pair
 * or a cluster). Only the few characters around `at` are segmented, so it costs the same in a
 * megabyte of text as in a line.
 */
export function clusterBoundary(text: string, at: number): number {
  if (at <= 0) return 0
  if (at >= text.length) return text.length
  const from = pairedStart(text, Math.max(0, at - 32))
  let boundary = from
  for (const { index } of graphemeSegmenter().segment(text.slice(from, at + 32))) {
    if (from + index > at) break
    boundary = from + index
  }
  return boundary
}

/** Whether a regional indicator (half of a flag, U+1F1E6–U+1F1FF) starts at UTF-16 index `index`. */
function regionalAt(text: string, index: number): boolean {
  if (index < 0 || text.charCodeAt(index) !== 0xd83c) return false
  const low = text.charCodeAt(index + 1)
  return low >= 0xdde6 && low <= 0xddff
}

/**
 * `from`, moved back to the start of a flag when it falls inside a run of regional indicators:
 * they pair from the run's start, and a window opened at the second half of a flag paired every
 * flag in it wrongly (a cut between 🇫 and 🇷). Walks back over the run, once per cut.
 */
function pairedStart(text: string, from: number): number {
  const start = regionalAt(text, from - 1) ? from - 1 : from
  if (!regionalAt(text, start - 2)) return start
  let run = 0
  while (regionalAt(text, start - 2 * (run + 1))) run++
  return run % 2 === 1 ? start - 2 : start
}

/**
 * The longest prefix of `text` with at most `max` characters (code points) that ends at a grapheme
 * boundary: never half an emoji, never a letter without its combining accent.
 */
export function cutCharacters(text: string, max: number): string {
  if (fitsWithin(text, max)) return text
  return text.slice(0, clusterBoundary(text, characterEnd(text, Math.max(0, max))))
}
