// A bridged tools/call hands the SDK a signal only when the call can end before the SDK's own
// deadlines do (issue 27, the MCP row): a caller's signal, or a lifetime that ends sooner. Each
// signal is an AbortController (on Node 20 the largest part of the tools runtime's cost per call),
// so a warm call without a caller's signal makes none. Cancellation still reaches the server:
// a caller's abort and the call's own deadline both send notifications/cancelled (the fixture's
// `hang` counts them). Counted on real calls to the stdio fixture. Also counted: the stdio
// transport's writes schedule no process.nextTick (no write callback, as the SDK's own transport).
import { createHook } from 'node:async_hooks'
import { getEventListeners } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { abortControllersMadeBy } from '../../../../test-support/abort-controllers.ts'
import { eventually, fixtureRow, sharedRigOf, startRig, stopRigs, type Rig } from './fixtures/rig.ts'

const dir = mkdtempSync(join(tmpdir(), 'dsh-call-signal-'))
afterAll(async () => {
  await stopRigs()
  rmSync(dir, { recursive: true, force: true })
})

/**
 * The fixture's hang log (FIXTURE_HANG_LOG): `hang <id>` as a hang call reaches the server,
 * `cancelled <id>` as its notifications/cancelled does. Read from a file, not through a tool
 * call, so no check here has to beat a row's short deadline on a loaded machine.
 */
function hangLog(name: string): { env: { FIXTURE_HANG_LOG: string }; lines: () => string[] } {
  const file = join(dir, name)
  writeFileSync(file, '')
  return { env: { FIXTURE_HANG_LOG: file }, lines: () => readFileSync(file, 'utf8').split('\n').filter(Boolean) }
}

/** How many ticks for a stream write's callback `work` scheduled (process.nextTick(afterWrite…)). */
async function writeTicksOf(work: () => Promise<void>): Promise<number> {
  let count = 0
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject' && /^afterWrite/.test((resource as { callback?: { name?: string } }).callback?.name ?? '')) count++
    },
  })
  hook.enable()
  try {
    await work()
  } finally {
    hook.disable()
  }
  return count
}

async function cancellations(rig: Rig): Promise<number> {
  return (JSON.parse(await rig.text('mcp__fixture__counters')) as { cancelled: number }).cancelled
}

describe('a bridged tools/call and its signal', () => {
  const sharedLog = hangLog('shared')
  const sharedRig = sharedRigOf(fixtureRow({ env: sharedLog.env }))

  it('a warm call without a caller signal makes no AbortController', async () => {
    const rig = await sharedRig()
    expect(await rig.text('mcp__fixture__echo', { message: 'warm' })).toBe('Echo: warm')
    const { result, made } = await abortControllersMadeBy(async () => {
      const texts: string[] = []
      for (let i = 0; i < 5; i++) texts.push(await rig.text('mcp__fixture__echo', { message: `hi ${i}` }))
      return texts
    })
    expect(result).toEqual(['Echo: hi 0', 'Echo: hi 1', 'Echo: hi 2', 'Echo: hi 3', 'Echo: hi 4'])
    expect(made).toBe(0)
  })

  it('a warm call\'s write to the server schedules no process.nextTick', async () => {
    const rig = await sharedRig()
    expect(await rig.text('mcp__fixture__echo', { message: 'warm' })).toBe('Echo: warm')
    // Node runs a write's callback in a tick of its own (afterWrite / afterWriteTick); a write without
    // one that the pipe takes at once schedules nothing. Only those ticks are counted: the process
    // has others (the pipe reads', the test runner's) that this change does not touch.
    const ticks = await writeTicksOf(async () => {
      for (let i = 0; i < 5; i++) await rig.text('mcp__fixture__echo', { message: `hi ${i}` })
    })
    expect(ticks).toBe(0)
  })

  it('a long-lived caller signal handed to every call keeps no listener of any call', async () => {
    const rig = await sharedRig()
    // A harness's session signal, given to each call: the call's lifetime follows it until the
    // call answers, and the SDK's request gets that lifetime's own signal, never this one.
    const session = new AbortController()
    for (let i = 0; i < 20; i++) expect((await rig.call('mcp__fixture__echo', { message: `s ${i}` }, session.signal)).isError).toBe(false)
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0)
  })

  it('a caller abort is ABORTED and the server gets notifications/cancelled', async () => {
    const rig = await sharedRig()
    const before = await cancellations(rig)
    const controller = new AbortController()
    const calls = sharedLog.lines().filter((line) => line.startsWith('hang ')).length
    const pending = rig.call('mcp__fixture__hang', {}, controller.signal)
    // Aborted once the server has the call (an abort 50 ms after the send could come before it on a loaded machine).
    await eventually(() => expect(sharedLog.lines().filter((line) => line.startsWith('hang ')).length).toBe(calls + 1))
    controller.abort()
    const result = await pending
    expect(result.isError && result.error.code).toBe('ABORTED')
    expect(await cancellations(rig)).toBe(before + 1)
  })

  it('a caller signal that times out first (AbortSignal.timeout) cancels the request too', async () => {
    const rig = await sharedRig()
    const before = await cancellations(rig)
    const result = await rig.call('mcp__fixture__hang', {}, AbortSignal.timeout(100))
    expect(result.isError && result.error.code).toBe('ABORTED')
    expect(await cancellations(rig)).toBe(before + 1)
  })

  it('the call\'s own deadline (toolCallTimeoutMs) is TOOL_TIMEOUT and the server gets notifications/cancelled', async () => {
    const rig = await startRig()
    const log = hangLog('deadline')
    // 200 ms bounds only the hang, which never answers; the count is read from the log, not by a
    // counters call that would have to answer within 200 ms too (it did not at load 20).
    await rig.add(fixtureRow({ toolCallTimeoutMs: 200, resetTimeoutOnProgress: false, env: log.env }))
    const result = await rig.call('mcp__fixture__hang')
    expect(result.isError && result.error).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'tool call timed out after 200 ms without an answer' })
    const id = (await eventually(() => log.lines().find((line) => line.startsWith('hang ')) ?? expect.fail('no hang call')))!.slice('hang '.length)
    await eventually(() => expect(log.lines()).toEqual([`hang ${id}`, `cancelled ${id}`]))
  })
})
