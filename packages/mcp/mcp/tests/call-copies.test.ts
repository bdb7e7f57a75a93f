// A bridged tools/call copies the server's answer once, in the tools runtime (issue 27, the MCP row):
// the bridge's own deep toJson copy of every answer, before the runtime copied it again, is gone.
// Counted on a real call to the stdio fixture: dsh-core's public toJson is wrapped in a counter.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { fixtureRow, sharedRigOf, stopRigs } from './fixtures/rig.ts'

const copies = vi.hoisted(() => ({ toJson: 0 }))
vi.mock('dsh-core', async (original) => {
  const core = await original<typeof import('dsh-core')>()
  return { ...core, toJson: (...args: Parameters<typeof core.toJson>) => (copies.toJson++, core.toJson(...args)) }
})

afterAll(stopRigs)

describe('a warm tools/call', () => {
  const sharedRig = sharedRigOf(fixtureRow())
  it('copies the answer with no toJson of the bridge (the runtime\'s frozen copy is the only one), same value', async () => {
    const rig = await sharedRig()
    expect(await rig.text('mcp__fixture__echo', { message: 'warm' })).toBe('Echo: warm')
    const before = copies.toJson
    for (let i = 0; i < 5; i++) expect(await rig.text('mcp__fixture__echo', { message: `hi ${i}` })).toBe(`Echo: hi ${i}`)
    const result = await rig.call('mcp__fixture__add', { a: 2, b: 3 })
    expect(result.isError).toBe(false)
    expect(!result.isError && Object.isFrozen(result.value)).toBe(true)
    expect(copies.toJson - before).toBe(0)
  })

  it('a result that is not an object is still MCP_MALFORMED_RESPONSE without the copy', async () => {
    const rig = await sharedRig()
    const outcome = await rig.call('mcp__fixture__raw-result', { result: [1, 2] })
    expect(outcome.isError && outcome.error.code).toBe('MCP_MALFORMED_RESPONSE')
  })
})
