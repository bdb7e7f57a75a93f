// Approval (DESIGN M2, reference mcp.md §11.3 item 3): defaultApproval, per-tool toolApproval keyed by
// raw name, approvalFromAnnotations, all feeding dsh-core's gate; against the SDK fixture server and
// the real server-everything over stdio.
import type { ApprovalRequest } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { fixtureRow, startRig, stopRigs } from './fixtures/rig.ts'

afterEach(stopRigs)

const RESET = 'mcp__fixture__admin_reset_2d9bb2dfe9aa'

describe('approval against the fixture server', () => {
  it('defaultApproval: prompt gates every tool but a per-tool auto override; an approver lets the call through', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ defaultApproval: 'prompt', toolApproval: { add: 'auto' } }))
    expect(await rig.text('mcp__fixture__add', { a: 2, b: 3 })).toBe('5')
    expect(await rig.errorCode('mcp__fixture__greet', { name: 'World' })).toBe('TOOL_APPROVAL_REQUIRED')

    const asked: ApprovalRequest[] = []
    rig.app.tools.approver((request) => {
      asked.push(request)
      return { approved: true }
    })
    expect(await rig.text('mcp__fixture__greet', { name: 'World' })).toBe('Hello, World!')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ name: 'mcp__fixture__greet', arguments: { name: 'World' }, surface: 'mcp' })
  })

  it('a refusal never reaches the server, and the server stays healthy', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ toolApproval: { 'admin.reset': 'prompt' } }))
    rig.app.tools.approver((request) => (request.name === RESET ? { approved: false, reason: 'resets need a human' } : { approved: true }))
    const result = await rig.call(RESET)
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_DENIED', message: `${RESET} was denied by its approver: resets need a human` } })
    expect(await rig.text('mcp__fixture__echo', { message: 'still here' })).toBe('Echo: still here')
  })

  it('defaultApproval: deny refuses every server tool and the resource tools; a per-tool override beats it', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ defaultApproval: 'deny', toolApproval: { echo: 'auto' }, resources: true }))
    rig.app.tools.approver(() => ({ approved: true }))
    expect(await rig.errorCode('mcp__fixture__add', { a: 1, b: 1 })).toBe('TOOL_DENIED')
    expect(await rig.errorCode('mcp__fixture__list_resources')).toBe('TOOL_DENIED')
    expect(await rig.text('mcp__fixture__echo', { message: 'allowed' })).toBe('Echo: allowed')
    const denied = await rig.call('mcp__fixture__add', { a: 1, b: 1 })
    expect(denied.isError && denied.error.message).toMatch(/denied by configuration/)
  })

  it('approvalFromAnnotations: readOnlyHint → auto, destructiveHint → prompt, no hints → defaultApproval; toolApproval still wins', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ defaultApproval: 'deny', approvalFromAnnotations: true, toolApproval: { greet: 'auto' } }))
    expect(await rig.text('mcp__fixture__echo', { message: 'read only' })).toBe('Echo: read only')
    expect(await rig.errorCode(RESET)).toBe('TOOL_APPROVAL_REQUIRED')
    expect(await rig.errorCode('mcp__fixture__add', { a: 1, b: 2 })).toBe('TOOL_DENIED')
    expect(await rig.text('mcp__fixture__greet', { name: 'you' })).toBe('Hello, you!')
  })

  it('annotations are ignored unless approvalFromAnnotations is on', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ defaultApproval: 'prompt' }))
    expect(await rig.errorCode('mcp__fixture__echo', { message: 'x' })).toBe('TOOL_APPROVAL_REQUIRED')
    expect(await rig.errorCode(RESET)).toBe('TOOL_APPROVAL_REQUIRED')
  })

  it('warns about toolApproval names that match no server tool', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ toolApproval: { add: 'prompt', 'no-such-tool': 'deny', 'mcp__fixture__echo': 'deny' } }))
    expect(rig.logged('toolApproval name tools the server does not list: no-such-tool, mcp__fixture__echo')).toBe(true)
    expect(rig.logged('enabledTools/disabledTools')).toBe(false)
    expect(await rig.errorCode('mcp__fixture__add', { a: 1, b: 1 })).toBe('TOOL_APPROVAL_REQUIRED')
  })
})

describe('approval against server-everything', () => {
  it('its own annotations decide under approvalFromAnnotations: read-only tools run, the others need approval', async () => {
    const rig = await startRig()
    await rig.add({ transport: 'stdio', serverName: 'everything', command: 'mcp-server-everything', args: ['stdio'], shutdownGraceMs: 500, defaultApproval: 'prompt', approvalFromAnnotations: true })
    expect(await rig.text('mcp__everything__echo', { message: 'hello' })).toBe('Echo: hello')
    expect(await rig.text('mcp__everything__get-sum', { a: 3, b: 7 })).toContain('10')
    expect(await rig.errorCode('mcp__everything__toggle-simulated-logging')).toBe('TOOL_APPROVAL_REQUIRED')
    rig.app.tools.approver(() => ({ approved: true }))
    expect(await rig.text('mcp__everything__toggle-simulated-logging')).toMatch(/logging/i)
  })
})
