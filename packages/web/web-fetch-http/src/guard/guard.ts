import { isIP, type LookupFunction } from 'node:net'
import { errorMessage, type Lifetime } from 'dsh-core'
import { WebError } from 'dsh-web'
import { METADATA_NAMES } from './metadata.ts'
import { NetworkPolicy, type PolicyConfig } from './policy.ts'

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Every A and AAAA answer for a name. Injectable, so tests can script DNS (rebinding, mixed answers). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) => {
  // Loaded with the first lookup: a process that fetches nothing (`dsh tools`) never needs it.
  const answers = await process.getBuiltinModule('node:dns/promises').lookup(hostname, { all: true, verbatim: true })
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))
}

/** Names that reach instance metadata; refused whatever the policy allows. */
const METADATA_NAME_SET: ReadonlySet<string> = new Set(METADATA_NAMES)

/** RFC 6761: localhost names are loopback by definition, so no DNS server gets to say otherwise. */
const LOOPBACK: readonly ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
]

/**
 * The network guard: names and addresses a fetch may connect to. Refusals are `WEB_BLOCKED_URL`
 * and name only the host the caller gave, never an address it resolved to.
 */
export class NetworkGuard {
  readonly policy: NetworkPolicy
  /** Checked answers per hostname while a request to it is being dispatched (see `pin`). */
  private readonly pins = new Map<string, { answers: readonly ResolvedAddress[]; holders: number }>()

  constructor(
    config: PolicyConfig,
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.policy = new NetworkPolicy(config)
  }

  /**
   * The addresses a connection to `host` may use: every answer checked, refused if any is off
   * limits (a name with one private answer is treated as private). `host` is a URL hostname or
   * a bare address, brackets allowed.
   */
  async resolve(host: string, lifetime?: Lifetime): Promise<readonly ResolvedAddress[]> {
    const known = this.resolveWithoutDns(host)
    if (known) return known
    const answers = await this.lookup(normalizeName(unbracket(host)), host, lifetime)
    if (!answers.length) throw new WebError(`web fetch failed: "${host}" has no address`, 'WEB_PROVIDER_ERROR')
    for (const { address } of answers) this.checkAddress(address, host, 'resolves to')
    return answers
  }

  /**
   * Resolves and checks `host` once, and makes the connector use exactly those answers for
   * connections opened until the returned release is called: no second DNS query can rebind it.
   * The wait for DNS ends when `lifetime` does.
   */
  async pin(host: string, lifetime?: Lifetime): Promise<() => void> {
    return this.pinNow(host) ?? this.hold(host, await this.resolve(host, lifetime))
  }

  /**
   * `pin` without waiting, for a host that needs no DNS (an address literal, a localhost name; a
   * refused one throws here). Undefined for a name that must be resolved: use `pin`. The common
   * case of a fetch thus costs no promise and no abort signal.
   */
  pinNow(host: string): (() => void) | undefined {
    // An address literal is connected to as is: no lookup runs, so there is nothing to pin.
    const bare = unbracket(host)
    if (isIP(bare)) {
      this.checkAddress(bare, host, 'is')
      return NOTHING_PINNED
    }
    const known = this.resolveWithoutDns(host)
    return known && this.hold(host, known)
  }

  /** The checked answers for a literal or a localhost name; throws for a refused one; undefined when DNS must be asked. */
  private resolveWithoutDns(host: string): readonly ResolvedAddress[] | undefined {
    const bare = unbracket(host)
    const family = isIP(bare)
    if (family) {
      this.checkAddress(bare, host, 'is')
      return [{ address: bare, family: family === 6 ? 6 : 4 }]
    }
    const name = normalizeName(bare)
    if (METADATA_NAME_SET.has(name)) throw blocked(host, 'is', 'a cloud metadata name', true)
    if (name !== 'localhost' && !name.endsWith('.localhost')) return undefined
    for (const { address } of LOOPBACK) this.checkAddress(address, host, 'resolves to')
    return LOOPBACK
  }

  private hold(host: string, answers: readonly ResolvedAddress[]): () => void {
    const entry = this.pins.get(host)
    if (entry) {
      entry.answers = answers
      entry.holders++
    } else {
      this.pins.set(host, { answers, holders: 1 })
    }
    let released = false
    return () => {
      const current = this.pins.get(host)
      if (released || !current) return
      released = true
      if (--current.holders === 0) this.pins.delete(host)
    }
  }

  /** Throws `WEB_BLOCKED_URL` unless the policy allows `address`. `host` is what the message names. */
  checkAddress(address: string, host: string, relation: Relation): void {
    const verdict = this.policy.check(address)
    if (!verdict.allowed) throw blocked(host, relation, verdict.category, verdict.final ?? false)
  }

  /** A `lookup` for net/tls connect: the socket connects only to answers this guard checked. */
  lookupFunction(): LookupFunction {
    return (hostname, options, callback) => {
      const pinned = this.pins.get(hostname)?.answers
      ;(pinned ? Promise.resolve(pinned) : this.resolve(hostname)).then(
        (answers) => {
          const wanted = options.family === 4 || options.family === 6 ? answers.filter((answer) => answer.family === options.family) : answers
          if (!wanted.length) {
            callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0)
          } else if (options.all) {
            ;(callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [...wanted])
          } else {
            callback(null, wanted[0]!.address, wanted[0]!.family)
          }
        },
        (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
      )
    }
  }

  private async lookup(name: string, host: string, lifetime: Lifetime | undefined): Promise<readonly ResolvedAddress[]> {
    try {
      return await (lifetime ? lifetime.race(this.resolver(name)) : this.resolver(name))
    } catch (error) {
      if (lifetime?.aborted) throw error
      throw new WebError(`web fetch failed: cannot resolve "${host}": ${errorMessage(error)}`, 'WEB_PROVIDER_ERROR', { cause: error })
    }
  }
}

type Relation = 'is' | 'resolves to' | 'connected to'

const NOTHING_PINNED = () => {}

function blocked(host: string, relation: Relation, category: string, final: boolean): WebError {
  const remedy = final ? 'never fetched' : 'not fetched unless an operator allows private networks on web-fetch-http (allowPrivateNetwork or allowedCidrs)'
  return new WebError(`web fetch refused: "${host}" ${relation} ${category}, which the network guard keeps off limits; it is ${remedy}`, 'WEB_BLOCKED_URL')
}

/** A URL hostname's IPv6 literal without its brackets (`[::1]` → `::1`); anything else as is. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

/** Lower case, one trailing dot dropped: `Metadata.Google.Internal.` is `metadata.google.internal`. */
function normalizeName(name: string): string {
  const lower = name.toLowerCase()
  return lower.endsWith('.') ? lower.slice(0, -1) : lower
}
