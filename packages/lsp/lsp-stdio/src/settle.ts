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
