// list_changed on a big server (issue 17 item 13): notifications are coalesced (one re-list in
// flight plus at most one queued), a re-list that changes nothing changes nothing, and a change
// leaves every unchanged tool's registration as it was.
import { afterEach, describe, expect, it } from 'vitest'
import { eventually, fixtureRow, startRig, stopRigs, type Rig } from './fixtures/rig.ts'

afterEach(stopRigs)

const BIG = { FIXTURE_EXTRA_TOOLS: '5000', FIXTURE_PAGE_SIZE: '100' }

async function listStarts(rig: Rig): Promise<number> {
  return (JSON.parse(await rig.text('mcp__fixture__counters')) as { listStarts: number }).listStarts
}

describe('list_changed on a server with 5,000 tools', () => {
  it('a burst of 50 costs at most one re-list in flight plus one queued, and announces no change', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: BIG }))
    const before = await listStarts(rig)
    let changes = 0
    rig.app.on('tools/change', () => void changes++)
    expect(await rig.text('mcp__fixture__list-changed', { count: 50 })).toBe('sent 50')
    // One more change behind the burst: once it shows, every re-sync the burst caused is done.
    await rig.text('mcp__fixture__set-tools', { add: ['marker'] })
    await eventually(() => expect(rig.app.tools.get('mcp__fixture__marker')).toBeDefined())
    // The burst: one running + one queued; the marker's notification may need one more.
    expect((await listStarts(rig)) - before).toBeLessThanOrEqual(3)
    // Only the marker changed the catalog, in one change.
    expect(changes).toBe(1)
  })

  it('a change re-registers only what changed: unchanged tools keep their definitions and registration', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: BIG }))
    const add = rig.app.tools.get('mcp__fixture__add')
    const last = rig.app.tools.get('mcp__fixture__tool-04999')
    const count = rig.toolNames().length
    await rig.text('mcp__fixture__set-tools', { add: ['fresh'] })
    await eventually(() => expect(rig.app.tools.get('mcp__fixture__fresh')).toBeDefined())
    expect(rig.app.tools.get('mcp__fixture__add')).toBe(add)
    expect(rig.app.tools.get('mcp__fixture__tool-04999')).toBe(last)
    expect(rig.toolNames()).toHaveLength(count + 1)
    await rig.text('mcp__fixture__set-tools', { remove: ['fresh'] })
    await eventually(() => expect(rig.app.tools.get('mcp__fixture__fresh')).toBeUndefined())
    expect(rig.app.tools.get('mcp__fixture__add')).toBe(add)
    expect(rig.toolNames()).toHaveLength(count)
    expect(await rig.text('mcp__fixture__tool-04999', { x: 1 })).toBe('5000')
  })

  it('a changed description replaces that tool (and only the chunks holding changed tools)', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: { FIXTURE_EXTRA_TOOLS: '10' } }))
    const before = rig.app.tools.get('mcp__fixture__add')
    await rig.text('mcp__fixture__relabel', { suffix: ' (v2)' })
    await eventually(() => expect(rig.app.tools.get('mcp__fixture__add')?.description).toBe('Adds two numbers. (v2)'))
    expect(rig.app.tools.get('mcp__fixture__add')).not.toBe(before)
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 2 })).toBe('3')
  })
})

describe('a reconnect', () => {
  it('keeps the registrations of the tools the new server lists unchanged', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow())
    const add = rig.app.tools.get('mcp__fixture__add')
    await rig.call('mcp__fixture__exit-now')
    await eventually(async () => expect((await rig.status()).detail).toContain('reconnected 1 time'))
    expect(rig.app.tools.get('mcp__fixture__add')).toBe(add)
    expect(await rig.text('mcp__fixture__add', { a: 2, b: 2 })).toBe('4')
  })
})
