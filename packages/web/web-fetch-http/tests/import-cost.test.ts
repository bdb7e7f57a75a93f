import ipaddr from 'ipaddr.js'
import { afterEach, describe, expect, it, vi } from 'vitest'

// Issue 27 item 5: `dsh tools` loads this provider and never fetches. ipaddr.js's first parse
// compiles its patterns, so the guard's own address tables are parsed when a check first needs them.

afterEach(() => {
  vi.restoreAllMocks()
})

describe('importing dsh-web-fetch-http', () => {
  it('parses no address until the guard checks one, then judges as before', async () => {
    const spies = [vi.spyOn(ipaddr, 'parse'), vi.spyOn(ipaddr, 'parseCIDR'), vi.spyOn(ipaddr.IPv4, 'parse'), vi.spyOn(ipaddr.IPv6, 'parse'), vi.spyOn(ipaddr.IPv6, 'parseCIDR')]
    vi.resetModules()
    await import('../src/index.ts')
    const policy = await import('../src/guard/policy.ts')
    expect(spies.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0, 0])
    const guard = new policy.NetworkPolicy({ allowPrivateNetwork: false, allowedCidrs: [], deniedCidrs: [] })
    expect(guard.check('169.254.169.254')).toMatchObject({ allowed: false, final: true })
    expect(guard.check('64:ff9b::a9fe:a9fe')).toMatchObject({ allowed: false, final: true })
    expect(guard.check('::7f00:1')).toMatchObject({ allowed: false })
    expect(guard.check('93.184.216.34')).toEqual({ allowed: true })
  })
})
