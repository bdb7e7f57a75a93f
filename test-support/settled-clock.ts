// Tests of what dsh keeps once a file has stood still (dsh-lsp's SETTLE_MS: a read, a directory's
// markers) slept that long, two seconds each, for a condition on this process's clock.

import { setTimeout as sleep } from 'node:timers/promises'
import { onTestFinished, vi } from 'vitest'

/** Taken at import, before any spy: the clock the moved one adds to. */
const realNow = Date.now.bind(Date)

/**
 * From now to the end of the running test, `Date.now()` in this process reads `settleMs` (and a
 * margin) later than the real clock: everything written before reads as having stood still that
 * long, as after a real wait. First it waits for the file system's clock to move on (file times come
 * from a coarse clock, a tick of at most 10 ms), so a file written afterwards gets other times than
 * one written before, as after a real wait. Processes the test starts keep the real clock.
 *
 * Call it inside a test (it restores itself when the test finishes), before the test starts
 * anything that measures time with `Date.now()` across the move.
 */
export async function clockPastSettle(settleMs: number): Promise<void> {
  await sleep(20)
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + settleMs + 100)
  onTestFinished(() => spy.mockRestore())
}
