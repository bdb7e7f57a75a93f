// Both protocol revisions from one composition (issue 28 items 1–2): a 2026-07-28-only server (the
// SDK v2's createMcpHandler, stateless, initialize refused) over Streamable HTTP and the real
// server-everything (2025-11-25) over stdio. Names, schemas and call results are those a bare SDK
// v2 client sees on each; status names the revision in use; a pinned revision the server does not
// speak is one coded error and no reconnection.
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publicToolName } from '../src/naming.ts'
import { startModernServer, type ModernServer } from './fixtures/modern-server.ts'
import { eventually, FAST_RECONNECT, startRig, stopRigs, type Rig } from './fixtures/rig.ts'

const EVERYTHING = join(resolve(fileURLToPath(new URL('../../../../', import.meta.url))), 'node_modules/.bin/mcp-server-everything')

let rig: Rig
let modern: ModernServer
const bare: { modern?: Client; everything?: Client } = {}

beforeAll(async () => {
  modern = await startModernServer()
  rig = await startRig()
  await rig.add({ transport: 'streamable-http', serverName: 'modern', url: modern.url, oauth: false, startupTimeoutMs: 20_000 })
  await rig.add({ transport: 'stdio', serverName: 'everything', command: 'mcp-server-everything', args: ['stdio'], shutdownGraceMs: 500, startupTimeoutMs: 20_000 })
  bare.modern = new Client({ name: 'bare', version: '0' }, { versionNegotiation: { mode: 'auto' } })
  await bare.modern.connect(new StreamableHTTPClientTransport(new URL(modern.url)))
  // With the capabilities the bridge declares (elicitation; no roots without `roots: true`).
  bare.everything = new Client({ name: 'bare', version: '0' }, { capabilities: { elicitation: { form: {}, url: {} } } })
  await bare.everything.connect(new StdioClientTransport({ command: EVERYTHING, args: ['stdio'], stderr: 'ignore' }))
}, 60_000)

afterAll(async () => {
  await bare.modern?.close()
  await bare.everything?.close()
  await stopRigs()
  await modern?.close()
})

/** The bridge's catalog entries of one server, by raw name, next to the bare client's tools. */
function sameTools(serverName: string, tools: Tool[]): void {
  const catalog = new Map(rig.app.tools.catalog().map((entry) => [entry.name, entry]))
  const ours = [...catalog.keys()].filter((name) => name.startsWith(`mcp__${serverName}__`)).sort()
  // Task-only tools are published too (they fail with MCP_TASK_REQUIRED when called).
  expect(ours).toEqual(tools.map((tool) => publicToolName(serverName, tool.name)).sort())
  for (const tool of tools) expect(catalog.get(publicToolName(serverName, tool.name))!.parameters, tool.name).toEqual(tool.inputSchema)
}

describe('one composition, both revisions', () => {
  it('speaks 2026-07-28 to the modern server and 2025-11-25 to server-everything, and status says so', async () => {
    const modernStatus = await rig.status('modern')
    expect(modernStatus.state).toBe('ready')
    expect(modernStatus.detail).toContain('protocol 2026-07-28')
    const everythingStatus = await rig.status('everything')
    expect(everythingStatus.state).toBe('ready')
    expect(everythingStatus.detail).toContain('protocol 2025-11-25')
    // Stateless: no initialize reached the server that refuses it, and it was asked server/discover.
    expect(modern.methods).toContain('server/discover')
    expect(modern.methods).not.toContain('initialize')
  })

  it('lists the same tools, with the same schemas, as a bare SDK v2 client on each server', async () => {
    sameTools('modern', (await bare.modern!.listTools()).tools)
    sameTools('everything', (await bare.everything!.listTools()).tools)
  })

  it('answers calls as a bare SDK v2 client does', async () => {
    for (const [serverName, client, tool, args] of [
      ['modern', bare.modern!, 'echo', { message: 'hello' }],
      ['modern', bare.modern!, 'structured', { city: 'Oslo' }],
      ['everything', bare.everything!, 'echo', { message: 'hello' }],
      ['everything', bare.everything!, 'get-sum', { a: 3, b: 7 }],
    ] as const) {
      const expected = await client.callTool({ name: tool, arguments: args })
      const result = await rig.call(publicToolName(serverName, tool), args)
      if (result.isError) throw new Error(JSON.stringify(result))
      const value = result.value as { content: unknown; structuredContent?: unknown }
      expect(value.content).toEqual(expected.content)
      expect(value.structuredContent).toEqual(expected.structuredContent)
    }
  })

  it('follows a 2026-07-28 tool-list change (subscriptions/listen)', async () => {
    expect(await rig.text('mcp__modern__add-tool', { name: 'later' })).toBe('added later')
    await eventually(() => expect(rig.toolNames()).toContain('mcp__modern__later'))
    expect(await rig.text('mcp__modern__later')).toBe('later')
  })
})

describe('a pinned revision the server does not speak', () => {
  it('is one MCP_PROTOCOL_UNSUPPORTED naming what the server said, with no reconnection', async () => {
    const sent = modern.methods.length
    await rig.add({ transport: 'streamable-http', serverName: 'pinned', url: modern.url, oauth: false, protocol: '2025-11-25', reconnect: FAST_RECONNECT })
    const status = await rig.status('pinned')
    expect(status.state).toBe('unavailable')
    expect(status.detail).toMatch(/speaks no protocol revision this row allows \(protocol: 2025-11-25\)/)
    expect(await rig.errorCode('mcp__pinned__echo', { message: 'x' })).toBe('MCP_UNAVAILABLE')
    // One initialize, refused; nothing retried it.
    expect(modern.methods.slice(sent).filter((method) => method === 'initialize')).toEqual(['initialize'])
    expect(rig.logs.filter((line) => line.includes('mcp(pinned)') && line.includes('retrying in'))).toEqual([])
  })
})
