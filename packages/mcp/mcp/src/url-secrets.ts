import { scrubReason } from 'dsh-core'

// The masking `dsh mcp get/list` shows rows with, and what dsh-mcp's own error texts (a fetch that
// failed on the row's URL) go through: one rule for what a URL may show.

/** A value that only names a variable (`${GITHUB_TOKEN}`): readable, it holds no secret itself. */
const VARIABLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/
export const MASK = '***'
/** `scheme://` + userinfo + `@`, the userinfo without `/`, `?`, `#`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i

/** Whether a value only names a variable (`${TOKEN}`), which is safe to show. */
export function readable(value: string): boolean {
  return VARIABLE_REFERENCE.test(value)
}

/**
 * `url` with its credentials masked, as written otherwise: the user and password of
 * `https://user:pass@host` and the values of query parameters whose names look secret by the
 * environment scrub's rule (`?api_key=…`, `&token=…`). Variable references stay readable.
 */
export function maskedUrl(url: string): string {
  const withoutUser = url.replace(USERINFO, (_, scheme: string, userinfo: string) => `${scheme}${userinfo.split(':').map((part) => (readable(part) ? part : MASK)).join(':')}@`)
  const query = withoutUser.indexOf('?')
  if (query < 0) return withoutUser
  const fragment = withoutUser.indexOf('#', query)
  const end = fragment < 0 ? withoutUser.length : fragment
  const parameters = withoutUser
    .slice(query + 1, end)
    .split('&')
    .map((parameter) => {
      const at = parameter.indexOf('=')
      if (at < 0) return parameter
      const value = parameter.slice(at + 1)
      return secretParameter(parameter.slice(0, at)) && !readable(value) ? `${parameter.slice(0, at)}=${MASK}` : parameter
    })
  return `${withoutUser.slice(0, query + 1)}${parameters.join('&')}${withoutUser.slice(end)}`
}

/** Every URL in a free text (a status detail, an error that repeats the URL it failed on), masked by `maskedUrl`. */
export function maskedUrlsIn(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s)"'<>]+/gi, (url) => maskedUrl(url))
}

function secretParameter(name: string): boolean {
  let decoded = name
  try {
    decoded = decodeURIComponent(name)
  } catch {
    // Not percent-encoding: judge the name as written.
  }
  return scrubReason(decoded) === 'secret-looking name'
}
