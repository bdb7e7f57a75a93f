import { promised } from 'dsh-core'

/**
 * `work()` with a synchronous throw as a rejection (dsh-core's `promised`), and `after` run once it
 * settles either way, before the caller's `await` resumes (as a `finally` would). The warm path of
 * every request goes through a few of these layers.
 */
export function settling<R>(work: () => Promise<R>, after?: () => void): Promise<R> {
  const running = promised(work)
  if (after) running.then(after, after)
  return running
}
