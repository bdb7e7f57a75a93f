/** True when `work` settles (either way) within `ms`. The timer goes as soon as the work settles. */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms, false)
    const settled = () => {
      clearTimeout(timer)
      resolve(true)
    }
    work.then(settled, settled)
  })
}

/** Keeps `work`, settled either way, in `pending` until it settles, so a disposal can wait for it (the entries never reject). */
export function trackUntilSettled(pending: Set<Promise<void>>, work: Promise<unknown>): void {
  const settled = work.then(
    () => {},
    () => {},
  )
  pending.add(settled)
  void settled.then(() => pending.delete(settled))
}
