// [PURE] The per-root work queue (issue 27 item 2, diagnostics after a change: a change runs two
// turns, the notice's and the request's). Its order, its aborted waiters, and what an idle turn
// costs. Counted, not timed.
import { HarnessError, Lifetime } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { WorkQueue } from '../src/queue.ts'

const never = new Lifetime()

function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('WorkQueue', () => {
  it('runs one key in order: a turn queued while another runs (even from inside it) starts after it ends', async () => {
    const queue = new WorkQueue()
    const order: string[] = []
    const first = gate()
    let nested: Promise<void> | undefined
    const a = queue.run('k', never, async () => {
      order.push('a start')
      nested = queue.run('k', never, async () => void order.push('nested'))
      await first.opened
      order.push('a end')
    })
    const b = queue.run('k', never, async () => void order.push('b'))
    const other = queue.run('other', never, async () => void order.push('other'))
    await other
    first.open()
    await Promise.all([a, b, nested])
    expect(order.slice(0, 3)).toEqual(['a start', 'other', 'a end'])
    expect(order.slice(3).sort()).toEqual(['b', 'nested'])
    await queue.drained()
  })

  it('lets an aborted waiter go at once, while later turns still wait for the running one', async () => {
    const queue = new WorkQueue()
    const running = gate()
    const order: string[] = []
    const a = queue.run('k', never, async () => {
      await running.opened
      order.push('a')
    })
    const giveUp = new Lifetime()
    const b = queue.run('k', giveUp, async () => void order.push('b'))
    const c = queue.run('k', never, async () => void order.push('c'))
    giveUp.abort('gave up')
    await expect(b).rejects.toBeInstanceOf(HarnessError)
    expect(order).toEqual([])
    running.open()
    await Promise.all([a, c])
    expect(order).toEqual(['a', 'c'])
  })

  it('refuses work on an aborted lifetime without running it, and a throwing work rejects its turn only', async () => {
    const queue = new WorkQueue()
    const aborted = new Lifetime()
    aborted.abort('gave up')
    let ran = false
    await expect(queue.run('k', aborted, async () => void (ran = true))).rejects.toBeInstanceOf(HarnessError)
    expect(ran).toBe(false)
    await expect(queue.run('k', never, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(queue.run('k', never, (() => { throw new Error('sync boom') }) as () => Promise<void>)).rejects.toThrow('sync boom')
    await expect(queue.run('k', never, async () => 7)).resolves.toBe(7)
    await queue.drained()
  })

  it('costs at most two promises of its own for a turn on an idle key, the turn starting at once', async () => {
    const queue = new WorkQueue()
    const done = Promise.resolve()
    await queue.run('k', never, () => done)
    const COUNT = 100
    let started = 0
    const counting = countAsyncInits()
    for (let index = 0; index < COUNT; index++) {
      const turn = queue.run(`k${index % 2}`, never, () => {
        started++
        return done
      })
      // Started in the call (it waited a microtask before): a notice's mark is set before the request that follows.
      expect(started).toBe(index + 1)
      await turn
    }
    const promises = counting.stop()
    // The caller's await counts one; the work returns a settled promise of its own. It was 9.
    expect(promises / COUNT).toBeLessThanOrEqual(3.5)
    await queue.drained()
  })

  it('makes no promise of its own for a turn whose work ends it, and the next turn on the key starts in the call', async () => {
    const queue = new WorkQueue()
    const done = Promise.resolve()
    const COUNT = 100
    let started = 0
    const counting = countAsyncInits()
    for (let index = 0; index < COUNT; index++) {
      // Every step of the work has settled when it says so (what the provider's attempt does once it released its server).
      const turn = queue.run('k', never, (turn) => {
        started++
        turn?.end()
        return done
      })
      expect(started).toBe(index + 1)
      await turn
    }
    const promises = counting.stop()
    expect(queue.idle('k')).toBe(true)
    // The caller's await only; 2 per turn with the queue's settlement hook on every turn.
    expect(promises / COUNT).toBeLessThanOrEqual(1.5)
    await queue.drained()
  })

  it('a turn whose work takes its end but never says it ends when its promise settles: a later turn waits for it, never overtakes it', async () => {
    const queue = new WorkQueue()
    const running = gate()
    const order: string[] = []
    const a = queue.run('k', never, async (_turn) => {
      await running.opened
      order.push('a')
    })
    expect(queue.idle('k')).toBe(false)
    const b = queue.run('k', never, async () => void order.push('b'))
    running.open()
    await Promise.all([a, b])
    expect(order).toEqual(['a', 'b'])
    // Settled and unended: the next turn follows its promise, then runs.
    const c = queue.run('k', never, async (_turn) => void order.push('c'))
    await c
    await queue.run('k', never, async () => void order.push('d'))
    expect(order).toEqual(['a', 'b', 'c', 'd'])
    await queue.drained()
  })
})
