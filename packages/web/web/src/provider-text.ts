import { BIDI_CONTROL_CLASS, cutCharacters, fitsWithin } from 'dsh-core'

/** Longest provider text passed on to a caller (and so to the model), in characters. */
export const MAX_PROVIDER_TEXT = 300

/**
 * Text a remote API sent (an error body, a status message) made fit for an error message: every
 * secret replaced by `[redacted]` (`redact`: in any of the forms an API may echo it), whitespace
 * runs (newlines included) collapsed to one space, bidi controls dropped, and cut at `max`
 * characters with `…`. An endpoint that echoes the key it was given cannot show it to the model,
 * and a multi-line body cannot forge lines of its own.
 */
export function providerText(text: string, secrets: readonly (string | undefined)[] = [], max = MAX_PROVIDER_TEXT): string {
  const clean = stripBidi(redact(text, secrets)).replace(/\s+/g, ' ').trim()
  return fitsWithin(clean, max) ? clean : `${cutCharacters(clean, max - 1)}…`
}

/**
 * `text` with every secret replaced by `[redacted]`, whatever form an API echoes it in: as given,
 * in another case, URL-encoded, base64 (standard or URL-safe, padded or not), and with whitespace
 * (a line break, say) anywhere inside it. Longest first, so a secret that contains another is
 * replaced whole.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let clean = text
  for (const pattern of secretPatterns(secrets)) clean = clean.replace(pattern, '[redacted]')
  return clean
}

/** Right-to-left and other bidi overrides, embeddings, isolates and marks: they reorder what the model reads (dsh-core's one list). */
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL_CLASS, 'g')

export function stripBidi(text: string): string {
  return text.replace(BIDI_CONTROLS, '')
}

const patternCache = new Map<string, RegExp>()

function secretPatterns(secrets: readonly (string | undefined)[]): RegExp[] {
  const forms = new Set<string>()
  for (const secret of secrets) {
    if (!secret) continue
    const base64 = Buffer.from(secret, 'utf8').toString('base64')
    for (const form of [secret, encodeURIComponent(secret), base64, base64.replace(/=+$/, ''), Buffer.from(secret, 'utf8').toString('base64url')]) forms.add(form)
  }
  return [...forms]
    .sort((a, b) => b.length - a.length)
    .map((form) => {
      let pattern = patternCache.get(form)
      if (!pattern) {
        // Each character, with any whitespace allowed before the next one; case-insensitive.
        pattern = new RegExp([...form].map((char) => char.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')).join('\\s*'), 'giu')
        if (patternCache.size > 64) patternCache.clear()
        patternCache.set(form, pattern)
      }
      pattern.lastIndex = 0
      return pattern
    })
}

/**
 * `text`, or its first `max` characters (code points) cut between two a reader sees: dsh-core's
 * `cutCharacters`. It sliced `max` UTF-16 units, which counted an emoji twice and parted an accent
 * from its letter.
 */
export const sliceCodePoints = cutCharacters
