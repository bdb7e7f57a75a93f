import { HarnessError } from './errors.ts'

/** setTimeout's ceiling: a larger delay fires immediately. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647

/** The abort reason a deadline carries, so callers can tell a timeout from a cancellation. */
export class TimeoutReason extends HarnessError {
  constructor(
    code: string,
    readonly ms: number,
  ) {
    super(`${code} after ${ms}ms`, code)
  }
}

export interface Deadline {
  readonly signal: AbortSignal
  /** True once this deadline's own timer fired (not the upstream signal). */
  readonly expired: boolean
  /**
   * Calls `fn` once when the signal aborts (at once if it already has). One slot, not an event
   * listener: a per-call owner (the tools runtime) learns of the abort without the cost of an
   * EventTarget listener on a hot path.
   */
  whenAborted(fn: () => void): void
  dispose(): void
}

/** A signal that aborts when `upstream` does or after `ms` (no timer when `ms` is not positive). */
export function deadline(upstream: AbortSignal | undefined, ms: number, code: string): Deadline {
  const controller = new AbortController()
  let expired = false
  let hook: (() => void) | undefined
  const abort = (reason: unknown) => {
    controller.abort(reason)
    const fn = hook
    hook = undefined
    fn?.()
  }
  const onUpstream = () => abort(upstream?.reason)
  if (upstream?.aborted) controller.abort(upstream.reason)
  else upstream?.addEventListener('abort', onUpstream, { once: true })
  const timer =
    ms > 0 && !controller.signal.aborted
      ? setTimeout(() => {
          expired = true
          abort(new TimeoutReason(code, ms))
        }, Math.min(ms, MAX_TIMER_DELAY_MS))
      : undefined
  timer?.unref?.()
  return {
    signal: controller.signal,
    get expired() {
      return expired
    },
    whenAborted(fn) {
      if (controller.signal.aborted) fn()
      else hook = fn
    },
    dispose() {
      if (timer) clearTimeout(timer)
      hook = undefined
      upstream?.removeEventListener('abort', onUpstream)
    },
  }
}

/**
 * What to throw when a signal aborted without an Error reason: a message (a plain Error is made
 * from it and the reason), or a factory so a surface can throw its own coded error.
 */
export type AbortFallback = string | ((reason: unknown) => Error)

/** The error to throw for an aborted signal: its reason when that is an Error (keeping timeouts and disposal identifiable). */
export function abortError(signal: AbortSignal, fallback: AbortFallback = 'operation aborted'): Error {
  return errorFromReason(signal.reason, fallback)
}

/** The error to throw for an abort `reason`: the reason itself when it is an Error, else one made from `fallback`. */
export function errorFromReason(reason: unknown, fallback: AbortFallback = 'operation aborted'): Error {
  if (reason instanceof Error) return reason
  if (typeof fallback === 'function') return fallback(reason)
  return new Error(typeof reason === 'string' && reason ? `${fallback}: ${reason}` : fallback)
}

export function throwIfAborted(signal: AbortSignal | undefined, fallback?: AbortFallback): void {
  if (signal?.aborted) throw abortError(signal, fallback)
}

/**
 * Waits for `work` but gives up when `signal` aborts. The work itself keeps running: its owner
 * decides how it stops. A late rejection of the abandoned work is swallowed.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, fallback?: AbortFallback): Promise<T> {
  if (!signal) return work
  if (signal.aborted) {
    work.catch(() => {})
    return Promise.reject(abortError(signal, fallback))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {})
      reject(abortError(signal, fallback))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error instanceof Error ? error : new Error(String(error)))
      },
    )
  })
}

/**
 * Resolves after `ms`, or rejects early (with the abort reason) when the signal aborts. Either way
 * its timer and its abort listener are gone once it settles, so a long-lived signal collects nothing.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal))
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal!))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, Math.min(ms, MAX_TIMER_DELAY_MS))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Waits for `work` to settle (fulfilled or rejected) for at most `ms`, or until `signal` aborts: true
 * when it settled in time. For the losing side of a race ("give the server a moment to exit"): the
 * timer and the listener are released as soon as the wait ends, whichever way, so nothing of it
 * outlives the race (a stopped host is not kept alive for the rest of a grace period).
 */
export function settlesWithin(work: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false)
  return new Promise<boolean>((resolve) => {
    const finish = (settled: boolean) => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      resolve(settled)
    }
    const onAbort = () => finish(false)
    const timer = setTimeout(finish, Math.min(ms, MAX_TIMER_DELAY_MS), false)
    signal?.addEventListener('abort', onAbort, { once: true })
    work.then(
      () => finish(true),
      () => finish(true),
    )
  })
}
