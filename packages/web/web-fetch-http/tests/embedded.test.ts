import type { Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { NetworkGuard, NetworkPolicy } from 'dsh-web-fetch-http'
import { closeAll, closeProviders, failure, provider, scriptedResolver, serve, unconnectable } from './fixtures/servers.ts'

// Issue 19 item 1: an IPv6 address that carries an IPv4 one is judged by that IPv4 too, on every
// path an address reaches the guard by: a URL literal, a DNS answer, the connector's lookup, and
// the peer address of a connected socket.

afterEach(async () => {
  await closeProviders()
  await closeAll()
})

/** One IPv4 address written in every IPv6 form that embeds it. */
function embeddings(ipv4: string): Record<string, string> {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number]
  const hi = ((a << 8) | b).toString(16)
  const lo = ((c << 8) | d).toString(16)
  const xor = (value: number) => (value ^ 0xffff).toString(16)
  return {
    'NAT64 64:ff9b::/96': `64:ff9b::${hi}:${lo}`,
    'NAT64 64:ff9b::/96, dotted': `64:ff9b::${ipv4}`,
    // RFC 6052 /48 layout: bits 48–63, then (after the u octet) bits 72–87.
    'NAT64 64:ff9b:1::/48': `64:ff9b:1:${hi}:${(c).toString(16)}:${(d << 8).toString(16)}::`,
    'NAT64 64:ff9b:1::/48 with a /96 layout': `64:ff9b:1::${hi}:${lo}`,
    '6to4 2002::/16': `2002:${hi}:${lo}::1`,
    'Teredo 2001::/32 (client, XOR-ed)': `2001:0:4136:e378:8000:63bf:${xor((a << 8) | b)}:${xor((c << 8) | d)}`,
    'IPv4-compatible ::/96': `::${hi}:${lo}`,
    'IPv4-compatible ::/96, dotted': `::${ipv4}`,
    'IPv4-translated ::ffff:0:0:0/96': `::ffff:0:${hi}:${lo}`,
    'IPv4-mapped ::ffff:0:0/96': `::ffff:${hi}:${lo}`,
  }
}

const OPEN = { allowPrivateNetwork: true, allowedCidrs: [], deniedCidrs: [] }

describe('the policy judges the IPv4 an IPv6 address carries', () => {
  it('a metadata address in any embedding stays refused with private networks allowed, and the refusal is final', () => {
    const policy = new NetworkPolicy(OPEN)
    for (const [form, address] of Object.entries(embeddings('169.254.169.254'))) {
      expect(policy.check(address), form).toMatchObject({ allowed: false, final: true })
    }
    for (const [form, address] of Object.entries(embeddings('168.63.129.16'))) expect(policy.check(address).allowed, form).toBe(false)
  })

  it('allowedCidrs 0.0.0.0/0 and ::/0 open every range but no embedded metadata address', () => {
    const policy = new NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: ['0.0.0.0/0', '::/0'], deniedCidrs: [] })
    for (const [form, address] of Object.entries(embeddings('169.254.169.254'))) expect(policy.check(address).allowed, form).toBe(false)
    expect(policy.check('64:ff9b::a00:1').allowed).toBe(true)
  })

  it('deniedCidrs catches its range inside every embedding', () => {
    const policy = new NetworkPolicy({ allowPrivateNetwork: true, allowedCidrs: [], deniedCidrs: ['10.0.0.0/8'] })
    for (const [form, address] of Object.entries(embeddings('10.9.8.7'))) {
      expect(policy.check(address), form).toMatchObject({ allowed: false, category: expect.stringContaining('deniedCidrs') })
    }
    expect(policy.check('64:ff9b::b09:807').allowed).toBe(true)
  })

  it('an IPv6 range opened by allowedCidrs does not open the private IPv4 it carries', () => {
    const policy = new NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: ['64:ff9b::/96', '2002::/16'], deniedCidrs: [] })
    expect(policy.check('64:ff9b::a00:1')).toMatchObject({ allowed: false, category: 'a NAT64 address that carries a private network address' })
    expect(policy.check('2002:a00:1::1').allowed).toBe(false)
    expect(policy.check('64:ff9b::808:808').allowed).toBe(true)
  })

  it('by default every embedding form stays refused, even of a public IPv4 (dotted tails read as written)', () => {
    const policy = new NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: [], deniedCidrs: [] })
    for (const [form, address] of Object.entries(embeddings('11.22.33.44'))) {
      if (form.startsWith('IPv4-mapped')) expect(policy.check(address).allowed, form).toBe(true)
      else expect(policy.check(address).allowed, form).toBe(false)
    }
    // `::a.b.c.d` is the IPv4-compatible form, not the mapped one.
    expect(policy.check('::11.22.33.44')).toMatchObject({ allowed: false, category: 'an IPv4-compatible IPv6 address' })
  })

  it('loopback and unspecified IPv6 are not read as IPv4-compatible 0.0.0.1 and 0.0.0.0', () => {
    const policy = new NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: ['::1/128'], deniedCidrs: [] })
    expect(policy.check('::1').allowed).toBe(true)
    expect(policy.check('::')).toMatchObject({ allowed: false, category: 'the unspecified address' })
  })
})

