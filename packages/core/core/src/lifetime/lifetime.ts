import type { Context } from 'cordis'
import { errorFromReason, MAX_TIMER_DELAY_MS, TimeoutReason, type AbortFallback } from '../abort.ts'
import { errorMessage, HarnessError } from '../errors.ts'

/** What a lifetime tells the things that depend on it: a child, a race, a sleep, an `onAbort` callback. */
interface Dependant {
  handleAbort(reason: unknown): void
  /** The lifetime was released without aborting (a child is released with it; a race just stops listening). */
  handleRelease?(): void
}

export interface ChildOptions {
  /** The child aborts with a `TimeoutReason` after this many milliseconds; no timer when absent or not positive. */
  readonly timeoutMs?: number | undefined
  /** The timeout's code (`TimeoutReason.code`, in its message too). Default `TIMEOUT`. */
  readonly code?: string | undefined
  /** The child also aborts, with this signal's reason, when it does (a caller's signal). */
  readonly signal?: AbortSignal | undefined
}

const noop = () => {}

function expire(lifetime: Lifetime): void {
  lifetime.expire()
}

function clampDelay(ms: number): number {
  return Math.max(0, Math.min(ms, MAX_TIMER_DELAY_MS))
}

/**
 * How long some work may run, and everything that depends on that: the one cancellation primitive of
 * dsh (docs/architecture.md, "Lifetimes and cancellation").
 *
 * A lifetime ends once: it aborts (`abort`, its own timeout, its parent aborting, a followed signal
 * aborting) or it is released (`dispose`: the work it guards is over). Either way its timer, its
 * listener on a followed signal and its link to its parent go at once, so a long-lived lifetime
 * (a plugin's, from `scopeLifetime`) holds nothing of a child, race or sleep that has settled.
 *
 * Dependants are kept in a plain set, not as listeners on an `AbortSignal`: there is no
 * `AbortSignal.any`, whose dependants stay on the parent until the parent itself is collected.
 * The `signal` is made on first use, so a lifetime nobody hands to an API that wants an
 * `AbortSignal` costs no `AbortController`.
 */
export class Lifetime {
  private controller: AbortController | undefined
  private live = true
  private wasAborted = false
  private abortReason: unknown = undefined
  private timedOut = false
  private dependants: Set<Dependant> | undefined
  private parent: Lifetime | undefined
  private timer: NodeJS.Timeout | undefined
  private timeoutMs = 0
  private timeoutCode = 'TIMEOUT'
  /**
   * When this lifetime ends at the latest (`performance.now()` time): its own timer's, or its
   * parent's when that comes no later. Infinity without either.
   */
  private endsBy = Infinity
  private followed: AbortSignal | undefined
  private release: (() => void) | undefined
  private tracked: Set<Promise<void>> | undefined

  /** A root lifetime that follows `signal` (when given) and has its own timeout (when `timeoutMs` is positive). */
  static following(signal: AbortSignal | undefined, options: Omit<ChildOptions, 'signal'> = {}): Lifetime {
    const lifetime = new Lifetime()
    // The signal goes apart, not as `{ ...options, signal }`: V8 (Node 20–24) builds an object spread
    // followed by a property on a slow path, about 2 µs, more than the rest of a call's lifetime.
    lifetime.attach(undefined, options, signal)
    return lifetime
  }

  /**
   * `run` on a root of its own: `work` gets a lifetime that follows `options.signal` and has its own
   * timeout, and the call waits no longer than that lifetime.
   */
  static run<T>(options: ChildOptions, work: (own: Lifetime) => Promise<T>, fallback?: AbortFallback): Promise<T> {
    return Lifetime.following(options.signal, options).settle(work, fallback)
  }

  /** A standard signal that aborts with this lifetime (with its reason); made on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.wasAborted) this.controller.abort(this.abortReason)
    }
    return this.controller.signal
  }

  get aborted(): boolean {
    return this.wasAborted
  }

  /** Why it aborted: a `TimeoutReason` for its own timeout, else what `abort` or the parent was given. */
  get reason(): unknown {
    return this.abortReason
  }

  /** True once this lifetime's own timeout fired (not its parent's, not a followed signal). */
  get expired(): boolean {
    return this.timedOut
  }

  /**
   * When it ends at the latest (`performance.now()` time): its own timeout's, or its parent's when
   * that comes sooner; Infinity without either. A bound whose own timeout would come no sooner
   * needs no timer of its own (as `child` decides).
   */
  get deadline(): number {
    return this.endsBy
  }

  /**
   * True when it may abort before `time` (a `performance.now()` time) for a reason its holder does
   * not control: it has aborted already, follows a signal, hangs off a parent (whose owner may end
   * it), or its deadline comes first. False: only an `abort()` call can end it sooner (or nothing
   * can: it was released). Work that
   * bounds its own wait by `time`, under a lifetime nobody calls `abort()` on (a tool call's, which
   * the runtime ends only through the caller's signal and its timeout), needs no `signal` from it:
   * on Node 20 that signal's `AbortController` is the largest part of a quick call's lifetime cost.
   */
  canAbortBefore(time: number): boolean {
    if (!this.live) return this.wasAborted
    return this.followed !== undefined || this.parent !== undefined || this.endsBy < time
  }

