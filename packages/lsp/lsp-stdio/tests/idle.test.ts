// Issue 27 item 2: every query re-armed its server's idle timer (a clearTimeout and a setTimeout
// per query). The deadline moves instead; the one timer is armed again only when it fires early.
// Fake timers: counts and order, no wall-clock waits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { IdleEviction } from '../src/idle.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  // The spy on setTimeout wraps the fake one: restored first, or the fake would stay behind (the suite runs unisolated).
  vi.restoreAllMocks()
  vi.useRealTimers()
})

describe('IdleEviction', () => {
  it('a server used again and again keeps one timer, and goes idleTimeoutMs after its last use', () => {
    const evicted: string[] = []
    const idle = new IdleEviction<string>(1000, (item) => evicted.push(item))
    const armed = vi.spyOn(globalThis, 'setTimeout')
    for (let use = 0; use < 100; use++) {
      idle.schedule('server')
      vi.advanceTimersByTime(9)
    }
    // 100 uses, the last at 891 ms: one timer so far.
    expect(armed).toHaveBeenCalledTimes(1)
    // It fires at 1000 ms, early for the last use's deadline (1891 ms): armed once more, for the rest.
    vi.advanceTimersByTime(100)
    expect(armed).toHaveBeenCalledTimes(2)
    vi.advanceTimersByTime(890)
    expect(evicted).toEqual([])
    vi.advanceTimersByTime(1)
    expect(evicted).toEqual(['server'])
    expect(armed).toHaveBeenCalledTimes(2)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('cancel and clear stop the countdowns; a schedule after them starts a new one', () => {
    const evicted: string[] = []
    const idle = new IdleEviction<string>(1000, (item) => evicted.push(item))
    idle.schedule('a')
    idle.schedule('b')
    idle.cancel('a')
    vi.advanceTimersByTime(500)
    idle.clear()
    vi.advanceTimersByTime(2000)
    expect(evicted).toEqual([])
    idle.schedule('a')
    vi.advanceTimersByTime(1000)
    expect(evicted).toEqual(['a'])
  })
})
