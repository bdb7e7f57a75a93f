import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { ipaddr } from './guard/ipaddr.ts'
import { z } from 'zod'
import { DomainRule } from './guard/domains.ts'

const Cidr = z.string().refine(isCidrOrAddress, { error: (issue) => `${JSON.stringify(issue.input)} is not an IP address or CIDR range (like 10.0.0.0/8 or fd00::/8)` })

/** Every number varies by deployment, so each is a field with a documented default. */
export const FetchHttpConfig = z.strictObject({
  /** Longest URL accepted, in characters (the initial URL as given, and each redirect target). */
  maxUrlLength: z.number().int().positive().default(2048),
  /** Decoded (decompressed) body bytes read; the rest is dropped and the result marked truncated. */
  maxResponseBytes: z.number().int().positive().default(5_000_000),
  /**
   * Bytes of a PDF read at most. A PDF cannot be read in part (its index is at the end), so a
   * larger one is refused (WEB_FETCH_TOO_LARGE) as soon as its length says so or its bytes pass it.
   */
  maxPdfBytes: z.number().int().positive().default(20_000_000),
  /** Characters kept of a text body (an HTML body is kept whole up to maxResponseBytes); the rest is dropped, the result marked truncated. */
  maxBodyChars: z.number().int().positive().default(100_000),
  /**
   * Content codings undone at most, in the order they were applied (`Content-Encoding: gzip, gzip`,
   * or the header sent twice, is two). A body with more is refused (WEB_UNSUPPORTED_CONTENT_TYPE):
   * each is one more decompressor, and a server stacks two at most (a proxy gzipping a gzipped body).
   */
  maxContentCodings: z.number().int().positive().max(8).default(3),
  /**
   * Bytes of a response's status line and headers read at most (undici's `maxHeaderSize`; 16384 is
   * Node's default). A response with more fails the fetch with WEB_PROVIDER_ERROR naming this field.
   */
  maxHeaderBytes: z.number().int().positive().default(16_384),
  /**
   * Backstop for one fetch (all hops and the body read) for callers without a shorter budget. Its
   * default ends a fetch before `web_fetch`'s own budget (tool-web's `fetchTimeoutMs`, 30 s) does:
   * a body still streaming then is answered with the part that arrived, said incomplete, where the
   * tool's budget would answer TOOL_TIMEOUT and drop it, and the conversion keeps the last 5 s.
   */
  timeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(25_000),
  /** Same-origin redirects followed; 0 follows none. */
  maxRedirects: z.number().int().nonnegative().default(5),
  userAgent: z.string().min(1).default('dsh-web-fetch-http/0.1 (+https://github.com/dsh-extensions)'),
  /**
   * The network guard. Off-limits by default: loopback, private, link-local, CGNAT, ULA, multicast,
   * broadcast, unspecified, reserved and documentation ranges, and IPv6 forms that embed IPv4.
   * `allowPrivateNetwork` opens all of those; `allowedCidrs` opens only the ranges listed. Cloud
   * metadata addresses stay refused either way. `deniedCidrs` refuses more (it wins over both).
   */
  allowPrivateNetwork: z.boolean().default(false),
  allowedCidrs: z.array(Cidr).default([]),
  deniedCidrs: z.array(Cidr).default([]),
  /** Hosts a fetch may reach (`example.com`, `*.example.com`); empty: any host the guard allows. */
  allowedDomains: z.array(DomainRule).default([]),
  /** Hosts never fetched; wins over allowedDomains. */
  deniedDomains: z.array(DomainRule).default([]),
  /** Bad ports (the fetch standard's list, Redis, memcached) to open, by number; all stay refused by default. */
  allowedPorts: z.array(z.number().int().min(1).max(65_535)).default([]),
})
export type FetchHttpConfig = z.infer<typeof FetchHttpConfig>

function isCidrOrAddress(value: string): boolean {
  return ipaddr().isValidCIDR(value) || ipaddr().isValid(value)
}
