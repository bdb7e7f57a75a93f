/**
 * One timer per server: a server unused for `idleTimeoutMs` is handed to `evict`. Using a server
 * again moves its deadline without touching the timer (a query costs no timer of its own): a timer
 * that fires before the deadline it now has is armed again for the rest. The timers never keep the
 * host alive.
 */
export class IdleEviction<T> {
  private readonly countdowns = new Map<T, Countdown>()

  constructor(
    private readonly idleTimeoutMs: number,
    private readonly evict: (item: T) => void,
  ) {}

  /** (Re)starts the item's countdown. */
  schedule(item: T): void {
    const due = Date.now() + this.idleTimeoutMs
    const countdown = this.countdowns.get(item)
    if (countdown) countdown.due = due
    else this.arm(item, { due, timer: undefined })
  }

  cancel(item: T): void {
    const countdown = this.countdowns.get(item)
    if (countdown) clearTimeout(countdown.timer)
    this.countdowns.delete(item)
  }

  clear(): void {
    for (const countdown of this.countdowns.values()) clearTimeout(countdown.timer)
    this.countdowns.clear()
  }

  private arm(item: T, countdown: Countdown): void {
    countdown.timer = setTimeout(() => this.expire(item, countdown), Math.max(0, countdown.due - Date.now()))
    countdown.timer.unref()
    this.countdowns.set(item, countdown)
  }

  /** The timer fired: the item goes, unless it was used since the timer was armed. */
  private expire(item: T, countdown: Countdown): void {
    if (this.countdowns.get(item) !== countdown) return
    if (countdown.due > Date.now()) return this.arm(item, countdown)
    this.countdowns.delete(item)
    this.evict(item)
  }
}

interface Countdown {
  /** When the item is idle long enough (Date.now() milliseconds). */
  due: number
  timer: NodeJS.Timeout | undefined
}
