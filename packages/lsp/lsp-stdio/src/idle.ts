/**
 * One timer per server: a server unused for `idleTimeoutMs` is handed to `evict`. Using a server
 * again restarts its timer; the timers never keep the host alive.
 */
export class IdleEviction<T> {
  private readonly timers = new Map<T, NodeJS.Timeout>()

  constructor(
    private readonly idleTimeoutMs: number,
    private readonly evict: (item: T) => void,
  ) {}

  /** (Re)starts the item's countdown. */
  schedule(item: T): void {
    this.cancel(item)
    const timer = setTimeout(() => {
      this.timers.delete(item)
      this.evict(item)
    }, this.idleTimeoutMs)
    timer.unref()
    this.timers.set(item, timer)
  }

  cancel(item: T): void {
    const timer = this.timers.get(item)
    if (timer) clearTimeout(timer)
    this.timers.delete(item)
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
  }
}
