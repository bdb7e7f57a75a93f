import { describe, expect, it, vi } from 'vitest'
import { deadline, TimeoutReason } from '../src/abort.ts'

describe('deadline', () => {
  it('aborts with the upstream reason and tells whenAborted once', () => {
    const upstream = new AbortController()
    const budget = deadline(upstream.signal, 0, 'X_TIMEOUT')
    const told = vi.fn()
    budget.whenAborted(told)
    expect(told).not.toHaveBeenCalled()
    upstream.abort('stop')
    expect(budget.signal.reason).toBe('stop')
    expect(budget.expired).toBe(false)
    expect(told).toHaveBeenCalledTimes(1)
    budget.dispose()
  })

  it('tells whenAborted at once when the upstream signal had already aborted', () => {
    const upstream = new AbortController()
    upstream.abort('early')
    const budget = deadline(upstream.signal, 1000, 'X_TIMEOUT')
    const told = vi.fn()
    budget.whenAborted(told)
    expect(told).toHaveBeenCalledTimes(1)
    expect(budget.signal.reason).toBe('early')
    budget.dispose()
  })

  it('expires on its own timer with a TimeoutReason carrying the code', async () => {
    vi.useFakeTimers()
    try {
      const budget = deadline(undefined, 50, 'X_TIMEOUT')
      const told = vi.fn()
      budget.whenAborted(told)
      await vi.advanceTimersByTimeAsync(50)
      expect(budget.expired).toBe(true)
      expect(budget.signal.reason).toBeInstanceOf(TimeoutReason)
      expect((budget.signal.reason as TimeoutReason).code).toBe('X_TIMEOUT')
      expect(told).toHaveBeenCalledTimes(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('after dispose neither the timer nor the upstream signal reaches it', async () => {
    vi.useFakeTimers()
    try {
      const upstream = new AbortController()
      const budget = deadline(upstream.signal, 50, 'X_TIMEOUT')
      const told = vi.fn()
      budget.whenAborted(told)
      budget.dispose()
      upstream.abort('late')
      await vi.advanceTimersByTimeAsync(100)
      expect(budget.signal.aborted).toBe(false)
      expect(told).not.toHaveBeenCalled()
    } finally {
      vi.useRealTimers()
    }
  })
})
