import { isUtf8 } from 'node:buffer'
import { WebError } from 'dsh-web'

/**
 * Parses and checks a URL the model gave (or a redirect target): absolute, http(s), no
 * credentials, no IPv6 zone id, at most `maxLength` characters. WHATWG parsing normalises every
 * numeric host spelling (decimal, hex, octal, short, trailing dot) to dotted IPv4 first.
 */
export function checkedUrl(input: string, maxLength: number): URL {
  if (input.length > maxLength) throw new WebError(`URL exceeds the maximum length of ${maxLength}`, 'WEB_INVALID_URL')
  // WHATWG has no zone ids; say why instead of a bare parse failure.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\[[^\]]*%/i.test(input)) throw new WebError('IPv6 zone ids (fe80::1%eth0) are not allowed in URLs', 'WEB_BLOCKED_URL')
  let url: URL
  try {
    url = new URL(input)
  } catch (error) {
    throw new WebError(`invalid URL: ${input}`, 'WEB_INVALID_URL', { cause: error })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebError(`only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}:`, 'WEB_INVALID_URL')
  }
  if (url.username || url.password) throw new WebError('credentials in URLs are not allowed', 'WEB_BLOCKED_URL')
  return url
}

/**
 * Whether a redirect from `from` to `to` may be followed: the same origin, or the same host
 * upgraded from http to https on default ports (the guard checks the new hop either way).
 */
export function isFollowable(from: URL, to: URL): boolean {
  if (from.origin === to.origin) return true
  return from.protocol === 'http:' && to.protocol === 'https:' && from.hostname === to.hostname && from.port === '' && to.port === ''
}

/** How much of a refused redirect target its error quotes: the server chose it, and it may be huge. */
const QUOTED_TARGET_CHARS = 200

/**
 * A redirect target checked as a URL the model gave is (http(s), no credentials, not too long), its
 * refusal saying that it is the server's redirect, not the caller's URL, that was refused: a
 * redirect to `file:` or `javascript:` read `only http and https URLs can be fetched, not file:`
 * under WEB_INVALID_URL, as if the model had asked for it. A URL rule it breaks is
 * WEB_REDIRECT_BLOCKED; a security refusal (credentials, a zone id) keeps WEB_BLOCKED_URL.
 */
export function redirectUrl(target: URL, maxUrlLength: number): URL {
  try {
    return checkedUrl(target.href, maxUrlLength)
  } catch (error) {
    if (!(error instanceof WebError)) throw error
    // Credentials in it are not repeated to the model.
    const quoted = new URL(target.href)
    if (quoted.username || quoted.password) [quoted.username, quoted.password] = ['***', '']
    const shown = quoted.href.length > QUOTED_TARGET_CHARS ? `${quoted.href.slice(0, QUOTED_TARGET_CHARS)}…` : quoted.href
    throw new WebError(`the server redirected to ${shown}, which was not followed: ${error.message}`, error.code === 'WEB_INVALID_URL' ? 'WEB_REDIRECT_BLOCKED' : error.code, { cause: error })
  }
}

/**
 * A Location header's value as the text of the URL it names. undici hands a header's bytes over one
 * character per byte (Latin-1); a server that writes a non-ASCII path raw writes it in UTF-8, and
 * browsers (Chrome, Firefox) read a Location's bytes so. Read as Latin-1 and then percent-encoded,
 * `/café` became `/caf%C3%83%C2%A9`, another resource (a 404 for the model). Bytes that are not
 * UTF-8 stay as they came.
 */
export function locationText(value: string): string {
  if (!HIGH_BYTE.test(value) || NOT_A_BYTE.test(value)) return value
  const bytes = Buffer.from(value, 'latin1')
  return isUtf8(bytes) ? bytes.toString('utf8') : value
}

const HIGH_BYTE = /[\u0080-\u00ff]/
const NOT_A_BYTE = /[^\u0000-\u00ff]/

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
