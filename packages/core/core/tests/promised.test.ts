// promised: the fold of a whole-body `try { return work() } catch (error) { return Promise.reject(error) }`
// that lsp-stdio, dsh-lsp and tool-lsp wrote out by hand. The promise work returns is the answer
// itself (no wrapper, no extra promise); a synchronous throw is a rejection, never a throw.
import { describe, expect, it } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { promised } from '../src/index.ts'

describe('promised', () => {
  it('answers with the promise work returns, making none of its own', () => {
    const answer = Promise.resolve(20)
    const counting = countAsyncInits()
    const got = promised(() => answer)
    expect(counting.stop()).toBe(0)
    expect(got).toBe(answer)
  })

  it('turns a synchronous throw into a rejection with the same error', async () => {
    const failure = new Error('refused')
    let answer: Promise<never> | undefined
    expect(() => {
      answer = promised(() => {
        throw failure
      })
    }).not.toThrow()
    await expect(answer).rejects.toBe(failure)
  })
})
