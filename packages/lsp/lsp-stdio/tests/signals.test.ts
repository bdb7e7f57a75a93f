// [PROC] A long-running harness sends queries for days: nothing a query attaches to a long-lived
// signal (the caller's, or the provider's own lifetime) may outlive the query.
import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { fuseSignals } from '../src/signals.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/**
 * The entries `AbortSignal.any` leaves on a parent signal (a Node internal: a Set of WeakRefs that
 * only shrinks when the parent itself is collected). Absent means none.
 */
function dependants(signal: AbortSignal): number {
  const symbol = Object.getOwnPropertySymbols(signal).find((candidate) => candidate.description === 'kDependantSignals')
  // Node's own Set, from another realm than the test's: read its size, not `instanceof Set`.
  const set = symbol ? ((signal as unknown as Record<symbol, unknown>)[symbol] as { size?: unknown } | undefined) : undefined
  return typeof set?.size === 'number' ? set.size : 0
}

const traces = (signal: AbortSignal) => ({ listeners: getEventListeners(signal, 'abort').length, dependants: dependants(signal) })

describe('fuseSignals', () => {
  it('aborts with whichever parent aborts first, and leaves nothing on either parent once disposed', () => {
    const lifetime = new AbortController()
    const caller = new AbortController()
    for (let i = 0; i < 1000; i++) fuseSignals(lifetime.signal, caller.signal).dispose()
    expect(traces(lifetime.signal)).toEqual({ listeners: 0, dependants: 0 })
    expect(traces(caller.signal)).toEqual({ listeners: 0, dependants: 0 })

    const fused = fuseSignals(lifetime.signal, caller.signal)
    const reason = new Error('caller gave up')
    caller.abort(reason)
    expect(fused.signal.aborted).toBe(true)
    expect(fused.signal.reason).toBe(reason)
    // aborting detached it from the other parent as well
    expect(traces(lifetime.signal)).toEqual({ listeners: 0, dependants: 0 })
  })

  it('an already aborted parent gives an aborted signal; no caller signal means the lifetime itself', () => {
    const lifetime = new AbortController()
    const reason = new Error('disposed')
    lifetime.abort(reason)
    expect(fuseSignals(lifetime.signal, new AbortController().signal).signal.reason).toBe(reason)
    const alone = new AbortController()
    expect(fuseSignals(alone.signal, undefined).signal).toBe(alone.signal)
  })
})

describe('queries under one long-lived caller signal', () => {
  it('leave no listener and no dependant signal behind, however many there are', async () => {
    const rig = await makeRig()
    const session = new AbortController()
    for (let i = 0; i < 100; i++) await rig.query('hover', {}, session.signal)
    expect(traces(session.signal)).toEqual({ listeners: 0, dependants: 0 })
    // and a query that fails (a missing source) cleans up the same way
    await rig.query('hover', { filePath: 'missing.ts' }, session.signal).catch(() => {})
    expect(traces(session.signal)).toEqual({ listeners: 0, dependants: 0 })
  })
})
