// thenOrNow: the fold of `x instanceof Promise ? x.then(next) : next(x)` that the lsp warm path
// repeated a dozen times. A value goes on in the same call with no promise; a promise as `then`.
import { describe, expect, it } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { thenOrNow } from '../src/index.ts'

describe('thenOrNow', () => {
  it('calls next in this call for a value, making no promise', () => {
    const counting = countAsyncInits()
    const answer = thenOrNow(20, (value) => value + 1)
    expect(counting.stop()).toBe(0)
    expect(answer).toBe(21)
  })

  it('follows a promise as then does: its value, a promise next answers, and a rejection untouched', async () => {
    expect(await thenOrNow(Promise.resolve(20), (value) => value + 1)).toBe(21)
    expect(await thenOrNow(20, (value) => Promise.resolve(value + 2))).toBe(22)
    const failure = new Error('refused')
    let called = false
    await expect(
      thenOrNow(Promise.reject(failure), () => {
        called = true
      }),
    ).rejects.toBe(failure)
    expect(called).toBe(false)
  })

  it('lets a throw in next propagate in the call for a value (the caller\'s try sees it)', () => {
    expect(() =>
      thenOrNow('x', () => {
        throw new Error('thrown')
      }),
    ).toThrow('thrown')
  })
})
