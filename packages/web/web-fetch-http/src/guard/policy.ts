import { isIP } from 'node:net'
import { lazy } from 'dsh-core'
import { ipaddr, type IPv4, type IPv6 } from './ipaddr.ts'
import { embeddedIPv4, FORM_NAME, parseAddress, type EmbeddingForm } from './embedded.ts'
import { METADATA_ENDPOINTS } from './metadata.ts'

type Address = IPv4 | IPv6
type Cidr = [Address, number]

export interface PolicyConfig {
  readonly allowPrivateNetwork: boolean
  readonly allowedCidrs: readonly string[]
  readonly deniedCidrs: readonly string[]
}

export type Verdict = { readonly allowed: true } | Refusal
export type Refusal = { readonly allowed: false; readonly category: string; readonly final?: true }

const ALLOWED: Verdict = { allowed: true }

const VERDICT_CACHE_SIZE = 4096

/** Canonical text (ipaddr.js `toString()`) of every metadata address; parsed on first use, as LAYOUTS (embedded.ts). */
const METADATA_ADDRESSES = lazy(() => new Set(METADATA_ENDPOINTS.map(({ address }) => ipaddr().parse(address).toString())))

/** Ranges ipaddr.js calls unicast that still must not be reached. */
const EXTRA_DENIED = lazy((): readonly (readonly [Cidr, string])[] => [[ipaddr().parseCIDR('::/96'), FORM_NAME.compatible]])

/** How a refusal names each ipaddr.js range, for the message. */
const CATEGORY: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  deprecatedSiteLocal: 'a site-local IPv6 address',
  rfc6052: `${FORM_NAME.nat64} (it embeds IPv4)`,
  rfc6145: `${FORM_NAME.translated} (it embeds IPv4)`,
  '6to4': `${FORM_NAME['6to4']} (it embeds IPv4)`,
  teredo: `${FORM_NAME.teredo} (it embeds IPv4)`,
}

/**
 * Decides whether an address may be connected to. Only global unicast is reachable by default.
 * IPv4-mapped IPv6 is judged as the IPv4 address it is. Every other form that carries an IPv4
 * address (NAT64, 6to4, Teredo, compatible, translated) must pass twice: as itself, and as each
 * IPv4 address it carries, so no opt-in for an IPv6 range reopens a metadata, denied or private
 * IPv4 address inside it.
 */
export class NetworkPolicy {
  private readonly allowed: readonly Cidr[]
  private readonly denied: readonly Cidr[]
  /** Verdicts by address text: the policy never changes, and parsing costs more than the lookup. */
  private readonly verdicts = new Map<string, Verdict>()

  constructor(private readonly config: PolicyConfig) {
    this.allowed = config.allowedCidrs.map(parseRange)
    this.denied = config.deniedCidrs.map(parseRange)
  }

  check(text: string): Verdict {
    let verdict = this.verdicts.get(text)
    if (!verdict) {
      verdict = this.decide(text)
      if (this.verdicts.size >= VERDICT_CACHE_SIZE) this.verdicts.delete(this.verdicts.keys().next().value!)
      this.verdicts.set(text, verdict)
    }
    return verdict
  }

  private decide(text: string): Verdict {
    let address: Address
    try {
      const bare = stripZone(text)
      if (!isIP(bare)) throw new Error('not an address')
      address = parseAddress(bare)
    } catch {
      return { allowed: false, category: 'not an IP address' }
    }
    if (address.kind() === 'ipv4') return this.judge(address)
    const ipv6 = address as IPv6
    if (ipv6.isIPv4MappedAddress()) return this.judge(ipv6.toIPv4Address())
    // Refusals of the IPv4 addresses it carries; a metadata one (final) wins over the form's own verdict.
    const carried = embeddedIPv4(ipv6).flatMap(({ form, ipv4 }) => {
      const verdict = this.judge(ipv4)
      return verdict.allowed ? [] : [carriedRefusal(form, verdict)]
    })
    const own = this.judge(ipv6)
    return carried.find((refusal) => refusal.final) ?? (own.allowed ? undefined : own) ?? carried[0] ?? ALLOWED
  }

  /** One address on its own: metadata, then deniedCidrs, then its range and the opt-ins. */
  private judge(address: Address): Verdict {
    // toString() is canonical (lower-case, zeros compressed as the set spells them) for both families.
    if (METADATA_ADDRESSES().has(address.toString())) return { allowed: false, category: 'a cloud metadata address', final: true }
    if (this.denied.some((range) => inRange(address, range))) return { allowed: false, category: 'an address in deniedCidrs' }
    const range = address.range()
    const extra = range === 'unicast' ? EXTRA_DENIED().find(([cidr]) => inRange(address, cidr)) : undefined
    if (range === 'unicast' && !extra) return ALLOWED
    if (this.config.allowPrivateNetwork || this.allowed.some((allowedRange) => inRange(address, allowedRange))) return ALLOWED
    return { allowed: false, category: extra ? extra[1] : (CATEGORY[range] ?? `a non-public address (${range})`) }
  }
}

function carriedRefusal(form: EmbeddingForm, { category, final }: Refusal): Refusal {
  return { allowed: false, category: `${FORM_NAME[form]} that carries ${category}`, ...(final ? { final } : {}) }
}

function parseRange(text: string): Cidr {
  if (ipaddr().isValidCIDR(text)) return ipaddr().parseCIDR(text)
  const address = parseAddress(text)
  return [address, address.kind() === 'ipv4' ? 32 : 128]
}

function inRange(address: Address, [base, bits]: Cidr): boolean {
  return address.kind() === base.kind() && address.match(base, bits)
}

function stripZone(text: string): string {
  const percent = text.indexOf('%')
  return percent < 0 ? text : text.slice(0, percent)
}
