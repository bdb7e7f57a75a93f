/**
 * Length limits on model-visible text, counted in UTF-16 code units (JavaScript string length).
 * None of them ever leaves half of a surrogate pair behind.
 */

const ELLIPSIS = '\u2026'

/** The longest prefix of `text` with at most `max` code units that does not end inside a surrogate pair. */
export function cutCodeUnits(text: string, max: number): string {
  if (text.length <= max) return text
  if (max <= 0) return ''
  const last = text.charCodeAt(max - 1)
  const splitsPair = last >= 0xd800 && last <= 0xdbff
  return text.slice(0, splitsPair ? max - 1 : max)
}

/** `text`, or a prefix of it ending in `…`, in at most `max` code units. */
export function ellipsize(text: string, max: number): string {
  if (text.length <= max) return text
  return `${cutCodeUnits(text, max - ELLIPSIS.length).trimEnd()}${ELLIPSIS}`
}

/**
 * Bounds the whole rendered text to `max` code units. When it does not fit (or `alreadyCut` says
 * the text lost its end earlier), the end is replaced by a notice so the model knows:
 * `\n… <label> truncated (limit <max> characters).` If even the notice does not fit, its prefix is returned.
 */
export function boundText(text: string, max: number, label: string, alreadyCut = false): string {
  if (text.length <= max && !alreadyCut) return text
  const notice = `\n${ELLIPSIS} ${label} truncated (limit ${max} characters).`
  if (notice.length >= max) return cutCodeUnits(notice, max)
  return cutCodeUnits(text, max - notice.length) + notice
}
