import { isRecord, scrubReason } from 'dsh-core'

/** A value that only names a variable (`${GITHUB_TOKEN}`): readable, it holds no secret itself. */
const VARIABLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/
const MASK = '***'
/** `scheme://` + userinfo + `@`, the userinfo without `/`, `?`, `#`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i

function readable(value: string): boolean {
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

/** A row as `dsh mcp get` shows it: values of `env` and `headers` masked, and the URL's credentials. */
export function maskedConfig(config: Record<string, unknown>): Record<string, unknown> {
  const hide = (record: unknown) => Object.fromEntries(Object.entries(isRecord(record) ? record : {}).map(([key, value]) => [key, typeof value === 'string' && readable(value) ? value : MASK]))
  return {
    ...config,
    ...(config.env ? { env: hide(config.env) } : {}),
    ...(config.headers ? { headers: hide(config.headers) } : {}),
    ...(typeof config.url === 'string' ? { url: maskedUrl(config.url) } : {}),
  }
}

/**
 * What of a row holds a literal secret (not a `${VAR}` reference): `env` and header values whose
 * names look secret by the scrub's rule, and credentials in the URL. Described for a warning.
 */
export function literalSecrets(config: Record<string, unknown>): string[] {
  const found: string[] = []
  const named = (record: unknown, flag: string) => {
    for (const [name, value] of Object.entries(isRecord(record) ? record : {})) {
      if (typeof value === 'string' && !readable(value) && scrubReason(name, value) !== undefined) found.push(`${flag} ${name}`)
    }
  }
  named(config.env, '--env')
  named(config.headers, '--header')
  if (typeof config.url === 'string' && maskedUrl(config.url) !== config.url) found.push('the URL')
  return found
}