  /** True until it aborts or is released. */
  get active(): boolean {
    return this.live
  }

  /**
   * A lifetime that ends when this one does (or earlier: its own timeout, `options.signal`). It is
   * released by `dispose()` when its work is over, which also unlinks it from this one. A timeout
   * that would end it no sooner than this one's deadline arms no timer: it then ends with this
   * one's timeout reason, and its `expired` stays false.
   */
  child(options: ChildOptions = {}): Lifetime {
    const child = new Lifetime()
    child.attach(this, options, options.signal)
    return child
  }

  /**
   * Runs `work` on a child (`options` as for `child`) and waits for it, no longer than the child
   * lives: when it aborts, the returned promise rejects with its reason (or `fallback`) and the work
   * is left to honour the child's signal. The child is released once the call settles.
   */
  run<T>(options: ChildOptions, work: (child: Lifetime) => Promise<T>, fallback?: AbortFallback): Promise<T> {
    return this.child(options).settle(work, fallback)
  }

  /** Ends this lifetime: every dependant aborts with `reason` (default: an `ABORTED` error). */
  abort(reason: unknown = new HarnessError('the operation was aborted', 'ABORTED')): void {
    this.finish(reason)
  }

  /** Releases it without aborting (its work is over): its timer, its listeners and its children go. */
  dispose(): void {
    if (!this.live) return
    this.live = false
    this.detach()
    const dependants = this.dependants
    this.dependants = undefined
    if (dependants) for (const dependant of dependants) dependant.handleRelease?.()
  }

  /** Throws the abort reason (as `race` would reject) when it has aborted. */
  throwIfAborted(fallback?: AbortFallback): void {
    if (this.wasAborted) throw errorFromReason(this.abortReason, fallback)
  }

  /**
   * Calls `fn` once when this lifetime aborts (at once if it has). Returns the remover; a release
   * removes it too. Cheaper than a listener on `signal` on a hot path.
   */
  onAbort(fn: (reason: unknown) => void): () => void {
    if (this.wasAborted) {
      fn(this.abortReason)
      return noop
    }
    if (!this.live) return noop
    const dependant: Dependant = {
      handleAbort(reason) {
        try {
          fn(reason)
        } catch (error) {
          // As an EventTarget listener's failure is: reported, and the other dependants still run.
          queueMicrotask(() => {
            throw error
          })
        }
      },
    }
    this.depend(dependant)
    return () => this.dependants?.delete(dependant)
  }

  /**
   * Waits for `work`, no longer than this lifetime: when it aborts first, rejects with its reason
   * (or `fallback`) and swallows the work's late rejection. Stops waiting, not working: the work's
   * owner decides how it stops. Its dependant goes once the race settles.
   */
  race<T>(work: Promise<T>, fallback?: AbortFallback): Promise<T> {
    if (this.wasAborted) {
      work.catch(noop)
      return Promise.reject(errorFromReason(this.abortReason, fallback))
    }
    if (!this.live) return work
    return new Promise<T>((resolve, reject) => {
      const dependant: Dependant = {
        handleAbort(reason) {
          work.catch(noop)
          reject(errorFromReason(reason, fallback))
        },
      }
      this.depend(dependant)
      work.then(
        (value) => {
          this.dependants?.delete(dependant)
          resolve(value)
        },
        (error: unknown) => {
          this.dependants?.delete(dependant)
          // errorMessage, not String(): a thrown value whose toString throws must still settle the race.
          reject(error instanceof Error ? error : new Error(errorMessage(error)))
        },
      )
    })
  }

  /** Resolves after `ms`, or rejects with the reason when this lifetime aborts first; its timer goes either way. */
  sleep(ms: number): Promise<void> {
    if (this.wasAborted) return Promise.reject(errorFromReason(this.abortReason))
    return new Promise<void>((resolve, reject) => {
      const dependant: Dependant = {
        handleAbort(reason) {
          clearTimeout(timer)
          reject(errorFromReason(reason))
        },
      }
      const timer = setTimeout(() => {
        this.dependants?.delete(dependant)
        resolve()
      }, clampDelay(ms))
      if (this.live) this.depend(dependant)
    })
  }

  /**
   * True when `work` settles (either way) within `ms`; false when the time runs out or this lifetime
   * aborts first. For the losing side of a race ("give the server a moment to exit"): the timer and
   * the dependant go as soon as the wait ends, so a stopped host is not kept alive by it.
   */
  within(work: Promise<unknown>, ms: number): Promise<boolean> {
    if (this.wasAborted) return Promise.resolve(false)
    return new Promise<boolean>((resolve) => {
      let waiting = true
      const finish = (settled: boolean) => {
        if (!waiting) return
        waiting = false
        clearTimeout(timer)
        this.dependants?.delete(dependant)
        resolve(settled)
      }
      const dependant: Dependant = { handleAbort: () => finish(false) }
      const timer = setTimeout(finish, clampDelay(ms), false)
      if (this.live) this.depend(dependant)
      work.then(
        () => finish(true),
        () => finish(true),
      )
    })
  }

