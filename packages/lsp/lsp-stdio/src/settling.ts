/**
 * `work()` with a synchronous throw as a rejection (what an async function gives, without its
 * promise), and `after` run once it settles either way, before the caller's `await` resumes (as a
 * `finally` would). The warm path of every request goes through a few of these layers.
 */
export function settling<R>(work: () => Promise<R>, after?: () => void): Promise<R> {
  let running: Promise<R>
  try {
    running = work()
  } catch (error) {
    running = Promise.reject(error)
  }
  if (after) running.then(after, after)
  return running
}
