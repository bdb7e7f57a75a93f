import { Context, type ForkScope, type Plugin } from 'cordis'
import WebService from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'
import { settleTeardowns } from 'dsh-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bodyText, closeAll, failure, serve } from './fixtures/servers.ts'

// The plugin module: registration under id `http`, config checked at load (F33, F34).

afterEach(closeAll)

describe('the plugin', () => {
  it('a namespace plugin injecting web', () => {
    expect('default' in fetchHttp).toBe(false)
    expect([fetchHttp.name, fetchHttp.inject]).toEqual(['web-fetch-http', ['web']])
  })

  it('F33: registers `http`; unloading it unregisters the provider', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/plain')
      response.end('via plugin')
    })
    const app = new Context()
    ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(WebService as unknown as Plugin, { fetchProvider: 'http' })
    const fork = (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(fetchHttp as unknown as Plugin, { allowedCidrs: ['127.0.0.1'] })
    await app.start()
    await app.events.flush()
    expect(bodyText((await app.web.fetch({ url: `${server.origin}/` })).body)).toBe('via plugin')
    // Keep-alive: the fetch's connection stays open while the plugin is loaded.
    expect(server.openSockets()).toBe(1)
    fork.dispose()
    expect((await failure(app.web.fetch({ url: `${server.origin}/` }))).code).toBe('WEB_PROVIDER_CONFIGURED_MISSING')
    // The provider's own Agent is destroyed with the plugin: no connection is left open.
    await settleTeardowns(app)
    await vi.waitFor(() => expect(server.openSockets()).toBe(0))
    await app.stop()
  })

  it('F33: a fetch in flight when the plugin unloads ends WEB_ABORTED (unloaded), not a provider failure', async () => {
    let answering: () => void = () => {}
    const asked = new Promise<void>((resolve) => (answering = resolve))
    // The server takes the request and never answers: the fetch is on the wire when the plugin goes.
    const server = await serve(() => answering())
    const app = new Context()
    ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(WebService as unknown as Plugin, { fetchProvider: 'http' })
    const fork = (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(fetchHttp as unknown as Plugin, { allowedCidrs: ['127.0.0.1'] })
    await app.start()
    await app.events.flush()
    const fetching = failure(app.web.fetch({ url: `${server.origin}/` }))
    await asked
    fork.dispose()
    await settleTeardowns(app)
    const error = await fetching
    expect([error.code, error.message]).toEqual(['WEB_ABORTED', 'web fetch aborted: the provider was unloaded'])
    await app.stop()
  })

  it('F34: bad config fails the load naming the field; maxRedirects 0 is fine', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ maxResponseBytes: -1 }, 'maxResponseBytes'],
      [{ maxBodyChars: 1.5 }, 'maxBodyChars'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ timeoutMs: 2_147_483_648 }, 'timeoutMs'],
      [{ maxRedirects: 1.5 }, 'maxRedirects'],
      [{ maxRedirects: -1 }, 'maxRedirects'],
      [{ allowedCidrs: ['10.0.0.0/33'] }, 'allowedCidrs'],
      [{ allowedCidrs: ['example.com'] }, 'not an IP address or CIDR range'],
      [{ allowPrivateNetwork: 'yes' }, 'allowPrivateNetwork'],
      [{ allowPrivateNetworks: true }, 'allowPrivateNetworks'],
    ]
    for (const [config, field] of bad) expect(() => fetchHttp.Config(config), field).toThrow(field)
    expect(fetchHttp.Config({ maxRedirects: 0 }).maxRedirects).toBe(0)
    expect(fetchHttp.Config(undefined)).toMatchObject({ maxUrlLength: 2048, maxResponseBytes: 5_000_000, maxBodyChars: 100_000, timeoutMs: 25_000, maxRedirects: 5, allowPrivateNetwork: false, allowedCidrs: [] })
  })
})
