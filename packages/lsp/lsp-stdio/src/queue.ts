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
    // Nothing queued: no wait to give up on, so no waiter on the signal (the common case).
    const result = waiting ? Lifetime.run({ signal }, () => waiting, queryAborted).then(work) : Promise.resolve().then(() => startNow(signal, work))
    const previous = waiting ?? Promise.resolve()
    const tail = previous.then(() => result).then(
      () => {},
      () => {},
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }

  /** Resolves once everything queued so far has run. */
  async drained(): Promise<void> {
    await Promise.all(this.tails.values())
  }
}

function startNow<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  if (signal.aborted) throw abortError(signal, queryAborted)
  return work()
}
