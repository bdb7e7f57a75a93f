import { Lifetime } from 'dsh-core'
import type { WebBound } from './types.ts'

/**
 * One provider call under the caller's bound: a `Lifetime` reaches the provider's lifetime form
 * (`fetchWithin`, `searchWithin`) as the same object when it has one, else the signal form gets the
 * lifetime's signal; a signal (or none) goes to the signal form. The forms are passed as methods
 * with their provider, not wrapped in closures: this is on every fetch's path.
 */
export function callBounded<P, Q, R>(
  provider: P,
  request: Q,
  bound: WebBound | undefined,
  bySignal: (this: P, request: Q, signal?: AbortSignal) => Promise<R>,
  byLifetime: ((this: P, request: Q, lifetime: Lifetime) => Promise<R>) | undefined,
): Promise<R> {
  if (!(bound instanceof Lifetime)) return bySignal.call(provider, request, bound)
  return byLifetime ? byLifetime.call(provider, request, bound) : bySignal.call(provider, request, bound.signal)
}
