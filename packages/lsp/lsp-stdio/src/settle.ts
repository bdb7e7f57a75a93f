/** Keeps `work`, settled either way, in `pending` until it settles, so a disposal can wait for it (the entries never reject). */
export function trackUntilSettled(pending: Set<Promise<void>>, work: Promise<unknown>): void {
  const settled = work.then(
    () => {},
    () => {},
  )
  pending.add(settled)
  void settled.then(() => pending.delete(settled))
}
