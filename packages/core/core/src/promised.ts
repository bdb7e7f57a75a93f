/**
 * `work()`, with a synchronous throw turned into a rejected promise: what an async function gives,
 * without its own promise and microtask turn around the one `work` returns. For warm paths that
 * answer with the promise of the step they hand to, yet must never throw at their caller.
 */
export function promised<R>(work: () => Promise<R>): Promise<R> {
  try {
    return work()
  } catch (error) {
    return Promise.reject(error)
  }
}
