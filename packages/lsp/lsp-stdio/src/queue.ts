import { errorFromReason, promised, type AbortFallback } from 'dsh-core'
import { queryAborted } from './aborted.ts'

/** What a turn's wait is bound by (a `Lifetime`, or a call's `CallScope`). */
export interface QueueWaiter {
  readonly aborted: boolean
  readonly reason: unknown
  race<T>(work: Promise<T>, fallback?: AbortFallback): Promise<T>
}

/**
 * What a turn's work may tell the queue: it is over (every step of it settled). A work that takes
 * it saves the queue a promise per turn when it says so; a turn whose work does not say so ends
 * when its promise settles, which the next turn that waits for it follows.
 */
export interface TurnEnd {
  end(): void
}

/** The end a turn that waited in line is given: its queue follows its promise anyway. */
const FOLLOWED: TurnEnd = { end() {} }

/**
 * The turn running now for a key, whose end a later turn (or `drained`) waits for. Its promises
 * are made only when someone waits, or to follow a work that does not end its turn itself.
 */
class Turn implements TurnEnd {
  private ended = false
  private running: Promise<unknown> | undefined
  private following = false
  private waited: Promise<void> | undefined
  private release: (() => void) | undefined

  /** True once the turn has ended: its work said so, or its promise settled. */
  get over(): boolean {
    return this.ended
  }

  /** Resolves once the turn has ended. */
  get done(): Promise<void> {
    if (this.ended) return Promise.resolve()
    if (!this.waited) {
      this.waited = new Promise<void>((resolve) => (this.release = resolve))
      this.follow()
    }
    return this.waited
  }

  end(): void {
    this.ended = true
    this.release?.()
  }

  /** The work's promise, once `work()` returned it (a turn queued from inside the work waits for this). */
  started(running: Promise<unknown>, follow: boolean): void {
    this.running = running
    if (follow || this.waited) this.follow()
  }

  /** Ends the turn when the work's promise settles (once; not before the work has started). */
  private follow(): void {
    if (this.following || !this.running) return
    this.following = true
    const end = () => this.end()
    this.running.then(end, end)
  }
}

/**
 * Serialises work per key (a canonical workspace), so one query's read → didOpen → request →
 * didClose runs whole before the next. An aborted waiter gives up at once, but the queue's tail
 * keeps following the work actually running, so nobody overtakes it. Tails never reject.
 */
export class WorkQueue {
  private readonly tails = new Map<string, Turn | Promise<void>>()

  /**
   * `work` at the key's turn; a waiter gives up when `waiter` aborts (its reason, else LSP_ABORTED).
   * A `work` that takes its `turn` calls `turn.end()` once every step of it has settled (never
   * earlier) where it can: the queue then needs no promise to learn that the turn is over (a turn
   * it does not end ends when its promise settles, followed once someone waits). A `work` that
   * takes no argument has its promise followed at once.
   */
  run<T>(key: string, waiter: QueueWaiter, work: (turn: TurnEnd) => Promise<T>): Promise<T> {
    const waiting = this.tails.get(key)
    if (waiting === undefined || (waiting instanceof Turn && waiting.over)) return this.now(key, waiter, work)
    return this.after(key, waiting instanceof Turn ? waiting.done : waiting, waiter, work)
  }

  /** True when nothing is queued or running for `key`: work `run` now would start in this call. */
  idle(key: string): boolean {
    const waiting = this.tails.get(key)
    return waiting === undefined || (waiting instanceof Turn && waiting.over)
  }

  /** Resolves once everything queued so far has run. */
  async drained(): Promise<void> {
    await Promise.all([...this.tails.values()].map((tail) => (tail instanceof Turn ? tail.done : tail)))
  }

  /**
   * Nothing queued (the common case, twice per change): the work starts in this call, with no wait
   * to give up on and so no waiter on the lifetime, and no promise for the turn unless another
   * queues behind it (the work ends its turn itself, or the waiter follows it). Its turn is in
   * place before it starts, so a turn it queues itself comes after it.
   */
  private now<T>(key: string, waiter: QueueWaiter, work: (turn: TurnEnd) => Promise<T>): Promise<T> {
    const turn = new Turn()
    this.tails.set(key, turn)
    // The caller gets the work's promise itself and handles its rejection.
    const running = promised(() => {
      if (waiter.aborted) throw errorFromReason(waiter.reason, queryAborted)
      return work(turn)
    })
    // A work that does not take its turn cannot end it: its promise is followed at once.
    turn.started(running, work.length === 0)
    return running
  }

  private after<T>(key: string, waiting: Promise<void>, waiter: QueueWaiter, work: (turn: TurnEnd) => Promise<T>): Promise<T> {
    const result = waiter.race(waiting, queryAborted).then(() => work(FOLLOWED))
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
