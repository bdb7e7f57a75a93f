import { LspError } from 'dsh-lsp'
import type { ServerConfig } from './config.ts'

/**
 * Supervision across queries for one server in one workspace: crashes inside a sliding window
 * are counted; reaching the limit blocks restarts for a backoff that doubles each time it trips
 * and resets after a query succeeds.
 */
export class CrashBudget {
  private recent: number[] = []
  private blockedUntil = 0
  private backoffMs: number
  private lastError: LspError | undefined

  constructor(
    private readonly serverId: string,
    private readonly limits: ServerConfig['crashes'],
  ) {
    this.backoffMs = limits.backoffMs
  }

  record(error: LspError, now = Date.now()): void {
    this.lastError = error
    this.recent = [...this.recent.filter((at) => now - at < this.limits.windowMs), now]
    if (this.recent.length >= this.limits.maxCrashes) {
      this.blockedUntil = now + this.backoffMs
      this.backoffMs = Math.min(this.backoffMs * 2, this.limits.maxBackoffMs)
      this.recent = []
    }
  }

  succeeded(): void {
    this.recent = []
    this.backoffMs = this.limits.backoffMs
    this.lastError = undefined
  }

  /** Why the server may not start now, if it may not. */
  blockedReason(now = Date.now()): string | undefined {
    if (now >= this.blockedUntil) return undefined
    const seconds = Math.ceil((this.blockedUntil - now) / 1000)
    return `crashed ${this.limits.maxCrashes} times within ${this.limits.windowMs} ms; restart allowed in ${seconds} s${this.lastError ? `; last error: ${this.lastError.message}` : ''}`
  }

  /** The last crash, for status, while it is still relevant. */
  get lastCrash(): LspError | undefined {
    return this.lastError
  }

  assertMayStart(): void {
    const reason = this.blockedReason()
    if (reason) throw new LspError(`${this.serverId}: ${reason}`, 'LSP_SERVER_CRASHED', { cause: this.lastError })
  }
}
