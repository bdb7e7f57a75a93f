// Lengths the Agent Skills spec and our budgets speak of are characters (code points), never UTF-16
// units, and text is only ever cut where a reader would see a whole character (a grapheme cluster).

// Made on first use: creating it loads ICU's segmentation data, about 10 ms a command that never
// cuts a description (`dsh tools`) should not pay.
let graphemes: Intl.Segmenter | undefined
const graphemeSegmenter = () => (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }))

/** The characters (code points) of `text`: a surrogate pair counts once. */
export function characterCount(text: string): number {
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
  for (const { segment, index } of graphemeSegmenter().segment(text)) {
    characters += characterCount(segment)
    if (characters > room) break
    kept = index + segment.length
  }
  // A space left before the marker would read as a word that ended.
  return `${text.slice(0, kept).trimEnd()}${marker}`
}
