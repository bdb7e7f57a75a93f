/**
 * Wakes whoever waits for a server's next report (work begun or ended, from `$/progress` or the
 * log), so the status probe can let start-up work end (`probeSettleMs`) without polling.
 */
export class ReportWaits {
  private readonly waiting = new Set<() => void>()

  /** `report`, then every waiter woken. */
  wrap(report: (message: string) => void): (message: string) => void {
    return (message) => {
      report(message)
      for (const wake of [...this.waiting]) wake()
    }
  }

  /** Settles at the next report; `cancel` drops a wait that lost its race, so nothing stays behind. */
  next(): { readonly promise: Promise<void>; cancel(): void } {
    let wake!: () => void
    const promise = new Promise<void>((resolve) => {
      wake = () => {
        this.waiting.delete(wake)
        resolve()
      }
    })
    this.waiting.add(wake)
    return { promise, cancel: () => this.waiting.delete(wake) }
  }
}
