// The real reference server, @modelcontextprotocol/server-everything (a pinned dependency, started
// from node_modules/.bin) over stdio through ctx.subprocess (checklist 100, 108–111).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRig, stopRigs, type Rig } from './fixtures/rig.ts'

let rig: Rig

beforeAll(async () => {
  process.env.EVERYTHING_TEST_SECRET_KEY = 'must-not-leak'
  rig = await startRig()
  await rig.add({ transport: 'stdio', serverName: 'everything', command: 'mcp-server-everything', args: ['stdio'], env: { EVERYTHING_EXPLICIT: 'set on purpose' }, shutdownGraceMs: 500 })
})

afterAll(async () => {
  delete process.env.EVERYTHING_TEST_SECRET_KEY
  await stopRigs()
})

describe('server-everything over stdio', () => {
  it('discovers its tools under mcp__everything__ and reports ready', async () => {
    const names = rig.toolNames()
    expect(names.length).toBeGreaterThanOrEqual(8)
    expect(names).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum', 'mcp__everything__get-tiny-image', 'mcp__everything__get-structured-content']))
    const status = await rig.status('everything')
    expect(status.state).toBe('ready')
    expect(status.detail).toMatch(/^ready: \d+ tools; mcp-servers\/everything [\d.]+, protocol 2025-11-25, pid \d+$/)
    expect(status.tools).toEqual(names)
  })

  it('echo and get-sum answer', async () => {
    expect(await rig.text('mcp__everything__echo', { message: 'hello' })).toBe('Echo: hello')
    expect(await rig.text('mcp__everything__get-sum', { a: 3, b: 7 })).toContain('10')
  })

  it('get-tiny-image: the model sees the text and a note for the PNG; the value keeps the data', async () => {
    const result = await rig.call('mcp__everything__get-tiny-image')
    if (result.isError) throw new Error(JSON.stringify(result))
    const text = result.content[0]!.text
    expect(text).toMatch(/\[image: image\/png, \d+ bytes; the data is kept in the result value, not shown here\]/)
    const blocks = (result.value as { content: { type: string; data?: string }[] }).content
    expect(blocks.find((block) => block.type === 'image')?.data?.length).toBeGreaterThan(100)
  })

  it('get-resource-reference: the embedded resource leaves a note with its URI', async () => {
    const text = await rig.text('mcp__everything__get-resource-reference', { resourceType: 'Text', resourceId: 1 })
    expect(text).toMatch(/\[embedded resource: demo:\/\/resource\/[^\s,;]+/)
  })

  it('get-structured-content: structured content passes its output schema ($schema and all)', async () => {
    const result = await rig.call('mcp__everything__get-structured-content', { location: 'Chicago' })
    expect(result.isError).toBe(false)
    expect(result.isError === false && (result.value as { structuredContent?: unknown }).structuredContent).toMatchObject({ temperature: expect.any(Number) })
    expect(rig.logged('output schema not enforced')).toBe(false)
  })

  it('simulate-research-query requires tasks: refused with MCP_TASK_REQUIRED', async () => {
    expect(await rig.errorCode('mcp__everything__simulate-research-query', { topic: 'x' })).toBe('MCP_TASK_REQUIRED')
  })

  it('its early list_changed re-syncs without duplicates or errors', async () => {
    expect(new Set(rig.toolNames()).size).toBe(rig.toolNames().length)
    expect(rig.logged('re-sync failed')).toBe(false)
    expect(rig.logged('registration failed')).toBe(false)
  })

  it('get-env: the child has the scrubbed environment plus the explicit env', async () => {
    const env = JSON.parse(await rig.text('mcp__everything__get-env')) as Record<string, string>
    expect(env.EVERYTHING_TEST_SECRET_KEY).toBeUndefined()
    expect(env.EVERYTHING_EXPLICIT).toBe('set on purpose')
    expect(env.PATH).toBeTruthy()
  })

  it('an unknown tool name on the server is its own isError answer', async () => {
    // Reached only by a raw request; through the registry an unknown name is UNKNOWN_TOOL.
    expect(await rig.errorCode('mcp__everything__no-such-tool')).toBe('UNKNOWN_TOOL')
  })
})
