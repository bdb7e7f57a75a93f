import { createHook } from 'node:async_hooks'

// Per-call cost tests count what a piece of work creates (promises, file-system requests) instead
// of timing it: a count does not move with the machine's load.

/**
 * Starts counting the async resources of `types` created (async_hooks `init`); `stop()` ends the
 * count and returns it. For work that is synchronous or interleaved with the test's own checks.
 */
export function countAsyncInits(types: readonly string[] = ['PROMISE']): { stop(): number } {
  let count = 0
  const hook = createHook({
    init(_id, type) {
      if (types.includes(type)) count++
    },
  })
  hook.enable()
  return {
    stop() {
      hook.disable()
      return count
    },
  }
}

/** How many async resources of `types` `work` created, its own promise and awaits included. */
export async function asyncInitsOf(work: () => Promise<unknown>, types: readonly string[] = ['PROMISE']): Promise<number> {
  const counting = countAsyncInits(types)
  let count = 0
  try {
    await work()
  } finally {
    count = counting.stop()
  }
  return count
}
