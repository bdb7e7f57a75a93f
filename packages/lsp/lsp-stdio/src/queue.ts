import { abortError, Lifetime } from 'dsh-core'
import { queryAborted } from './aborted.ts'

/**
 * Serialises work per key (a canonical workspace), so one query's read → didOpen → request →
 * didClose runs whole before the next. An aborted waiter gives up at once, but the queue's tail
 * keeps following the work actually running, so nobody overtakes it. Tails never reject.
 */
export class WorkQueue {
  private readonly tails = new Map<string, Promise<void>>()

  run<T>(key: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const waiting = this.tails.get(key)
    // Nothing queued (the common case): the work starts now, with no wait to give up on (no waiter
    // on the signal), and the tail is the work itself.
    if (!waiting) {
      const result = startNow(signal, work)
      const tail: Promise<void> = result.then(
        () => this.release(key, tail),
        () => this.release(key, tail),
      )
      this.tails.set(key, tail)
      return result
    }
    const result = Lifetime.run({ signal }, () => waiting, queryAborted).then(work)
    // Follows the work actually running, even when this waiter gives up.
    const tail: Promise<void> = waiting.then(() => result).then(
      () => this.release(key, tail),
      () => this.release(key, tail),
    )
    this.tails.set(key, tail)
    return result
  }

  private release(key: string, tail: Promise<void>): void {
    if (this.tails.get(key) === tail) this.tails.delete(key)
  }

  /** Resolves once everything queued so far has run. */
  async drained(): Promise<void> {
    await Promise.all(this.tails.values())
  }
}

/** `work()`, or its failure (an aborted signal's first) as a rejection. */
function startNow<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  try {
    if (signal.aborted) throw abortError(signal, queryAborted)
    return work()
  } catch (error) {
    return Promise.reject(error)
  }
}
