// Lengths the Agent Skills spec and our budgets speak of are characters (code points), never UTF-16
// units, and text is only ever cut where a reader would see a whole character (a grapheme cluster).

// Made on first use: creating it loads ICU's segmentation data, about 10 ms a command that never
// cuts a description (`dsh tools`) should not pay.
let graphemes: Intl.Segmenter | undefined
const graphemeSegmenter = () => (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }))

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
 * `text` if it has at most `max` characters; otherwise its longest start of whole grapheme clusters
 * that leaves room for `marker` within `max` characters, trailing spaces dropped, then `marker`.
 */
export function cutText(text: string, max: number, marker = '...'): string {
  if (text.length <= max || characterCount(text) <= max) return text
  const room = max - characterCount(marker)
  let kept = 0
  let characters = 0
  // Only a start of the text is segmented: each step of ICU's iterator costs time in proportion to
  // the whole input (cutting a 180,000-character body to 20,000 took 45 s, a step 2 ms). `room`
  // characters are at most twice as many UTF-16 units, and the margin keeps the last cluster looked
  // at whole: a cluster's boundaries depend only on the characters next to it.
  for (const { segment, index } of graphemeSegmenter().segment(text.slice(0, 2 * max + 64))) {
    characters += characterCount(segment)
    if (characters > room) break
    kept = index + segment.length
  }
  // A space left before the marker would read as a word that ended.
  return `${text.slice(0, kept).trimEnd()}${marker}`
}

/**
 * The last grapheme-cluster boundary at or before UTF-16 index `at` (never inside a surrogate pair
 * or a cluster). Only the few characters around `at` are segmented, so it costs the same in a
 * megabyte of text as in a line.
 */
export function clusterBoundary(text: string, at: number): number {
  if (at <= 0) return 0
  if (at >= text.length) return text.length
  const from = Math.max(0, at - 32)
  let boundary = from
  for (const { index } of graphemeSegmenter().segment(text.slice(from, at + 32))) {
    if (from + index > at) break
    boundary = from + index
  }
  return boundary
}
