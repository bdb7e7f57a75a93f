import { afterEach, describe, expect, it, vi } from 'vitest'
import { NetworkPolicy } from 'dsh-web-fetch-http'
import { bodyText, closeAll, closeProviders, failure, listener, LOOPBACK_ALLOWED, provider, scriptedResolver, serve, serveTls, TEST_CA, unconnectable } from './fixtures/servers.ts'

// The network guard (DESIGN.md W1; reference/web.md §8 S01–S12), on by default. Every refusal is
// proven with a real listener that counts connections: a refused URL never connected.

afterEach(async () => {
  vi.unstubAllEnvs()
  await closeProviders()
  await closeAll()
})

const ok = (text = 'ok') => (_request: unknown, response: import('node:http').ServerResponse) => {
  response.setHeader('content-type', 'text/plain')
  response.end(text)
}

describe('the policy (addresses)', () => {
  const policy = new NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: [], deniedCidrs: [] })
  const refused = (address: string) => !policy.check(address).allowed

  it('S01–S03, S06: loopback, unspecified, private, CGNAT, metadata, ULA, link-local, multicast, broadcast', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '0.0.0.0', '::', '::1', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '100.100.100.200', '169.254.169.254', '169.254.170.2', 'fd00:ec2::254', 'fc00::1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', '224.0.0.1', 'ff02::1', '255.255.255.255']) {
      expect(refused(address), address).toBe(true)
    }
  })

  it('reserved, documentation and benchmarking ranges are refused', () => {
    for (const address of ['192.0.0.8', '192.0.2.1', '192.88.99.1', '198.18.0.1', '198.51.100.1', '203.0.113.1', '240.0.0.1', '2001:db8::1', '100::1', '2001:2::1']) {
      expect(refused(address), address).toBe(true)
    }
  })

  it('S05: IPv4-mapped forms are judged as their IPv4; NAT64, 6to4, Teredo and IPv4-compatible forms are refused', () => {
    for (const address of ['::ffff:7f00:1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '64:ff9b::a00:1', '64:ff9b::808:808', '64:ff9b:1::1', '2002:7f00:1::', '2002:808:808::1', '2001::1', '2001:0:4136:e378::1', '::7f00:1', '::808:808']) {
      expect(refused(address), address).toBe(true)
    }
    expect(policy.check('::ffff:8.8.8.8').allowed).toBe(true)
  })

  it('global unicast is allowed', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      expect(policy.check(address).allowed, address).toBe(true)
    }
  })

  it('S11: allowPrivateNetwork and allowedCidrs open private ranges; metadata stays refused; deniedCidrs wins', () => {
    const open = new NetworkPolicy({ allowPrivateNetwork: true, allowedCidrs: [], deniedCidrs: ['192.168.7.0/24'] })
    expect(['127.0.0.1', '10.1.2.3', 'fc00::1', '::1'].map((address) => open.check(address).allowed)).toEqual([true, true, true, true])
    expect(['169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '192.168.7.1'].map((address) => open.check(address).allowed)).toEqual([false, false, false, false, false])
    const narrow = new NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: ['127.0.0.0/8', '10.0.0.5'], deniedCidrs: [] })
    expect(['127.0.0.1', '::ffff:127.0.0.1', '10.0.0.5', '10.0.0.6', '::1', '169.254.169.254'].map((address) => narrow.check(address).allowed)).toEqual([true, true, true, false, false, false])
  })
})

describe('metadata endpoints (issue 19 item 2)', () => {
  const metadata = ['168.63.129.16', '192.0.0.192', '100.96.0.96', '169.254.0.23', '169.254.169.254', 'fd00:ec2::254']

  it('Azure WireServer, OCI, Volcengine and Tencent are refused by every policy, the opt-ins included, and finally', () => {
    for (const config of [
      { allowPrivateNetwork: false, allowedCidrs: [], deniedCidrs: [] },
      { allowPrivateNetwork: true, allowedCidrs: [], deniedCidrs: [] },
      { allowPrivateNetwork: false, allowedCidrs: ['0.0.0.0/0', '::/0'], deniedCidrs: [] },
    ]) {
      const policy = new NetworkPolicy(config)
      for (const address of metadata) expect(policy.check(address), address).toEqual({ allowed: false, category: 'a cloud metadata address', final: true })
      expect(policy.check('::ffff:168.63.129.16').allowed).toBe(false)
    }
  })

  it('a name resolving to the public-range WireServer is refused under the default policy before any socket', async () => {
    const connector = unconnectable()
    const resolver = scriptedResolver(['168.63.129.16'])
    const error = await failure(provider({}, { resolver, baseConnector: connector }).fetch({ url: 'http://wireserver.test/machine?comp=goalstate' }))
    expect([error.code, error.message]).toEqual(['WEB_BLOCKED_URL', expect.stringContaining('"wireserver.test" resolves to a cloud metadata address')])
    expect(resolver.calls).toEqual(['wireserver.test'])
    expect(connector.targets).toEqual([])
    for (const url of ['http://168.63.129.16/', 'http://192.0.0.192/', 'http://100.96.0.96/', 'http://metadata.tencentyun.com/']) {
      expect((await failure(provider({ allowPrivateNetwork: true }, { baseConnector: connector }).fetch({ url }))).code, url).toBe('WEB_BLOCKED_URL')
    }
    expect(connector.targets).toEqual([])
  })
})

