// `dsh serve` on the SDK v2 server (issue 29, the serve half of issue 28): one composition answers
// a 2026-07-28 client (server/discover, the per-request envelope, list changes through
// subscriptions/listen) and a 2025-11-25 client (initialize) over stdio, with the same tools and
// results (served in the worker: serveIn); and dsh's own MCP client, configured as a user would, gets
// them through either revision from a real `dsh serve` process.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { BIN, CORE_ROWS, dshIn, ECHO_PLUGIN, ECHO_PRESET, GROW_PLUGIN, json, killRunning, removeTempDirs, ROOT, serveIn, tempDir } from './helpers.ts'

const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

/** A preset with the echo tool and `grow`, which registers one more tool per call (a catalog change). */
async function growingPreset(): Promise<string> {
  const preset = join(await tempDir(), 'preset.yml')
  await writeFile(preset, `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO_PLUGIN)}\n- id: grow\n  name: ${JSON.stringify(GROW_PLUGIN)}\n`)
  return preset
}

async function connect(preset: string, mode: 'auto' | 'legacy', onToolsChanged?: () => void): Promise<Client> {
  const client = new Client(
    { name: 'dsh-serve-revisions', version: '0' },
    { versionNegotiation: { mode }, ...(onToolsChanged ? { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() } } } : {}) },
  )
  await client.connect(serveIn(['--preset', preset]).transport)
  clients.push(client)
  return client
}

describe('dsh serve: both protocol revisions over stdio', () => {
  for (const [mode, revision] of [
    ['auto', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const) {
    it(`a ${revision} client lists what dsh tools --json lists and calls a tool`, async () => {
      const preset = await growingPreset()
      const client = await connect(preset, mode)
      expect(client.getNegotiatedProtocolVersion()).toBe(revision)
      const expected = json<{ tools: { name: string; description: string; parameters: unknown }[] }>(await dshIn(['tools', '--json', '--preset', preset])).tools
      const listed = await client.listTools()
      expect(listed.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }))).toEqual(expected)
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
      expect(result.isError ?? false).toBe(false)
      expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
      expect(result.structuredContent).toEqual({ text: 'hi', workspace: ROOT })
      const failed = await client.callTool({ name: 'echo', arguments: { text: 5 } })
      expect(failed.isError).toBe(true)
      expect(JSON.stringify(failed.content)).toContain('[INVALID_ARGS]')
    })

    it(`a ${revision} client hears that the tool list changed`, async () => {
      let heard!: () => void
      const changed = new Promise<void>((resolve) => (heard = resolve))
      const client = await connect(await growingPreset(), mode, () => heard())
      expect(client.getNegotiatedProtocolVersion()).toBe(revision)
      await client.callTool({ name: 'grow', arguments: {} })
      await changed
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('grown_1')
    })
  }
})

describe("dsh serve behind dsh's own MCP client", () => {
  for (const protocol of ['2026-07-28', '2025-11-25', 'auto'] as const) {
    it(`a dsh-mcp row with protocol ${protocol} calls the served echo tool`, async () => {
      const dir = await tempDir()
      const overlay = join(dir, 'served.yml')
      const served = ECHO_PRESET
      await writeFile(overlay, `- name: dsh-mcp\n  config: { serverName: inner, transport: stdio, protocol: ${JSON.stringify(protocol)}, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(BIN)}, serve, --preset, ${JSON.stringify(served)}], shutdownGraceMs: 2000, startupTimeoutMs: 60000 }\n`)
      const run = await dshIn(['call', 'mcp__inner__echo', '{"text":"through two hops"}', '--json', '--preset', ECHO_PRESET, '--config', overlay])
      expect(run.code, run.stderr).toBe(0)
      expect(json(run).content).toEqual([{ type: 'text', text: 'through two hops' }])
      const status = json<{ capabilities: { id: string; detail: string }[] }>(await dshIn(['status', '--json', '--preset', ECHO_PRESET, '--config', overlay]))
      const row = status.capabilities.find((capability) => capability.id === 'inner')
      expect(row?.detail).toContain(`protocol ${protocol === 'auto' ? '2026-07-28' : protocol}`)
    })
  }
})
