import { afterEach, describe, expect, it } from 'vitest'
import { BAD_PORTS } from 'dsh-web-fetch-http'
import * as fetchHttp from 'dsh-web-fetch-http'
import { bodyText, closeAll, closeProviders, failure, listener, LOOPBACK_ALLOWED, provider, serve } from './fixtures/servers.ts'

// Issue 19 item 3: the fetch standard's bad ports (plus Redis and memcached) are refused before any
// connection, unless an operator opens a port by number. Real listeners on those ports prove that
// nothing connected (the tests run as root, so port 25 can be bound; an unusual loopback address
// keeps them clear of anything else on the machine).

afterEach(async () => {
  await closeProviders()
  await closeAll()
})

const HOST = '127.0.19.3'

describe('bad ports', () => {
  it('SMTP, Redis and memcached listeners see no connection; the refusal names the port and the opt-in', async () => {
    const fetcher = provider(LOOPBACK_ALLOWED)
    for (const port of [25, 6379, 11211]) {
      const target = await listener(HOST, port)
      const error = await failure(fetcher.fetch({ url: `http://${HOST}:${port}/` }))
      expect([error.code, error.message], String(port)).toEqual(['WEB_BLOCKED_URL', expect.stringContaining(`port ${port}`)])
      expect(error.message).toContain('allowedPorts')
      expect(target.connections()).toBe(0)
    }
  })

  it('the whole fetch-standard list is refused, on https too; ordinary ports are not', async () => {
    expect(BAD_PORTS.size).toBe(84)
    for (const port of [1, 7, 21, 22, 23, 53, 110, 143, 465, 587, 993, 2049, 4190, 5060, 6000, 6667, 6697, 10080]) expect(BAD_PORTS.has(port), String(port)).toBe(true)
    for (const port of [80, 443, 8080, 8443, 3000]) expect(BAD_PORTS.has(port), String(port)).toBe(false)
    const fetcher = provider(LOOPBACK_ALLOWED)
    for (const url of [`https://${HOST}:22/`, `http://${HOST}:10080/`, `http://[::1]:6379/`]) expect((await failure(fetcher.fetch({ url }))).code, url).toBe('WEB_BLOCKED_URL')
  })

  it('allowedPorts opens exactly the ports it lists', async () => {
    const redisPort = await serve((_request, response) => response.end('not really redis'), HOST, 6379)
    const fetcher = provider({ ...LOOPBACK_ALLOWED, allowedPorts: [6379] })
    expect(bodyText((await fetcher.fetch({ url: `${redisPort.origin}/` })).body)).toBe('not really redis')
    expect((await failure(fetcher.fetch({ url: `http://${HOST}:11211/` }))).code).toBe('WEB_BLOCKED_URL')
  })

  it('allowedPorts is checked at load', () => {
    for (const bad of [[0], [65536], [1.5], ['25']]) expect(() => fetchHttp.Config({ allowedPorts: bad }), JSON.stringify(bad)).toThrow('allowedPorts')
    expect(fetchHttp.Config({}).allowedPorts).toEqual([])
  })
})