describe('refusals happen before any connection (default policy)', () => {
  it('S01, S04: loopback in every spelling is WEB_BLOCKED_URL and the listener saw nothing', async () => {
    const v4 = await listener('127.0.0.1')
    const v6 = await listener('::1')
    const fetcher = provider()
    const urls = [
      `http://127.0.0.1:${v4.port}/`,
      `http://localhost:${v4.port}/`,
      `http://LocalHost.:${v4.port}/`,
      `http://app.localhost:${v4.port}/`,
      `http://0.0.0.0:${v4.port}/`,
      `http://2130706433:${v4.port}/`,
      `http://0x7f000001:${v4.port}/`,
      `http://0x7f.1:${v4.port}/`,
      `http://0177.0.0.1:${v4.port}/`,
      `http://127.1:${v4.port}/`,
      `http://127.0.0.1.:${v4.port}/`,
      `http://[::ffff:127.0.0.1]:${v4.port}/`,
      `http://[::1]:${v6.port}/`,
      `http://[::]:${v6.port}/`,
      `http://[0:0:0:0:0:0:0:1]:${v6.port}/`,
    ]
    for (const url of urls) expect((await failure(fetcher.fetch({ url }))).code, url).toBe('WEB_BLOCKED_URL')
    expect([v4.connections(), v6.connections()]).toEqual([0, 0])
  })

  it('S02, S03, S06: private, CGNAT, metadata and link-local hosts are refused without DNS or connection', async () => {
    const resolver = scriptedResolver(['8.8.8.8'])
    const fetcher = provider({}, { resolver })
    for (const url of ['http://10.0.0.1/', 'http://172.16.0.1/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://metadata.google.internal/', 'http://METADATA.google.internal./', 'http://metadata/', 'http://[fc00::1]/', 'http://[fe80::1]/', 'http://[fe80::1%25eth0]/', 'http://224.0.0.1/', 'http://[ff02::1]/', 'http://255.255.255.255/']) {
      expect((await failure(fetcher.fetch({ url }))).code, url).toBe('WEB_BLOCKED_URL')
    }
    expect(resolver.calls).toEqual([])
  })

  it('S07: a name with any off-limits A or AAAA answer is refused, whichever position it has', async () => {
    const target = await listener('127.0.0.2')
    for (const answers of [['127.0.0.2', '127.0.0.1'], ['127.0.0.1', '127.0.0.2'], ['127.0.0.2', '::1'], ['::1'], ['127.0.0.2', '169.254.169.254']]) {
      const fetcher = provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver: scriptedResolver(answers) })
      expect((await failure(fetcher.fetch({ url: `http://mixed.test:${target.port}/` }))).code, answers.join(' ')).toBe('WEB_BLOCKED_URL')
    }
    expect(target.connections()).toBe(0)
  })

  it('an AAAA-only name is checked too', async () => {
    const resolver = scriptedResolver(['fd12::1'])
    expect((await failure(provider({}, { resolver }).fetch({ url: 'http://v6only.test/' }))).code).toBe('WEB_BLOCKED_URL')
  })

  it('S12: the refusal names the host the caller gave, never the address it resolved to', async () => {
    const resolver = scriptedResolver(['10.20.30.40'])
    const error = await failure(provider({}, { resolver }).fetch({ url: 'http://intranet.example/' }))
    expect(error.code).toBe('WEB_BLOCKED_URL')
    expect(error.message).toContain('"intranet.example" resolves to a private network address')
    expect(error.message).not.toContain('10.20.30.40')
  })

  it('a name that does not resolve is WEB_PROVIDER_ERROR', async () => {
    const resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' })
    }
    const error = await failure(provider({}, { resolver }).fetch({ url: 'http://nowhere.test/' }))
    expect([error.code, error.message]).toEqual(['WEB_PROVIDER_ERROR', 'web fetch failed: cannot resolve "nowhere.test": getaddrinfo ENOTFOUND nowhere.test'])
  })
})

