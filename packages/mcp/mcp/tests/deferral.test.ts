// Issue 30 item 1: one MCP server listing 5,000 tools, through the real `dsh`. The model sees a
// small catalog with `tool_search`; an exact name always comes first; what a search loads joins the
// session's catalog (`dsh context`, `dsh serve`); a deferred tool runs by its exact name. The commands,
// `dsh serve` too, run through the CLI's main in this worker (test-support/dsh-in-process.ts,
// serve-in-process.ts): what is asked here is what they answer, not what only a process shows. What a
// `dsh call` would run after its boot (the searches, the deferred call) runs in one host of the same
// composition, booted once in this worker: each boot lists and indexes the 5,000 tools again.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { DshCallsInWorker } from './fixtures/dsh-run.ts'
import { FIXTURE_SERVER } from './fixtures/rig.ts'
import { dshInProcess } from '../../../../test-support/dsh-in-process.ts'
import { serveInProcess } from '../../../../test-support/serve-in-process.ts'

const home = mkdtempSync(join(tmpdir(), 'dsh-deferral-'))

const overlay = join(home, 'big.yml')
writeFileSync(
  overlay,
  `- name: dsh-mcp\n  config: { serverName: fixture, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE_SERVER)}], startupTimeoutMs: 60000, env: { FIXTURE_EXTRA_TOOLS: '5000', FIXTURE_PAGE_SIZE: '500' } }\n`,
)
const COMPOSITION = ['--preset', 'base', '--config', overlay]
const calls = new DshCallsInWorker(COMPOSITION, home, home)
afterAll(async () => {
  await calls.stop()
  rmSync(home, { recursive: true, force: true })
})

/** `dsh …` through the CLI's main in this worker (test-support/dsh-in-process.ts), in the composition with 5,000 tools. */
function dsh(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return dshInProcess([...args, ...COMPOSITION], { cwd: home, env: { DSH_HOME: home } })
}

type Found = { name: string; status: string; parameters: object }

async function searchFirst(query: string): Promise<Found[]> {
  const result = await calls.call('tool_search', { query })
  if (result.isError) throw new Error(JSON.stringify(result))
  return (result.value as unknown as { tools: Found[] }).tools
}

describe('5,000 tools from one MCP server', () => {
  it('dsh tools --json is the built-in tools plus tool_search, at most 20,000 bytes; --all lists every one', async () => {
    const run = await dsh(['tools', '--json'])
    expect(run.code, run.stderr).toBe(0)
    expect(Buffer.byteLength(run.stdout)).toBeLessThanOrEqual(20_000)
    const names = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)
    expect(names.at(-1)).toBe('tool_search')
    expect(names.some((name) => name.startsWith('mcp__fixture__'))).toBe(false)
    const all = await dsh(['tools', '--json', '--all'])
    const every = (JSON.parse(all.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)
    expect(every.filter((name) => name.startsWith('mcp__fixture__tool-')).length).toBe(5000)
    expect(every).not.toContain('tool_search')
  })

  it('tool_search answers an exact full or raw name first, in any case; select: loads named tools', async () => {
    expect((await searchFirst('mcp__fixture__tool-04242'))[0]).toMatchObject({ name: 'mcp__fixture__tool-04242', status: 'loaded' })
    expect((await searchFirst('tool-00007'))[0]?.name).toBe('mcp__fixture__tool-00007')
    expect((await searchFirst('TOOL-03131'))[0]?.name).toBe('mcp__fixture__tool-03131')
    expect((await searchFirst('select:mcp__fixture__add,greet')).map((tool) => tool.name)).toEqual(['mcp__fixture__add', 'mcp__fixture__greet'])
  })

  it('a deferred tool runs by its exact name without a search', async () => {
    const result = await calls.call('mcp__fixture__tool-04999', { x: 1 })
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: '5000' }])
  })

  it('dsh context --search shows the search and the session catalog ending with the loaded tool', async () => {
    const run = await dsh(['context', '--search', 'mcp__fixture__tool-00042', '--json'])
    expect(run.code, run.stderr).toBe(0)
    const messages = (JSON.parse(run.stdout) as { messages: { role: string; source: string; text: string }[] }).messages
    expect(messages[0]?.text).toContain('more tools are available but not listed: mcp__fixture__ (50')
    expect(messages.at(-2)).toMatchObject({ role: 'tool', source: 'tool_search' })
    expect(messages.at(-2)?.text).toContain('mcp__fixture__tool-00042')
    const catalog = messages.at(-1)!
    expect(catalog).toMatchObject({ role: 'system', source: 'tools' })
    expect(catalog.text.split('\n').slice(-2)).toEqual(['tool_search', 'mcp__fixture__tool-00042'])
  })

  it('dsh serve: a search loads the tool into the served session, the client hears list_changed and calls it', async () => {
    const { transport } = serveInProcess(COMPOSITION, { cwd: home, env: { DSH_HOME: home } })
    const client = new Client({ name: 'dsh-deferral-test', version: '0' })
    let changed!: () => void
    const listChanged = new Promise<void>((resolve) => (changed = resolve))
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed())
    try {
      await client.connect(transport)
      const before = (await client.listTools()).tools.map((tool) => tool.name)
      expect(before.at(-1)).toBe('tool_search')
      const found = await client.callTool({ name: 'tool_search', arguments: { query: 'tool-01234' } })
      expect(JSON.stringify(found.content)).toContain('mcp__fixture__tool-01234')
      await listChanged
      const after = (await client.listTools()).tools.map((tool) => tool.name)
      expect(after.slice(0, before.length)).toEqual(before)
      expect(after).toContain('mcp__fixture__tool-01234')
      const result = await client.callTool({ name: 'mcp__fixture__tool-01234', arguments: { x: 1 } })
      expect(result.content).toEqual([{ type: 'text', text: '1235' }])
    } finally {
      await client.close()
    }
  })
})
