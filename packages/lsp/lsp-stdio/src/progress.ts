import { Lifetime } from 'dsh-core'
import { queryAborted } from './aborted.ts'

type Token = string | number

/**
 * Follows the server's work-done progress (`window/workDoneProgress/create`, `$/progress`).
 * A token counts as outstanding from `create` or `begin` until `end`. Two bounds keep a server
 * that never ends a token usable: a query stops waiting for a token older than `waitMs` (it
 * answers `complete: false`), and a token older than `lifetimeMs` is treated as ended (the server
 * stops looking busy, and `expired` says so).
 */
export class ProgressTracker {
  private readonly outstanding = new Map<Token, { since: number; title: string }>()
  private readonly listeners = new Set<() => void>()
  /** Bumps whenever new work starts; a query compares it before and after asking. */
  epoch = 0
  /** The last token treated as ended because it outlived `lifetimeMs`; cleared when new work starts. */
  expired: { readonly title: string; readonly lifetimeMs: number } | undefined
  /** Why the server's work will never end (it died): waiting for it throws this. */
  private failure: Error | undefined

  constructor(
    private readonly waitMs: number,
    private readonly lifetimeMs: number,
  ) {}

  created(token: Token): void {
    if (this.outstanding.has(token)) return
    this.started(token, '')
  }

  update(token: Token, value: unknown): void {
    const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined
    if (kind === 'begin') {
      const title = String((value as { title?: unknown }).title ?? '')
      const known = this.outstanding.get(token)
      if (known) known.title = title
      else this.started(token, title)
    } else if (kind === 'end') {
      if (this.outstanding.delete(token)) this.changed()
    }
  }

  /** Work the server has not finished yet. */
  get busy(): boolean {
    this.expire()
    return this.outstanding.size > 0
  }

  /** Nothing outstanding and the server alive: `waitQuiet` would answer true at once (no promise needed). */
  get quiet(): boolean {
    return !this.failure && !this.busy
  }

  /** The title of the newest outstanding work, for status lines. */
  get title(): string | undefined {
    this.expire()
    let title: string | undefined
    for (const entry of this.outstanding.values()) title = entry.title || title
    return title
  }

  /**
   * The server died: its outstanding work will never end, and must not look as if it had. Waiting
   * queries wake at once and throw `error` (the provider replays them on a new server).
   */
  fail(error: Error): void {
    this.failure ??= error
    this.changed()
  }

  /**
   * Waits until no work is outstanding, or every outstanding token has used up the wait budget.
   * True when the server is quiet (answers can be trusted as complete). Throws the failure once the
   * server died.
   */
  async waitQuiet(signal: AbortSignal): Promise<boolean> {
    const patience = Math.min(this.waitMs, this.lifetimeMs)
    for (;;) {
      if (this.failure) throw this.failure
      this.expire()
      if (!this.outstanding.size) return true
      const now = Date.now()
      const deadlines = [...this.outstanding.values()].map((entry) => entry.since + patience).filter((at) => at > now)
      if (!deadlines.length) return false
      await Lifetime.run({ signal }, () => this.nextChange(Math.min(...deadlines) - now, signal), queryAborted)
    }
  }

  private started(token: Token, title: string): void {
    this.outstanding.set(token, { since: Date.now(), title })
    this.expired = undefined
    this.epoch++
  }

  /** Drops tokens that outlived `lifetimeMs` (checked whenever someone looks, so no timer is needed). */
  private expire(): void {
    const now = Date.now()
    let dropped = false
    for (const [token, entry] of this.outstanding) {
      if (now - entry.since < this.lifetimeMs) continue
      this.outstanding.delete(token)
      this.expired = { title: entry.title || String(token), lifetimeMs: this.lifetimeMs }
      dropped = true
    }
    if (dropped) this.changed()
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener()
  }

  /** Resolves on the next `end`, after `ms`, or (cleaning up) when the signal aborts. */
  private nextChange(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.listeners.delete(done)
        signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.listeners.add(done)
      signal.addEventListener('abort', done, { once: true })
    })
  }
}
