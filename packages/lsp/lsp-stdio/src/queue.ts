import { errorFromReason, type AbortFallback } from 'dsh-core'
import { queryAborted } from './aborted.ts'
import { settling } from './settling.ts'

/** What a turn's wait is bound by (a `Lifetime`, or a call's `CallScope`). */
export interface QueueWaiter {
  readonly aborted: boolean
  readonly reason: unknown
  race<T>(work: Promise<T>, fallback?: AbortFallback): Promise<T>
}

/**
 * The turn running now for a key, whose end a later turn (or `drained`) waits for. Its promise is
 * made only when someone waits: a turn nobody queues behind (the common case) makes none.
 */
class Turn {
  private ended = false
  private waited: Promise<void> | undefined
  private release: (() => void) | undefined

  /** Resolves once the turn has ended. */
  get over(): Promise<void> {
    if (this.ended) return Promise.resolve()
    return (this.waited ??= new Promise<void>((resolve) => (this.release = resolve)))
  }

  end(): void {
    this.ended = true
    this.release?.()
  }
}

/**
 * Serialises work per key (a canonical workspace), so one query's read → didOpen → request →
 * didClose runs whole before the next. An aborted waiter gives up at once, but the queue's tail
 * keeps following the work actually running, so nobody overtakes it. Tails never reject.
 */
export class WorkQueue {
  private readonly tails = new Map<string, Turn | Promise<void>>()

  /** `work` at the key's turn; a waiter gives up when `waiter` aborts (its reason, else LSP_ABORTED). */
  run<T>(key: string, waiter: QueueWaiter, work: () => Promise<T>): Promise<T> {
    const waiting = this.tails.get(key)
    return waiting ? this.after(key, waiting instanceof Turn ? waiting.over : waiting, waiter, work) : this.now(key, waiter, work)
  }

  /** True when nothing is queued or running for `key`: work `run` now would start in this call. */
  idle(key: string): boolean {
    return !this.tails.has(key)
  }

  /** Resolves once everything queued so far has run. */
  async drained(): Promise<void> {
    await Promise.all([...this.tails.values()].map((tail) => (tail instanceof Turn ? tail.over : tail)))
  }

  /**
   * Nothing queued (the common case, twice per change): the work starts in this call, with no wait
   * to give up on and so no waiter on the lifetime, and no promise for the turn unless another
   * queues behind it. Its turn is in place before it starts, so a turn it queues itself comes after it.
   */
  private now<T>(key: string, waiter: QueueWaiter, work: () => Promise<T>): Promise<T> {
    const turn = new Turn()
    this.tails.set(key, turn)
    // Both settlements end the turn; the caller gets the work's promise itself and handles its rejection.
    return settling(
      () => {
        if (waiter.aborted) throw errorFromReason(waiter.reason, queryAborted)
        return work()
      },
      () => {
        if (this.tails.get(key) === turn) this.tails.delete(key)
        turn.end()
      },
    )
  }

  private after<T>(key: string, waiting: Promise<void>, waiter: QueueWaiter, work: () => Promise<T>): Promise<T> {
    const result = waiter.race(waiting, queryAborted).then(work)
    const tail = waiting.then(() => result).then(
      () => {},
      () => {},
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }
}
