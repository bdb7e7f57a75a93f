import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { settlesWithin, sleep } from '../src/index.ts'

// Issue 16, item 8: what a race makes for itself (a timer, an abort listener) is released when the
// race settles, so a host that has stopped is not kept alive by the losing side of a race.

function timers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
}

describe('sleep', () => {
  it('leaves no abort listener on a long-lived signal once it has slept', async () => {
    const lifetime = new AbortController()
    await sleep(1, lifetime.signal)
    await sleep(1, lifetime.signal)
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0)
  })

  it('an abort clears its timer and rejects with the reason', async () => {
    const before = timers()
    const controller = new AbortController()
    const sleeping = sleep(60_000, controller.signal)
    expect(timers()).toBe(before + 1)
    controller.abort(new Error('stopped'))
    await expect(sleeping).rejects.toThrow('stopped')
    expect(timers()).toBe(before)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })
})

describe('settlesWithin', () => {
  it('is true when the work settles first, and then no timer is left', async () => {
    const before = timers()
    expect(await settlesWithin(Promise.resolve('done'), 60_000)).toBe(true)
    expect(await settlesWithin(Promise.reject(new Error('failed')), 60_000)).toBe(true)
    expect(timers()).toBe(before)
  })

  it('is false when the time runs out first', async () => {
    expect(await settlesWithin(new Promise(() => {}), 1)).toBe(false)
  })

  it('stops waiting (false) when its signal aborts, releasing the timer and the listener', async () => {
    const before = timers()
    const controller = new AbortController()
    const waiting = settlesWithin(new Promise(() => {}), 60_000, controller.signal)
    controller.abort()
    expect(await waiting).toBe(false)
    expect(timers()).toBe(before)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })
})
