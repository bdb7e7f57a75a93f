import { errorFromReason, type Lifetime } from 'dsh-core'
import { queryAborted } from './aborted.ts'
import { settling } from './settling.ts'

/**
 * Serialises work per key (a canonical workspace), so one query's read → didOpen → request →
 * didClose runs whole before the next. An aborted waiter gives up at once, but the queue's tail
 * keeps following the work actually running, so nobody overtakes it. Tails never reject.
 */
export class WorkQueue {
  private readonly tails = new Map<string, Promise<void>>()

  /** `work` at the key's turn; a waiter gives up when `lifetime` aborts (its reason, else LSP_ABORTED). */
  run<T>(key: string, lifetime: Lifetime, work: () => Promise<T>): Promise<T> {
    const waiting = this.tails.get(key)
    return waiting ? this.after(key, waiting, lifetime, work) : this.now(key, lifetime, work)
  }

  /** True when nothing is queued or running for `key`: work `run` now would start in this call. */
  idle(key: string): boolean {
    return !this.tails.has(key)
  }

  /** Resolves once everything queued so far has run. */
  async drained(): Promise<void> {
    await Promise.all(this.tails.values())
  }

  /**
   * Nothing queued (the common case, twice per change): the work starts in this call, with no wait
   * to give up on and so no waiter on the lifetime. Its tail is in place before it starts, so a turn
   * it queues itself comes after it.
   */
  private now<T>(key: string, lifetime: Lifetime, work: () => Promise<T>): Promise<T> {
    let release!: () => void
    const tail = new Promise<void>((resolve) => (release = resolve))
    this.tails.set(key, tail)
    // Both settlements end the turn; the caller gets the work's promise itself and handles its rejection.
    return settling(
      () => {
        if (lifetime.aborted) throw errorFromReason(lifetime.reason, queryAborted)
        return work()
      },
      () => {
        if (this.tails.get(key) === tail) this.tails.delete(key)
        release()
      },
    )
  }

  private after<T>(key: string, waiting: Promise<void>, lifetime: Lifetime, work: () => Promise<T>): Promise<T> {
    const result = lifetime.race(waiting, queryAborted).then(work)
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
