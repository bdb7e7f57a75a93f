/**
 * `next(value)`: in this call when `value` is a value, else once the promise fulfils (a rejection
 * passes through untouched). For warm paths whose steps answer with a value when they need not
 * wait: each such step saves a promise and a microtask turn, which `await` would spend on a value too.
 */
export function thenOrNow<T, R>(value: T | Promise<T>, next: (value: T) => Promise<R>): Promise<R>
export function thenOrNow<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R>
export function thenOrNow<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value)
}
