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