describe('pinning', () => {
  it('S08: DNS rebinding cannot reach loopback: the socket connects to the checked answer; Host keeps the name', async () => {
    // 127.0.0.2 plays the public address (allowed by the opt-in); 127.0.0.1 is the rebinding target.
    const pub = await serve(ok('public'), '127.0.0.2')
    // Same port on both addresses: only the address decides which one a socket reaches.
    const internal = await serve(ok('internal'), '127.0.0.1', pub.port)
    const resolver = scriptedResolver(['127.0.0.2'], ['127.0.0.1'])
    const fetcher = provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver })
    const result = await fetcher.fetch({ url: `http://rebind.test:${pub.port}/` })
    expect(bodyText(result.body)).toBe('public')
    expect(resolver.calls).toEqual(['rebind.test'])
    expect(pub.requests[0]?.headers.host).toBe(`rebind.test:${pub.port}`)
    expect(internal.connections()).toBe(0)
    // The next fetch resolves again, gets the loopback answer, and is refused.
    await fetcher.close()
    const again = provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver })
    expect((await failure(again.fetch({ url: `http://rebind.test:${pub.port}/` }))).code).toBe('WEB_BLOCKED_URL')
  })

  it('S08: over TLS the certificate is checked against the name and SNI carries it', async () => {
    const server = await serveTls(ok('secure'), '127.0.0.2')
    const fetcher = provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver: scriptedResolver(['127.0.0.2']), connect: { ca: TEST_CA } })
    const result = await fetcher.fetch({ url: `https://pinned.test:${server.port}/page` })
    expect(result).toMatchObject({ url: `https://pinned.test:${server.port}/page`, statusCode: 200, body: { content: 'secure' } })
    expect(server.requests[0]).toMatchObject({ servername: 'pinned.test', headers: { host: `pinned.test:${server.port}` } })
  })

  it('S09: a same-origin redirect hop is resolved again; one that now resolves to loopback is refused', async () => {
    let hits = 0
    const pub = await serve((_request, response) => {
      hits++
      response.writeHead(302, { location: '/next', connection: 'close' })
      response.end()
    }, '127.0.0.2')
    const resolver = scriptedResolver(['127.0.0.2'], ['127.0.0.1'])
    const error = await failure(provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver }).fetch({ url: `http://hop.test:${pub.port}/start` }))
    expect(error.code).toBe('WEB_BLOCKED_URL')
    expect(resolver.calls).toEqual(['hop.test', 'hop.test'])
    expect(hits).toBe(1)
  })

  it('S09: a redirect chain ending on a private address is refused (cross-origin is never followed either)', async () => {
    const internal = await listener('127.0.0.1')
    const pub = await serve((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${internal.port}/admin` })
      response.end()
    }, '127.0.0.2')
    const error = await failure(provider({ allowedCidrs: ['127.0.0.2/32'] }).fetch({ url: `${pub.origin}/` }))
    expect(error.code).toBe('WEB_REDIRECT_BLOCKED')
    expect(internal.connections()).toBe(0)
  })

  it('S10: the connected peer is checked again (a socket that lands elsewhere is refused)', async () => {
    const internal = await serve(ok('internal'), '127.0.0.1')
    const { buildConnector } = await import('undici')
    const real = buildConnector({})
    // A connector that ignores its target and lands on 127.0.0.1: what a broken lookup would do.
    const misrouting: typeof real = (target, callback) => real({ ...target, hostname: '127.0.0.1', port: String(internal.port) }, callback)
    const fetcher = provider({ allowedCidrs: ['127.0.0.2/32'] }, { resolver: scriptedResolver(['127.0.0.2']), baseConnector: misrouting })
    const error = await failure(fetcher.fetch({ url: 'http://elsewhere.test:8/' }))
    expect(error.code).toBe('WEB_BLOCKED_URL')
    expect(error.message).toContain('"elsewhere.test" connected to a loopback address')
    expect(internal.requests).toHaveLength(0)
  })

  it('S12: proxy variables in the environment are ignored: no proxy connection, refusals stand, allowed fetches go direct', async () => {
    const proxy = await listener('127.0.0.1')
    const target = await serve(ok('direct'), '127.0.0.2')
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) vi.stubEnv(name, `http://127.0.0.1:${proxy.port}`)
    vi.stubEnv('NO_PROXY', '*')
    expect((await failure(provider().fetch({ url: `${target.origin}/` }))).code).toBe('WEB_BLOCKED_URL')
    const allowed = await provider({ allowedCidrs: ['127.0.0.2/32'] }).fetch({ url: `${target.origin}/` })
    expect(bodyText(allowed.body)).toBe('direct')
    expect(proxy.connections()).toBe(0)
  })

  it('S11: with the opt-in, loopback is fetched', async () => {
    const server = await serve(ok('here'))
    const result = await provider(LOOPBACK_ALLOWED).fetch({ url: `http://localhost:${server.port}/` })
    expect(bodyText(result.body)).toBe('here')
    expect(bodyText((await provider({ allowPrivateNetwork: true }).fetch({ url: `${server.origin}/` })).body)).toBe('here')
  })
})
