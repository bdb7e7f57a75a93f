import { createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Context } from 'cordis'
import { httpFault } from 'dsh-web'
import { registerKeyedSearch, type KeyedSearchOptions } from 'dsh-web/keyed-search'
import { afterEach, expect, it, vi } from 'vitest'
import { providerHost } from './provider-host.ts'

// The keyed default send is undici's `request` over an Agent the plugin owns, not the global fetch
// (about 5x the CPU of an own Agent per loopback search; bench/RESULTS.md). Counted, not timed: calls of the
// global fetch, and the API's connections still open once the plugin has unloaded (the plugin's
// Agent is destroyed with it; the global fetch's pool would keep its idle connection).

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('searches go through the plugin Agent (never the global fetch), whose connections close when the plugin unloads', async () => {
  const open = new Set<Socket>()
  let requests = 0
  const server = createServer((request, response) => {
    requests++
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ ok: true }))
    })
  })
  server.on('connection', (socket) => {
    open.add(socket)
    socket.on('close', () => open.delete(socket))
    socket.unref()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const fetchSpy = vi.spyOn(globalThis, 'fetch')

  const options: KeyedSearchOptions = { apiKey: 'k', apiKeyEnv: 'DSH_TEST_KEYED_AGENT_KEY', timeoutMs: 5_000, maxResponseBytes: 100_000 }
  const spec: Parameters<typeof registerKeyedSearch<KeyedSearchOptions>>[1] = {
    id: 'agent',
    name: 'Agent',
    row: 'web-search-agent',
    event: 'web/agent-search-request',
    options: () => options,
    endpoint: () => `${origin}/search`,
    request: () => ({ url: new URL(`${origin}/search?q=1`), method: 'GET', headers: { 'user-agent': 'dsh-test/1' }, record: {} }),
    refusal: (status, headers) => ({ fault: httpFault(status, headers) }),
    map: () => ({ sources: [{ url: 'https://example.com/', title: 't', snippet: 's' }], truncated: false }),
  }
  const plugin = { name: 'web-search-agent', inject: ['web'], apply: (ctx: Context) => registerKeyedSearch(ctx, spec) }
  const { app, fork, stop } = await providerHost(plugin, {}, {})
  cleanups.push(stop)
  for (let i = 0; i < 3; i++) expect((await app.web.search({ query: 'q' })).sources).toHaveLength(1)
  expect(requests).toBe(3)
  expect(fetchSpy).toHaveBeenCalledTimes(0)
  // Keep-alive: the searches' connections stay open while the plugin is loaded.
  expect(open.size).toBeGreaterThan(0)
  fork.dispose()
  await app.events.flush()
  await vi.waitFor(() => expect(open.size).toBe(0))
})
