// A 2026-07-28 server that refuses the first request with -32022 UnsupportedProtocolVersion and
// names the revisions it speaks (the conformance suite's `request-metadata` scenario): `auto`
// negotiation asks server/discover again with a revision both speak, as a bare SDK v2 client does,
// instead of falling back to initialize, and every request carries the header and the _meta envelope.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startRig, stopRigs } from './fixtures/rig.ts'

interface Seen {
  readonly method: string
  readonly header: string | undefined
  readonly meta: unknown
}

let server: Server
let url: string
const seen: Seen[] = []

beforeAll(async () => {
  let refused = false
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      if (request.method !== 'POST') return void response.writeHead(405).end()
      const message = JSON.parse(body) as { id?: number; method: string; params?: { _meta?: Record<string, unknown> } }
      seen.push({ method: message.method, header: request.headers['mcp-protocol-version'] as string | undefined, meta: message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] })
      const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (!refused) {
        refused = true
        return json(400, { jsonrpc: '2.0', id: message.id ?? null, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: String(request.headers['mcp-protocol-version'] ?? '') } } })
      }
      if (message.id === undefined) return void response.writeHead(202).end()
      const cache = { resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' }
      if (message.method === 'server/discover') return json(200, { jsonrpc: '2.0', id: message.id, result: { ...cache, supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'refuses-once', version: '1' } } })
      if (message.method === 'tools/list') return json(200, { jsonrpc: '2.0', id: message.id, result: { ...cache, tools: [{ name: 'noop', inputSchema: { type: 'object' } }] } })
      if (message.method === 'tools/call') return json(200, { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] } })
      return json(200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  await stopRigs()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

it('after -32022 naming 2026-07-28, server/discover is asked again with it: no initialize, the envelope on every request', async () => {
  const rig = await startRig()
  await rig.add({ transport: 'streamable-http', serverName: 'picky', url, oauth: false, startupTimeoutMs: 20_000 })
  expect(await rig.text('mcp__picky__noop')).toBe('done')
  expect((await rig.status('picky')).detail).toContain('protocol 2026-07-28')
  expect(seen.map((request) => request.method)).not.toContain('initialize')
  expect(seen.slice(0, 2).map((request) => request.method)).toEqual(['server/discover', 'server/discover'])
  for (const request of seen.slice(1)) expect(request, request.method).toMatchObject({ header: '2026-07-28', meta: '2026-07-28' })
})
