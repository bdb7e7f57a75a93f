import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, removeTempDirs, serveIn, tempDir } from './helpers.ts'

// Issue 16, item 5: dsh serve sends structuredContent only for a tool that declares an output schema
// (and lists that schema in tools/list), not the whole canonical value of every call: that doubled
// each payload and carried data the rendering had cut (a bridged MCP tool's whole result).

const FIXTURE = fileURLToPath(new URL('./fixtures/structured.mjs', import.meta.url))
const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  await removeTempDirs()
})

async function connect(): Promise<Client> {
  const dir = await tempDir()
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, `${CORE_ROWS}- id: structured\n  name: ${JSON.stringify(FIXTURE)}\n`)
  const client = new Client({ name: 'structured-test', version: '0' })
  await client.connect(serveIn(['--preset', preset]).transport)
  clients.push(client)
  return client
}

describe('dsh serve: structured output', () => {
  it('tools/list advertises the output schema of a tool that declares one, and only then', async () => {
    const client = await connect()
    const tools = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool]))
    expect(tools.typed?.outputSchema).toEqual({
      type: 'object',
      properties: { doubled: { type: 'integer', minimum: expect.any(Number), maximum: expect.any(Number) }, note: { type: 'string' } },
      required: ['doubled'],
      additionalProperties: false,
    })
    expect(tools.plain?.outputSchema).toBeUndefined()
    expect(tools.unpublished?.outputSchema).toBeUndefined()
  })

  it('tools/call sends the value as structuredContent only for a tool with an advertised schema', async () => {
    const client = await connect()
    // The SDK client checks structuredContent against the advertised schema.
    const typed = await client.callTool({ name: 'typed', arguments: { n: 21 } })
    expect(typed.structuredContent).toEqual({ doubled: 42 })
    expect(typed.content).toEqual([{ type: 'text', text: '42' }])
    const plain = await client.callTool({ name: 'plain', arguments: {} })
    expect(plain.structuredContent).toBeUndefined()
    expect(plain.content).toEqual([{ type: 'text', text: 'two pages (shown shortened)' }])
    const unpublished = await client.callTool({ name: 'unpublished', arguments: {} })
    expect(unpublished.structuredContent).toBeUndefined()
    expect(JSON.stringify(unpublished).length).toBeLessThan(1000)
  })
})
