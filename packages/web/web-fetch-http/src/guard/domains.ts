import { isIP } from 'node:net'
import { WebError } from 'dsh-web'
import { z } from 'zod'
import { unbracket } from './guard.ts'

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/

/**
 * One domain rule as configured: an exact host (`example.com`) or every subdomain of one
 * (`*.example.com`, which does not match `example.com` itself). Lower-cased, a trailing dot dropped.
 */
export const DomainRule = z
  .string()
  .transform((rule) => rule.trim().toLowerCase().replace(/\.$/, ''))
  .refine(isRule, { error: (issue) => `${JSON.stringify(issue.input)} is not a host name or a *.host pattern (like example.com or *.example.com)` })

function isRule(rule: string): boolean {
  const host = rule.startsWith('*.') ? rule.slice(2) : rule
  // A URL hostname is ASCII (IDNs arrive as punycode, xn--…), so a rule for one must be too.
  return host.split('.').every((label) => LABEL.test(label)) || (!rule.startsWith('*.') && isIP(host) !== 0)
}

/**
 * Operator domain rules, checked on every hop before DNS: a host matching a `deniedDomains` rule
 * is refused; with `allowedDomains` set, a host matching none of them is refused. Deny wins.
 */
export class DomainRules {
  constructor(
    private readonly allowed: readonly string[],
    private readonly denied: readonly string[],
  ) {}

  /** Throws `WEB_BLOCKED_URL` naming the rule (or the allow list) that refuses `url`'s host. */
  check(url: URL): void {
    if (!this.allowed.length && !this.denied.length) return
    const host = unbracket(url.hostname).toLowerCase().replace(/\.$/, '')
    const denying = this.denied.find((rule) => matches(rule, host))
    if (denying) throw refusal(`"${host}" matches the deniedDomains rule "${denying}"`)
    if (this.allowed.length && !this.allowed.some((rule) => matches(rule, host))) {
      throw refusal(`"${host}" matches no allowedDomains rule (${this.allowed.join(', ')})`)
    }
  }
}

function matches(rule: string, host: string): boolean {
  return rule.startsWith('*.') ? host.endsWith(rule.slice(1)) : host === rule
}

function refusal(reason: string): WebError {
  return new WebError(`web fetch refused: ${reason} on web-fetch-http`, 'WEB_BLOCKED_URL')
}
