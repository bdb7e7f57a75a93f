import { isRecord, scrubReason } from 'dsh-core'
import { MASK, maskedUrl, maskedUrlsIn, readable } from 'dsh-mcp'

// URL masking is dsh-mcp's (its error texts use it too); re-exported for this command's callers.
export { maskedUrl, maskedUrlsIn }

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
