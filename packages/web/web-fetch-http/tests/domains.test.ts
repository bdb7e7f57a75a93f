import { afterEach, describe, expect, it } from 'vitest'
import * as fetchHttp from 'dsh-web-fetch-http'
import { bodyText, closeAll, closeProviders, failure, provider, scriptedResolver, serve } from './fixtures/servers.ts'

// Issue 19 item 11: operator domain rules (Claude Code's WebFetch(domain:…) permissions), checked
// on the URL and on every hop before DNS or any connection; deny wins; a refusal names the rule.

afterEach(async () => {
  await closeProviders()
  await closeAll()
})

const OPEN = { allowedCidrs: ['127.0.0.2/32'] }

describe('domain rules', () => {
  it('deniedDomains refuses an exact host and a *. pattern before DNS, naming the rule', async () => {
    const resolver = scriptedResolver(['127.0.0.2'])
    const fetcher = provider({ ...OPEN, deniedDomains: ['evil.test', '*.tracker.test'] }, { resolver })
    for (const [url, rule] of [
      ['http://evil.test/', 'evil.test'],
      ['http://EVIL.test./x', 'evil.test'],
      ['http://a.b.tracker.test/', '*.tracker.test'],
    ]) {
      const error = await failure(fetcher.fetch({ url: url! }))
      expect([error.code, error.message], url).toEqual(['WEB_BLOCKED_URL', expect.stringContaining(`deniedDomains rule "${rule}"`)])
    }
    expect(resolver.calls).toEqual([])
  })

  it('allowedDomains admits only its hosts (a *. pattern covers subdomains, not the apex); deny wins over allow', async () => {
    const server = await serve((_request, response) => response.end('ok'), '127.0.0.2')
    const resolver = scriptedResolver(['127.0.0.2'])
    const fetcher = provider({ ...OPEN, allowedDomains: ['docs.test', '*.docs.test'], deniedDomains: ['secret.docs.test'] }, { resolver })
    expect(bodyText((await fetcher.fetch({ url: `http://docs.test:${server.port}/` })).body)).toBe('ok')
    expect(bodyText((await fetcher.fetch({ url: `http://api.docs.test:${server.port}/` })).body)).toBe('ok')
    const outside = await failure(fetcher.fetch({ url: `http://other.test:${server.port}/` }))
    expect([outside.code, outside.message]).toEqual(['WEB_BLOCKED_URL', expect.stringContaining('"other.test" matches no allowedDomains rule (docs.test, *.docs.test)')])
    const denied = await failure(fetcher.fetch({ url: `http://secret.docs.test:${server.port}/` }))
    expect(denied.message).toContain('deniedDomains rule "secret.docs.test"')
    const apexOnly = provider({ ...OPEN, allowedDomains: ['*.only.test'] }, { resolver })
    expect((await failure(apexOnly.fetch({ url: `http://only.test:${server.port}/` }))).code).toBe('WEB_BLOCKED_URL')
    expect(server.requests.map((request) => request.headers.host)).toEqual([`docs.test:${server.port}`, `api.docs.test:${server.port}`])
  })

  it('dsh status shows the rules and opened ports', () => {
    expect(provider({ allowedDomains: ['docs.test', '*.docs.test'], deniedDomains: ['evil.test'], allowedPorts: [6379] }).status().detail).toBe(
      'network guard on: public addresses only; only docs.test, *.docs.test; never evil.test; bad ports opened: 6379',
    )
    expect(provider().status().detail).toBe('network guard on: public addresses only')
  })

  it('rules are checked at load', () => {
    for (const bad of [['http://x.test/'], ['*'], ['a.*.test'], [''], ['x y.test']]) expect(() => fetchHttp.Config({ allowedDomains: bad }), JSON.stringify(bad)).toThrow('allowedDomains')
    expect(fetchHttp.Config({ deniedDomains: ['Example.COM.', '*.Docs.Test'] })).toMatchObject({ deniedDomains: ['example.com', '*.docs.test'] })
  })
})
