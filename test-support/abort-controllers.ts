// Per-call cost tests count what a piece of work creates instead of timing it (see async-inits.ts).

/**
 * `work()`'s result and how many `AbortController`s were made while it ran (anywhere in this
 * process: a warm call that follows a caller's `Lifetime` should make none). The global constructor
 * is swapped for a counting subclass meanwhile and put back after, whatever happens.
 */
export async function abortControllersMadeBy<T>(work: () => Promise<T>): Promise<{ result: T; made: number }> {
  const made = { count: 0 }
  const original = globalThis.AbortController
  globalThis.AbortController = class extends original {
    constructor() {
      super()
      made.count++
    }
  }
  try {
    const result = await work()
    return { result, made: made.count }
  } finally {
    globalThis.AbortController = original
  }
}
