import { lazy } from 'dsh-core'
import { ipaddr, type IPv4, type IPv6 } from './ipaddr.ts'

/** The IPv6 forms that carry an IPv4 address (IPv4-mapped is not here: it *is* its IPv4 address). */
export type EmbeddingForm = 'nat64' | '6to4' | 'teredo' | 'compatible' | 'translated'

export interface EmbeddedIPv4 {
  readonly form: EmbeddingForm
  readonly ipv4: IPv4
}

interface Layout {
  readonly form: EmbeddingForm
  readonly range: [IPv6, number]
  /** Byte offsets of the IPv4 address, most significant first. */
  readonly at: readonly [number, number, number, number]
  /** Teredo stores the client address inverted. */
  readonly xor?: number
}

const range = (cidr: string) => ipaddr().IPv6.parseCIDR(cidr)

/**
 * Where each form keeps its IPv4 address. The local-use NAT64 prefix (RFC 8215) may be any
 * RFC 6052 length from /48 to /96, chosen by the operator, so every layout is read and each address
 * found is judged. Teredo carries two: the server's, and the client's inverted. Parsed on first
 * use: ipaddr.js's first parse compiles its patterns, which a process that fetches nothing skips.
 */
const LAYOUTS = lazy((): readonly Layout[] => [
  { form: 'nat64', range: range('64:ff9b::/96'), at: [12, 13, 14, 15] },
  { form: 'nat64', range: range('64:ff9b:1::/48'), at: [6, 7, 9, 10] },
  { form: 'nat64', range: range('64:ff9b:1::/48'), at: [7, 9, 10, 11] },
  { form: 'nat64', range: range('64:ff9b:1::/48'), at: [9, 10, 11, 12] },
  { form: 'nat64', range: range('64:ff9b:1::/48'), at: [12, 13, 14, 15] },
  { form: '6to4', range: range('2002::/16'), at: [2, 3, 4, 5] },
  { form: 'teredo', range: range('2001::/32'), at: [4, 5, 6, 7] },
  { form: 'teredo', range: range('2001::/32'), at: [12, 13, 14, 15], xor: 0xff },
  { form: 'translated', range: range('::ffff:0:0:0/96'), at: [12, 13, 14, 15] },
  { form: 'compatible', range: range('::/96'), at: [12, 13, 14, 15] },
])

/** `::` and `::1` sit inside `::/96` but are the unspecified and loopback addresses, not IPv4. */
const NOT_COMPATIBLE = new Set(['::', '::1'])

/** Every IPv4 address `address` carries, by the form that carries it; empty for plain IPv6. */
export function embeddedIPv4(address: IPv6): EmbeddedIPv4[] {
  const found: EmbeddedIPv4[] = []
  let bytes: number[] | undefined
  for (const layout of LAYOUTS()) {
    if (!address.match(layout.range)) continue
    if (layout.form === 'compatible' && NOT_COMPATIBLE.has(address.toString())) continue
    bytes ??= address.toByteArray()
    const xor = layout.xor ?? 0
    found.push({ form: layout.form, ipv4: new (ipaddr().IPv4)(layout.at.map((offset) => bytes![offset]! ^ xor)) })
  }
  return found
}

/** How a refusal names each form. */
export const FORM_NAME: Record<EmbeddingForm, string> = {
  nat64: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  compatible: 'an IPv4-compatible IPv6 address',
  translated: 'an IPv4-translated address',
}

/**
 * Parses an address the way it is written. ipaddr.js reads `::a.b.c.d` (the IPv4-compatible form,
 * as glibc prints such a DNS answer) as `::ffff:a.b.c.d` (IPv4-mapped), which would judge it as a
 * plain IPv4 address; so a dotted tail is rewritten as two hex groups first. Throws for anything
 * that is not an address in standard notation.
 */
export function parseAddress(text: string): IPv4 | IPv6 {
  if (!text.includes(':')) return ipaddr().IPv4.parse(text)
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
  if (!tail) return ipaddr().IPv6.parse(text)
  const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number]
  if ([a, b, c, d].some((octet) => octet > 255)) throw new Error(`not an IPv6 address: ${text}`)
  return ipaddr().IPv6.parse(`${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`)
}
