// A tool whose inputSchema nests deeper than the host keeps is refused alone: it cost the whole
// list before, as a lost connection (MCP_CONNECT_FAILED: the SDK's tool schema, ~2,000 JSON levels,
// or the page's fingerprint, JSON.stringify at ~10,000, overflowed the stack) or as a registration
// that refused every tool of the batch (600 levels: over dsh-core's 512).
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { fixturePath } from '../../../../test-support/fixture-path.ts'
import { nestsTooDeep } from '../src/input-schema.ts'
import { startRig, stopRigs, type RowInput } from './fixtures/rig.ts'

const SERVER = fixturePath(fileURLToPath(new URL('./fixtures/deep-schema-server.mjs', import.meta.url)))

afterEach(stopRigs)

describe('a tool whose inputSchema nests too deep', () => {
  it.each([
    ['300 schema levels (600 JSON levels: over the host registration depth)', '300'],
    ['5000 schema levels (its fingerprint, JSON.stringify, and the SDK tool schema overflowed the stack)', '5000'],
  ])('%s is refused alone; the other tool is published and answers', async (_case, depth) => {
    const rig = await startRig()
    await rig.add({ transport: 'stdio', serverName: 'deep', command: process.execPath, args: [SERVER], env: { DEPTH: depth }, startupTimeoutMs: 20_000, shutdownGraceMs: 500 } as RowInput)
    const status = await rig.status('deep')
    expect(status.state).toBe('ready')
    expect(status.detail).toContain('"deep": its entry nests deeper than 512 levels (inputSchema, outputSchema or another field), more than dsh keeps')
    expect(rig.toolNames()).toContain('mcp__deep__ok')
    expect(rig.toolNames()).not.toContain('mcp__deep__deep')
    expect(await rig.text('mcp__deep__ok', {})).toBe('called ok')
  })

  it('is measured without recursion, linear in the entry', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(nestsTooDeep(deep)).toBe(true)
    expect(nestsTooDeep({ a: [{ b: 1 }], c: Array.from({ length: 100_000 }, () => ({ x: [1] })) })).toBe(false)
    expect(nestsTooDeep([[[1]]], 3)).toBe(false)
    expect(nestsTooDeep([[[[1]]]], 3)).toBe(true)
  })
})
