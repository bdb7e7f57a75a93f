import { characterCount, fitsWithin, graphemeSegmenter } from 'dsh-core'

// Lengths the Agent Skills spec and our budgets speak of are characters (code points), never UTF-16
// units, and text is only ever cut where a reader would see a whole character (a grapheme cluster)
// (dsh-core's characters.ts counts them and finds the boundaries).

/**
 * `text` if it has at most `max` characters; otherwise its longest start of whole grapheme clusters
 * that leaves room for `marker` within `max` characters, trailing spaces dropped, then `marker`.
 */
export function cutText(text: string, max: number, marker = '...'): string {
  if (fitsWithin(text, max)) return text
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
