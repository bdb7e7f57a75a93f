import { EventEmitter } from 'node:events'
import { MAX_TIMER_DELAY_MS, TimeoutReason } from 'dsh-core'

/**
 * One fetch's cancellation: it aborts when the caller's signal does or when the provider's own
 * backstop fires, whichever comes first, and remembers which (`expired`).
 *
 * It is an EventEmitter with `aborted` and `reason`, the other signal shape undici's `request`
 * takes, instead of dsh-core's `deadline()`: on Node 20 a new AbortSignal costs 10–15 µs and each
 * listener on one about as much again in a busy process (with undici's listener, 30–40 µs of a
 * 250 µs loopback fetch; see bench/RESULTS.md), and this object is made for every fetch. A real
 * AbortSignal is made only when something asks for one (`signal`, for a DNS lookup).
 */
export class FetchBudget extends EventEmitter {
  aborted = false
  reason: unknown = undefined
  /** True once the backstop fired (not the caller's signal). */
  expired = false
  private readonly timer: NodeJS.Timeout
  private controller: AbortController | undefined

  constructor(
    private readonly upstream: AbortSignal | undefined,
    private readonly ms: number,
    private readonly code: string,
  ) {
    super()
    // No closures: the timer gets the budget as its argument and the budget is the upstream
    // listener itself (handleEvent), which saves their allocation on every fetch.
    this.timer = setTimeout(expire, Math.min(ms, MAX_TIMER_DELAY_MS), this)
    this.timer.unref()
    if (upstream?.aborted) this.abort(upstream.reason)
    else upstream?.addEventListener('abort', this, { once: true })
  }

  /** A standard AbortSignal that follows this budget, made on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController())
      if (this.aborted) controller.abort(this.reason)
      else this.once('abort', () => controller.abort(this.reason))
    }
    return this.controller.signal
  }

  dispose(): void {
    clearTimeout(this.timer)
    this.upstream?.removeEventListener('abort', this)
  }

  /** The caller's signal aborted (this object is its listener). */
  handleEvent(): void {
    this.abort(this.upstream?.reason)
  }

  /** The backstop fired (called by the budget's own timer). */
  expire(): void {
    if (this.aborted) return
    this.expired = true
    this.abort(new TimeoutReason(this.code, this.ms))
  }

  private abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    clearTimeout(this.timer)
    this.emit('abort')
  }
}

function expire(budget: FetchBudget): void {
  budget.expire()
}
