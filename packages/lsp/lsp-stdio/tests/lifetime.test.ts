// [PROC] The provider's calls run on children of its Lifetime (issue 27 item 1, the LSP surface's
// share): a long-lived provider and a long-lived caller signal collect nothing per query, and a
// query that times out leaves nothing behind either.
import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupRigs, makeRig, rejection } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/** What the provider's lifetime still holds: its dependants (children, races) and tracked work. */
function held(provider: object): { dependants: number; tracked: number } {
  const lifetime = (provider as { lifetime: { dependants?: Set<unknown>; pending: number } }).lifetime
  return { dependants: lifetime.dependants?.size ?? 0, tracked: lifetime.pending }
}

describe('the provider lifetime', () => {
  it('200 queries under one caller signal leave no listener on it and nothing on the provider', async () => {
    const rig = await makeRig()
    const caller = new AbortController()
    for (let i = 0; i < 200; i++) await rig.query('hover', {}, caller.signal)
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
    expect(held(rig.provider)).toEqual({ dependants: 0, tracked: 0 })
  })

  it('a timed-out request leaves nothing on the provider', async () => {
    const rig = await makeRig({ fake: { hang: ['textDocument/hover'], answerCancel: true }, server: { requestTimeoutMs: 200 } })
    const caller = new AbortController()
    expect((await rejection(rig.query('hover', {}, caller.signal))).code).toBe('LSP_TIMEOUT')
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
    expect(held(rig.provider)).toEqual({ dependants: 0, tracked: 0 })
  })
})
