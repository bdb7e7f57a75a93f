/** Longest provider text passed on to a caller (and so to the model), in characters. */
export const MAX_PROVIDER_TEXT = 300

/**
 * Text a remote API sent (an error body, a status message) made fit for an error message: every
 * secret replaced by `[redacted]`, whitespace runs (newlines included) collapsed to one space, and
 * cut at `max` characters with `…`. An endpoint that echoes the key it was given cannot show it to
 * the model, and a multi-line body cannot forge lines of its own.
 */
export function providerText(text: string, secrets: readonly (string | undefined)[] = [], max = MAX_PROVIDER_TEXT): string {
  let clean = text
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...new Set(secrets)].filter((value): value is string => !!value).sort((a, b) => b.length - a.length)) {
    clean = clean.split(secret).join('[redacted]')
  }
  clean = clean.replace(/\s+/g, ' ').trim()
  return clean.length <= max ? clean : `${sliceCodePoints(clean, max - 1)}…`
}

/** The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
export function sliceCodePoints(text: string, max: number): string {
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}