  /**
   * Keeps `work` until it settles, so `settled()` can wait for it (a disposal waiting for in-flight
   * requests). Returns `work`; its rejection is not reported here (its caller handles it).
   */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(noop, noop)
    const tracked = (this.tracked ??= new Set())
    tracked.add(settled)
    void settled.then(() => tracked.delete(settled))
    return work
  }

  /** How many tracked promises have not settled yet. */
  get pending(): number {
    return this.tracked?.size ?? 0
  }

  /** Resolves once every tracked promise, including any tracked while waiting, has settled. */
  async settled(): Promise<void> {
    while (this.tracked?.size) await Promise.all([...this.tracked])
  }

  /** @internal The followed signal aborted (this object is its listener, so no closure per lifetime). */
  handleEvent(): void {
    this.finish(this.followed?.reason)
  }

  /** @internal The parent aborted. */
  handleAbort(reason: unknown): void {
    this.finish(reason)
  }

  /** @internal The parent was released. */
  handleRelease(): void {
    this.dispose()
  }

  /** @internal This lifetime's own timer fired. */
  expire(): void {
    if (!this.live) return
    this.timedOut = true
    this.finish(new TimeoutReason(this.timeoutCode, this.timeoutMs))
  }

  /** @internal Called once when this lifetime ends (either way); `scopeLifetime` removes its effect with it. */
  onEnd(release: () => void): void {
    if (this.live) this.release = release
    else release()
  }

  private attach(parent: Lifetime | undefined, options: Omit<ChildOptions, 'signal'>, signal: AbortSignal | undefined): void {
    if (parent?.wasAborted) return this.finish(parent.abortReason)
    if (signal?.aborted) return this.finish(signal.reason)
    if (parent?.live) {
      this.parent = parent
      parent.depend(this)
    }
    if (signal) {
      this.followed = signal
      signal.addEventListener('abort', this)
    }
    const inherited = this.parent ? this.parent.endsBy : Infinity
    this.endsBy = inherited
    const ms = options.timeoutMs ?? 0
    if (ms > 0) {
      this.timeoutMs = ms
      if (options.code) this.timeoutCode = options.code
      const delay = clampDelay(ms)
      const own = performance.now() + delay
      // The parent ends this lifetime by then anyway (with its own reason, as its earlier timer
      // would have): a call's budget and the fetch under it with the same bound make one timer.
      if (own < inherited) {
        this.endsBy = own
        this.timer = setTimeout(expire, delay, this)
        // A bound on work, not work itself: it must not keep a finished process alive.
        this.timer.unref()
      }
    }
  }

  /** Races `work(this)` against this lifetime, then releases it. */
  private async settle<T>(work: (own: Lifetime) => Promise<T>, fallback: AbortFallback | undefined): Promise<T> {
    try {
      return await this.race(work(this), fallback)
    } finally {
      this.dispose()
    }
  }

  private depend(dependant: Dependant): void {
    ;(this.dependants ??= new Set()).add(dependant)
  }

  private finish(reason: unknown): void {
    if (!this.live) return
    this.live = false
    this.wasAborted = true
    this.abortReason = reason
    this.detach()
    this.controller?.abort(reason)
    const dependants = this.dependants
    this.dependants = undefined
    if (dependants) for (const dependant of dependants) dependant.handleAbort(reason)
  }

  private detach(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.followed?.removeEventListener('abort', this)
    this.followed = undefined
    this.parent?.dependants?.delete(this)
    this.parent = undefined
    const release = this.release
    this.release = undefined
    release?.()
  }
}

/**
 * The lifetime of a cordis scope (a plugin's or fork's `ctx`): it aborts with `reason()` when the
 * scope is disposed (default: a `DISPOSED` error), and is already aborted when the scope is no
 * longer active. Take it once, in `apply` or a service's constructor, and hand per-call work a
 * `child()`: each call makes an effect on the scope until the lifetime ends, and ending it early
 * (`dispose`, `abort`) removes that effect.
 */
export function scopeLifetime(ctx: Context, reason: () => unknown = () => new HarnessError('the plugin was unloaded', 'DISPOSED')): Lifetime {
  const lifetime = new Lifetime()
  let remove: () => void
  try {
    remove = ctx.effect(() => () => {
      if (lifetime.active) lifetime.abort(reason())
    })
  } catch (error) {
    // cordis refuses an effect on a scope that is already disposed: so is its lifetime.
    if ((error as { code?: unknown } | null)?.code !== 'INACTIVE_EFFECT') throw error
    lifetime.abort(reason())
    return lifetime
  }
  lifetime.onEnd(remove)
  return lifetime
}
