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

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
