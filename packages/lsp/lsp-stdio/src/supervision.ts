import { oneLine } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import type { ServerConfig } from './config.ts'

/**
 * What a failed query or start means for supervision. This is the one definition of a crash: the
 * crash budget counts it, the replay and `dsh status` follow it.
 *
 * - `transport`: the server's transport failed while its caller still wanted the answer — the
 *   process exited or was killed, a pipe broke or closed, it wrote bytes that are not LSP, it
 *   logged a fatal error (`fatalLogPatterns`), or it could not be spawned. A crash, replayed once on a fresh server.
 * - `start`: the server did not answer `initialize` within `initializeTimeoutMs`. A crash, not
 *   replayed: a fresh server would make the caller wait as long again.
 * - `none`: not a crash. The caller aborted or its deadline passed; the server answered with an
 *   error, lacks the operation or answered malformed; the provider was disposed; or the server
 *   sent a message over `maxMessageBytes` (it is replaced, but the same question would get the
 *   same answer, so it is neither replayed nor held against the server).
 */
export type FailureKind = 'transport' | 'start' | 'none'

/** How a server instance tells its own transport failure apart (identity with its fatal cause). */
export interface TransportOwner {
  isTransportFailure(error: unknown): boolean
}

const CRASH_CODES: ReadonlySet<string> = new Set(['LSP_SERVER_EXITED', 'LSP_SERVER_FAILED', 'LSP_PROTOCOL_ERROR', 'LSP_SERVER_START_FAILED'])

/** The caller's bound (an AbortSignal or a Lifetime): a failure after the caller gave up is not counted. */
export interface CallerBound {
  readonly aborted: boolean
}

export function failureKind(error: unknown, instance: TransportOwner, caller: CallerBound): FailureKind {
  if (caller.aborted || !(error instanceof LspError) || !CRASH_CODES.has(error.code)) return 'none'
  if (instance.isTransportFailure(error)) return 'transport'
  return error.code === 'LSP_SERVER_START_FAILED' ? 'start' : 'none'
}

/**
 * Crash supervision for one server across workspaces: each workspace has its own budget, so one
 * broken project does not hold back the others.
 */
export class Supervision {
  private readonly budgets = new Map<string, CrashBudget>()

  constructor(
    private readonly serverId: string,
    private readonly limits: ServerConfig['crashes'],
    /** Told once each time a workspace's budget is spent: why the server is not restarted, and for how long. */
    private readonly onGiveUp?: (message: string) => void,
  ) {}

  /** Counts `error` against the workspace's budget when it is a crash, and says what it was. */
  settle(workspace: string, error: unknown, instance: TransportOwner, caller: CallerBound): FailureKind {
    const kind = failureKind(error, instance, caller)
    if (kind === 'none') return kind
    const budget = this.budget(workspace)
    // One line: the reason ends with the server's stderr tail, which may hold line breaks.
    if (budget.record(error as LspError) && this.onGiveUp) this.onGiveUp(oneLine(`${this.serverId}: not restarted for workspace ${workspace}: ${budget.blockedReason()}`))
    return kind
  }

  /** A query succeeded: the workspace's crash history is forgotten. */
  succeeded(workspace: string): void {
    this.budgets.delete(workspace)
  }

  /** Throws LSP_SERVER_CRASHED while the workspace's budget blocks restarts. */
  assertMayStart(workspace: string): void {
    this.budgets.get(workspace)?.assertMayStart()
  }

  /** Why some workspace's server may not start now, if one may not. */
  blockedReason(): string | undefined {
    for (const budget of this.budgets.values()) {
      const reason = budget.blockedReason()
      if (reason) return reason
    }
    return undefined
  }

  /** The most recent crash still on record, for status. */
  get lastCrash(): LspError | undefined {
    let last: { at: number; error: LspError } | undefined
    for (const budget of this.budgets.values()) {
      const crash = budget.lastCrash
      if (crash && (!last || crash.at > last.at)) last = crash
    }
    return last?.error
  }

  private budget(workspace: string): CrashBudget {
    let budget = this.budgets.get(workspace)
    if (!budget) this.budgets.set(workspace, (budget = new CrashBudget(this.serverId, this.limits)))
    return budget
  }
}

/**
 * Crashes inside a sliding window are counted; reaching the limit blocks restarts for a backoff
 * that doubles each time it trips (reset by a success, which discards the budget).
 */
export class CrashBudget {
  private recent: number[] = []
  private blockedUntil = 0
  private backoffMs: number
  private last: { at: number; error: LspError } | undefined

  constructor(
    private readonly serverId: string,
    private readonly limits: ServerConfig['crashes'],
  ) {
    this.backoffMs = limits.backoffMs
  }

  /** Counts a crash; true when it spent the budget (restarts are blocked from now). */
  record(error: LspError, now = Date.now()): boolean {
    this.last = { at: now, error }
    this.recent = [...this.recent.filter((at) => now - at < this.limits.windowMs), now]
    if (this.recent.length < this.limits.maxCrashes) return false
    this.blockedUntil = now + this.backoffMs
    this.backoffMs = Math.min(this.backoffMs * 2, this.limits.maxBackoffMs)
    this.recent = []
    return true
  }

  /** Why the server may not start now, if it may not. */
  blockedReason(now = Date.now()): string | undefined {
    if (now >= this.blockedUntil) return undefined
    const seconds = Math.ceil((this.blockedUntil - now) / 1000)
    return `crashed ${this.limits.maxCrashes} times within ${this.limits.windowMs} ms; restart allowed in ${seconds} s${this.last ? `; last error: ${this.last.error.message}` : ''}`
  }

  /** The last crash and when it happened. */
  get lastCrash(): { readonly at: number; readonly error: LspError } | undefined {
    return this.last
  }

  assertMayStart(): void {
    const reason = this.blockedReason()
    if (reason) throw new LspError(`${this.serverId}: ${reason}`, 'LSP_SERVER_CRASHED', { cause: this.last?.error })
  }
}