describe('every path an address reaches the guard by', () => {
  it('URL literals: NAT64 and 6to4 spellings of the metadata address are refused with private networks allowed', async () => {
    const connector = unconnectable()
    const fetcher = provider({ allowPrivateNetwork: true }, { baseConnector: connector })
    for (const url of ['http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b::169.254.169.254]/latest/', 'http://[2002:a9fe:a9fe::1]/', 'http://[::169.254.169.254]/', 'http://[::ffff:0:a9fe:a9fe]/']) {
      const error = await failure(fetcher.fetch({ url }))
      expect([error.code, error.message], url).toEqual(['WEB_BLOCKED_URL', expect.stringContaining('cloud metadata address')])
    }
    const denied = provider({ allowPrivateNetwork: true, deniedCidrs: ['10.0.0.0/8'] }, { baseConnector: connector })
    expect((await failure(denied.fetch({ url: 'http://[64:ff9b::a09:807]/' }))).code).toBe('WEB_BLOCKED_URL')
    expect(connector.targets).toEqual([])
  })

  it('DNS answers: an AAAA answer in the IPv4-compatible form is refused like its literal, whichever way it is written', async () => {
    const target = await serve((_request, response) => response.end('reached'), '127.0.0.2')
    for (const answer of ['::127.0.0.2', '::7f00:2']) {
      const resolver = scriptedResolver([answer])
      const error = await failure(provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver }).fetch({ url: `http://compat.test:${target.port}/` }))
      expect([error.code, error.message], answer).toEqual(['WEB_BLOCKED_URL', expect.stringContaining('"compat.test" resolves to an IPv4-compatible IPv6 address')])
      expect(resolver.calls).toEqual(['compat.test'])
    }
    const metadata = scriptedResolver(['64:ff9b::a9fe:a9fe'])
    const connector = unconnectable()
    const error = await failure(provider({ allowPrivateNetwork: true }, { resolver: metadata, baseConnector: connector }).fetch({ url: 'http://nat64.test/' }))
    expect(error.code).toBe('WEB_BLOCKED_URL')
    expect(connector.targets).toEqual([])
    expect(error.message).not.toContain('a9fe')
    expect(target.connections()).toBe(0)
  })

  it("the connector's lookup refuses an embedded metadata answer for a name it has no pin for", async () => {
    const guard = new NetworkGuard(OPEN, scriptedResolver(['2002:a9fe:a9fe::1']))
    const outcome = await new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) => guard.lookupFunction()('unpinned.test', { all: true }, (error) => resolve({ error })))
    expect(outcome.error?.code).toBe('WEB_BLOCKED_URL')
  })

  it('the peer re-check: a socket whose peer turns out to be an embedded metadata address is closed before any request', async () => {
    const server = await serve((_request, response) => response.end('reached'), '127.0.0.1')
    const { buildConnector } = await import('undici')
    const real = buildConnector({})
    // Loopback cannot give a socket a NAT64 peer, so the address it reports is rewritten; the socket is real.
    const nat64Peer: typeof real = (target, callback) =>
      real({ ...target, hostname: '127.0.0.1', port: String(server.port) }, (error, socket) => {
        if (socket) Object.defineProperty(socket as Socket, 'remoteAddress', { value: '64:ff9b::a9fe:a9fe' })
        callback(error as Error, socket as never)
      })
    const fetcher = provider({ allowPrivateNetwork: true }, { resolver: scriptedResolver(['127.0.0.1']), baseConnector: nat64Peer })
    const error = await failure(fetcher.fetch({ url: 'http://peer.test/' }))
    expect([error.code, error.message]).toEqual(['WEB_BLOCKED_URL', expect.stringContaining('"peer.test" connected to a NAT64 address that carries a cloud metadata address')])
    expect(server.requests).toHaveLength(0)
  })
})
