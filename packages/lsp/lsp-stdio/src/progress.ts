import { raceAbort } from 'dsh-core'
import { queryAborted } from './aborted.ts'

type Token = string | number

/**
 * Follows the server's work-done progress (`window/workDoneProgress/create`, `$/progress`).
 * A token counts as outstanding from `create` or `begin` until `end`; a token older than the
 * indexing budget stops being waited for (a server that never ends one costs that budget once).
 */
export class ProgressTracker {
  private readonly outstanding = new Map<Token, { since: number; title: string }>()
  private readonly listeners = new Set<() => void>()
  /** Bumps whenever new work starts; a query compares it before and after asking. */
  epoch = 0

  constructor(private readonly budgetMs: number) {}

  created(token: Token): void {
    if (this.outstanding.has(token)) return
    this.outstanding.set(token, { since: Date.now(), title: '' })
    this.epoch++
  }

  update(token: Token, value: unknown): void {
    const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined
    if (kind === 'begin') {
      const title = String((value as { title?: unknown }).title ?? '')
      const known = this.outstanding.get(token)
      this.outstanding.set(token, { since: known?.since ?? Date.now(), title })
      if (!known) this.epoch++
    } else if (kind === 'end') {
      this.outstanding.delete(token)
      for (const listener of [...this.listeners]) listener()
    }
  }

  /** Work the server has not finished yet. */
  get busy(): boolean {
    return this.outstanding.size > 0
  }

  /** The title of the newest outstanding work, for status lines. */
  get title(): string | undefined {
    let title: string | undefined
    for (const entry of this.outstanding.values()) title = entry.title || title
    return title
  }

  /**
   * Waits until no work is outstanding, or every outstanding token has used up the budget.
   * True when the server is quiet (answers can be trusted as complete).
   */
  async waitQuiet(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (!this.outstanding.size) return true
      const now = Date.now()
      const deadlines = [...this.outstanding.values()].map((entry) => entry.since + this.budgetMs).filter((at) => at > now)
      if (!deadlines.length) return false
      await raceAbort(this.nextChange(Math.min(...deadlines) - now, signal), signal, queryAborted)
    }
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
