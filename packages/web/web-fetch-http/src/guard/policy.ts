import ipaddr from 'ipaddr.js'

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Cidr = [Address, number]

export interface PolicyConfig {
  readonly allowPrivateNetwork: boolean
  readonly allowedCidrs: readonly string[]
  readonly deniedCidrs: readonly string[]
}

export type Verdict = { readonly allowed: true } | { readonly allowed: false; readonly category: string; readonly final?: true }

const VERDICT_CACHE_SIZE = 4096

/** Cloud metadata endpoints: refused even when private networks are allowed. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', 'fd00:ec2::254', 'fd00:ec2::23'])

/** Ranges ipaddr.js calls unicast that still must not be reached. */
const EXTRA_DENIED: readonly (readonly [Cidr, string])[] = [[ipaddr.parseCIDR('::/96'), 'an IPv4-compatible IPv6 address']]

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
  rfc6052: 'a NAT64 address (it embeds IPv4)',
  rfc6145: 'an IPv4-translated address (it embeds IPv4)',
  '6to4': 'a 6to4 address (it embeds IPv4)',
  teredo: 'a Teredo address (it embeds IPv4)',
}

/**
 * Decides whether an address may be connected to. Only global unicast is reachable by default;
 * IPv4-mapped IPv6 is judged as the IPv4 address it carries, every other embedding form is refused.
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
      address = ipaddr.parse(stripZone(text))
    } catch {
      return { allowed: false, category: 'not an IP address' }
    }
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address()
    // toString() is canonical (lower-case, zeros compressed as the set spells them) for both families.
    if (METADATA_ADDRESSES.has(address.toString())) {
      return { allowed: false, category: 'a cloud metadata address', final: true }
    }
    if (this.denied.some((range) => inRange(address, range))) return { allowed: false, category: 'an address in deniedCidrs' }
    const range = address.range()
    const extra = range === 'unicast' ? EXTRA_DENIED.find(([cidr]) => inRange(address, cidr)) : undefined
    if (range === 'unicast' && !extra) return { allowed: true }
    if (this.config.allowPrivateNetwork || this.allowed.some((allowedRange) => inRange(address, allowedRange))) return { allowed: true }
    return { allowed: false, category: extra ? extra[1] : (CATEGORY[range] ?? `a non-public address (${range})`) }
  }
}

function parseRange(text: string): Cidr {
  if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text)
  const address = ipaddr.parse(text)
  return [address, address.kind() === 'ipv4' ? 32 : 128]
}

function inRange(address: Address, [base, bits]: Cidr): boolean {
  return address.kind() === base.kind() && address.match(base, bits)
}

function stripZone(text: string): string {
  const percent = text.indexOf('%')
  return percent < 0 ? text : text.slice(0, percent)
}
