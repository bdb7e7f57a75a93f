// `dsh serve` on a tool of a server a `disabled: true` row turns off: the host never loads that row,
// so the runtime knows only UNKNOWN_TOOL; the served answer says the server is turned off, where, and
// how to turn it on (MCP_SERVER_DISABLED), as `dsh call` does, over stdio and HTTP alike. The server
// is not in tools/list.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fixturePath } from '../../../../test-support/fixture-path.ts'
import { removeTempDirs, ROOT, serveIn, tempDir } from './helpers.ts'
import { httpClient, serveHttp, stopServed } from './serve-http-support.ts'

/** The fixture MCP server (a real stdio server: add, echo, …). */
const SERVER = fixturePath(join(ROOT, 'packages', 'mcp', 'mcp', 'tests', 'fixtures', 'server.mjs'))
const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  await stopServed()
  await removeTempDirs()
})

/** Two servers of the fixture, `live` and `off`, and an overlay turning `off`'s row off. */
async function setup(): Promise<{ args: string[]; env: Record<string, string>; off: string }> {
  const dir = await tempDir()
  const server = (name: string) => `- id: mcp-${name}\n  name: dsh-mcp\n  config: { serverName: ${name}, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}], startupTimeoutMs: 60000 }\n`
  const rows = join(dir, 'servers.yml')
  await writeFile(rows, server('live') + server('off'))
  const off = join(dir, 'off.yml')
  await writeFile(off, '- id: mcp-off\n  disabled: true\n')
  return { args: ['--preset', 'base', '--config', rows, '--config', off, '--cwd', dir], env: { DSH_HOME: join(dir, 'home') }, off }
}

type Called = { isError?: boolean; content: { type: string; text: string }[] }
/** The two calls a test makes, of the SDK v1 client (stdio) and the v2 one (HTTP) alike. */
interface McpClient {
  listTools(): Promise<{ tools: { name: string }[] }>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
}

/** What a call answers, and that the disabled server is in no list while the live one is. */
async function check(client: McpClient, off: string): Promise<void> {
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  expect(names).toContain('mcp__live__echo')
  expect(names.filter((name) => name.startsWith('mcp__off__'))).toEqual([])

  const called = (await client.callTool({ name: 'mcp__off__echo', arguments: { message: 'hi' } })) as Called
  expect(called.isError).toBe(true)
  const text = called.content.map((block) => block.text).join('\n')
  expect(text).toContain(`MCP server off is turned off in ${off} (row mcp-off: disabled: true)`)
  expect(text).toContain('remove disabled: true')
  expect(text.endsWith('[MCP_SERVER_DISABLED]'), text).toBe(true)

  // A name no turned-off server explains stays UNKNOWN_TOOL; the live server answers.
  for (const name of ['mcp__nobody__echo', 'mcp__live__nope']) {
    const unknown = (await client.callTool({ name, arguments: {} })) as Called
    expect(unknown.content.at(-1)!.text.endsWith('[UNKNOWN_TOOL]'), name).toBe(true)
  }
  const live = (await client.callTool({ name: 'mcp__live__echo', arguments: { message: 'hi' } })) as Called
  expect(live.isError, JSON.stringify(live)).toBeFalsy()
}

describe('dsh serve: a tool of a server a disabled: true row turns off', () => {
  it('over stdio, answers MCP_SERVER_DISABLED naming the file and how to turn it on, not UNKNOWN_TOOL', async () => {
    const { args, env, off } = await setup()
    const client = new Client({ name: 'serve-disabled-test', version: '0' })
    await client.connect(serveIn(args, env).transport)
    clients.push(client)
    await check(client, off)
  })

  it('over HTTP (a real dsh serve --http), the same', async () => {
    const { args, env, off } = await setup()
    const served = await serveHttp(args, { env })
    await check(await httpClient(served.url, 'auto'), off)
  })
})
