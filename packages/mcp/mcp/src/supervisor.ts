import { McpError as SdkError, ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { errorMessage, type ToolDefinition } from 'dsh-core'
import type { McpConfig } from './config.ts'
import { bridgeToolDefinition } from './definition.ts'
import { listAllTools, planTools, type PlannedTool } from './discovery.ts'
import { McpError } from './errors.ts'
import { Generation } from './generation.ts'
import { createTransport, type TransportServices } from './transport.ts'

/**
 * Longest wait for a failed or disposed connection to report closed. For stdio that is the whole
 * process group gone: stdin grace, SIGTERM grace and the SIGKILL wait of ctx.subprocess fit in it.
 */
const CLOSE_BARRIER_MS = 15_000

export type Phase =
  | { readonly kind: 'connecting'; readonly attempt: number }
  | { readonly kind: 'ready' }
  | { readonly kind: 'reconnecting'; readonly attempt: number; readonly retryAt: number }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'stopped'; readonly reason: string }

export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

export interface SupervisorOptions {
  readonly config: McpConfig
  readonly services: TransportServices
  /** Registers a generation's tools on the row's scope, all or none (throws on a taken name). Returns the disposer. */
  readonly register: (definitions: readonly ToolDefinition[]) => () => void
  readonly logger: Logger
  /** Public names the row registers itself (M4 resource tools), which server tools must not take. */
  readonly reserved: ReadonlySet<string>
  /** After each successful connect (M4 extras read instructions and prompts here). */
  readonly onConnected?: (generation: Generation, signal: AbortSignal) => Promise<void> | void
}

/** What the first attempt came to: activation waits for it. */
export interface StartupOutcome {
  readonly error?: McpError
}

/**
 * The lifecycle of one server: generations (one Client + transport per attempt), a serial sync
 * queue with a generation fence, jittered bounded reconnection, a close barrier, and disposal that
 * waits for the work to finish. See docs/mcp.md, "Lifecycle".
 */
export class Supervisor {
  private readonly config: McpConfig
  private readonly lifetime = new AbortController()
  private generationCount = 0
  private current: Generation | undefined
  /** The last generation that connected, even after it died: calls and status describe it. */
  private latest: Generation | undefined
  private unregister: (() => void) | undefined
  private toolNames: readonly string[] = []
  private queue: Promise<void> = Promise.resolve()
  private attempts: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private failedAttempts = 0
  private disposed = false
  private disposal: Promise<void> | undefined
  private lastUnmatched = ''
  phase: Phase = { kind: 'connecting', attempt: 0 }
  /** The most recent failure, kept after recovery so status can say what happened. */
  lastError: { readonly message: string; readonly at: number } | undefined
  /** A swap that failed because a foreign tool holds one of our names. */
  conflict: string | undefined
  reconnects = 0

  constructor(private readonly options: SupervisorOptions) {
    this.config = options.config
  }

  get serverName(): string {
    return this.config.serverName
  }

  /** The public names currently registered for this server. */
  get tools(): readonly string[] {
    return this.toolNames
  }

  /** The connection calls should use now, if there is one. */
  get live(): Generation | undefined {
    return this.current && !this.current.closed && this.current.connectedAt !== undefined ? this.current : undefined
  }

  get lastConnected(): Generation | undefined {
    return this.latest
  }

  /** Makes the first attempt; resolves when it has settled (never rejects). */
  start(): Promise<StartupOutcome> {
    const first = this.attempt('startup').then(
      () => ({}),
      (error: McpError) => ({ error }),
    )
    this.attempts = first.then(() => {})
    return first
  }

  /** True once `dispose()` began: the row is being unloaded. */
  get isDisposed(): boolean {
    return this.disposed
  }

  /** The coded error a call gets while the server is not connected. */
  unavailable(): McpError {
    return new McpError(`MCP server ${this.serverName} is unavailable (${this.describePhase()})`, 'MCP_UNAVAILABLE')
  }

  describePhase(): string {
    const phase = this.phase
    const last = this.lastError ? `; last error: ${this.lastError.message}` : ''
    switch (phase.kind) {
      case 'connecting':
        return `connecting${phase.attempt ? `, attempt ${phase.attempt}/${this.config.reconnect.maxAttempts}` : ''}${last}`
      case 'ready':
        return 'ready'
      case 'reconnecting': {
        const seconds = Math.max(0, Math.ceil((phase.retryAt - Date.now()) / 1000))
        return `reconnecting ${phase.attempt}/${this.config.reconnect.maxAttempts}, next attempt in ${seconds} s${last}`
      }
      case 'failed':
      case 'stopped':
        return `${phase.kind}: ${phase.reason}${last}`
    }
  }

  /**
   * Stops for good: fences every generation, cancels a pending retry, closes the connection (for
   * stdio: the process group is gone), waits for the attempt and the sync queue, and unregisters.
   */
  dispose(): Promise<void> {
    this.disposal ??= this.runDisposal()
    return this.disposal
  }

  private async runDisposal(): Promise<void> {
    this.disposed = true
    this.lifetime.abort(new McpError(`MCP server ${this.serverName}: the row is being unloaded`, 'MCP_DISPOSED'))
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.phase = { kind: 'stopped', reason: 'unloaded' }
    const generation = this.current
    this.current = undefined
    if (generation && !(await generation.close(CLOSE_BARRIER_MS))) {
      this.options.logger.error(`${this.label}: the server did not close within ${CLOSE_BARRIER_MS} ms; shutdown may be incomplete`)
    }
    await this.attempts
    await this.queue
    this.unregisterAll()
  }

  private get label(): string {
    return `mcp(${this.serverName})`
  }

  private isCurrent(generation: Generation): boolean {
    return !this.disposed && this.current === generation && !generation.closed
  }

  private async attempt(kind: 'startup' | 'retry'): Promise<void> {
    const id = ++this.generationCount
    this.phase = { kind: 'connecting', attempt: kind === 'retry' ? this.failedAttempts : 0 }
    let generation: Generation | undefined
    try {
      const transport = await createTransport(this.config, {
        services: this.options.services,
        signal: this.lifetime.signal,
        onSuspect: () => generation && this.checkAlive(generation),
      })
      if (this.disposed) throw this.lifetime.signal.reason
      generation = new Generation(id, transport, {
        onListChanged: (changed) => this.listChanged(changed),
        onClosed: (closed) => this.closed(closed),
      })
      this.current = generation
      await generation.connect(this.config.startupTimeoutMs, this.lifetime.signal)
      if (!this.isCurrent(generation)) throw this.lostDuring(generation, 'connect')
      const strict = kind === 'startup' && this.config.required
      await this.enqueue(() => this.sync(generation!, strict ? 'strict' : 'contained'))
      if (!this.isCurrent(generation)) throw this.lostDuring(generation, 'tool discovery')
      await this.options.onConnected?.(generation, this.lifetime.signal)
      if (!this.isCurrent(generation)) throw this.lostDuring(generation, 'setup')
      generation.connectedAt = Date.now()
      this.latest = generation
      this.phase = { kind: 'ready' }
      if (kind === 'retry') {
        this.reconnects++
        this.options.logger.info(`${this.label}: reconnected and re-synced ${this.toolNames.length} tools (attempt ${this.failedAttempts}/${this.config.reconnect.maxAttempts})`)
      }
    } catch (error) {
      throw await this.attemptFailed(generation, error)
    }
  }

  /**
   * Closes the failed generation and waits (bounded) until it has: no replacement may start while
   * the old server runs. Then schedules the next attempt. Returns the coded failure, which by then
   * knows how the server ended (exit code, stderr tail).
   */
  private async attemptFailed(generation: Generation | undefined, error: unknown): Promise<McpError> {
    if (this.disposed) return this.asMcpError(error, generation)
    const closed = generation ? await generation.close(CLOSE_BARRIER_MS) : true
    const failure = this.asMcpError(error, generation)
    if (this.disposed) return failure
    this.lastError = { message: failure.message, at: Date.now() }
    this.options.logger.warn(`${this.label}: connection attempt failed: ${failure.message}`)
    if (!closed) {
      if (this.current !== generation) return failure
      this.current = undefined
      this.phase = { kind: 'stopped', reason: `the failed server did not exit within ${CLOSE_BARRIER_MS} ms; reconnecting stopped so that two servers never run at once` }
      this.options.logger.error(`${this.label}: ${this.phase.reason}`)
      return failure
    }
    this.down(generation, false)
    return failure
  }

  /** The transport of `generation` closed. For an established connection that is an outage. */
  private closed(generation: Generation): void {
    if (generation.connectedAt === undefined || !(this.current === generation) || this.disposed) return
    const reason = generation.endDescription() ?? 'the connection closed'
    this.lastError = { message: reason, at: Date.now() }
    this.down(generation, true)
  }

  /** A generation is gone (or an attempt failed before it had one): schedule the next attempt, or give up. */
  private down(generation: Generation | undefined, lost: boolean): void {
    if (this.disposed || this.current !== generation) return
    this.current = undefined
    const policy = this.config.reconnect
    if (!policy.enabled) {
      const reason = lost ? 'the connection was lost and reconnect is disabled; its tools stay listed and fail until the row is reloaded' : 'the connection failed and reconnect is disabled'
      this.phase = { kind: 'stopped', reason }
      this.options.logger.error(`${this.label}: ${reason}`)
      return
    }
    if (generation?.connectedAt !== undefined && Date.now() - generation.connectedAt >= policy.stableAfterMs) this.failedAttempts = 0
    this.failedAttempts++
    if (this.failedAttempts > policy.maxAttempts) {
      const reason = `gave up after ${policy.maxAttempts} consecutive failed attempts; its tools are unregistered until the row is reloaded`
      this.phase = { kind: 'failed', reason }
      void this.enqueue(async () => this.unregisterAll())
      this.options.logger.error(`${this.label}: ${reason}`)
      return
    }
    const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (this.failedAttempts - 1))
    const delay = Math.round(base * (1 + policy.jitterRatio * (2 * Math.random() - 1)))
    this.phase = { kind: 'reconnecting', attempt: this.failedAttempts, retryAt: Date.now() + delay }
    this.options.logger.warn(`${this.label}: ${lost ? 'connection lost; reconnecting' : 'connection failed; retrying'} in ${delay}ms (attempt ${this.failedAttempts}/${policy.maxAttempts})`)
    this.timer = setTimeout(() => {
      this.timer = undefined
      const next = this.attempt('retry').catch(() => {})
      this.attempts = this.attempts.then(() => next)
    }, delay)
    this.timer.unref()
  }

  private listChanged(generation: Generation): void {
    if (!this.isCurrent(generation)) return
    this.options.logger.info(`${this.label}: the tool list changed; re-syncing`)
    this.enqueue(() => this.sync(generation, 'contained')).catch((error: unknown) => {
      if (this.disposed || !this.isCurrent(generation)) return
      const failure = this.asMcpError(error, generation)
      this.lastError = { message: `re-sync failed: ${failure.message}`, at: Date.now() }
      this.options.logger.error(`${this.label}: re-sync failed; the previous tools stay: ${failure.message}`)
    })
  }

  /** An HTTP event stream broke: a ping tells whether the server is still there (a failed request closes the transport). */
  private checkAlive(generation: Generation): void {
    if (!this.isCurrent(generation) || generation.connectedAt === undefined) return
    generation.client.ping({ timeout: this.config.startupTimeoutMs }).catch((error: unknown) => {
      if (!this.isCurrent(generation)) return
      if (error instanceof SdkError && error.code === ErrorCode.RequestTimeout) void generation.close(CLOSE_BARRIER_MS)
    })
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work)
    this.queue = result.then(
      () => {},
      () => {},
    )
    return result
  }

  /**
   * Fetch every page, then swap. The fence is checked before and after the fetch, so a generation
   * that died meanwhile publishes nothing. The swap is one synchronous step: all new tools or none.
   */
  private async sync(generation: Generation, mode: 'strict' | 'contained'): Promise<void> {
    if (!this.isCurrent(generation)) return
    const listed = await listAllTools(generation.client, { pageTimeoutMs: this.config.startupTimeoutMs, signal: this.lifetime.signal })
    if (!this.isCurrent(generation)) return
    const plan = planTools(this.serverName, listed, { ...this.config, reserved: this.options.reserved })
    const unmatched = plan.unmatched.join('\n')
    if (unmatched !== this.lastUnmatched) for (const line of plan.unmatched) this.options.logger.warn(`${this.label}: ${line}`)
    this.lastUnmatched = unmatched
    for (const problem of plan.unenforcedSchemas) this.options.logger.warn(`${this.label}: output schema not enforced for ${problem}`)
    for (const name of plan.shadowed) this.options.logger.warn(`${this.label}: tool ${JSON.stringify(name)} is not published: its name is taken by the bridge's own resource tools`)
    this.swap(plan.tools, generation, mode)
  }

  private swap(tools: readonly PlannedTool[], generation: Generation, mode: 'strict' | 'contained'): void {
    this.unregisterAll()
    try {
      this.unregister = this.options.register(tools.map((tool) => bridgeToolDefinition(tool, { target: generation, supervisor: this, config: this.config })))
    } catch (error) {
      this.conflict = `tool registration failed, so no tools are registered: ${errorMessage(error)}`
      this.options.logger.error(`${this.label}: ${this.conflict}`)
      if (mode === 'strict') throw new McpError(`MCP server ${this.serverName}: ${this.conflict}`, 'MCP_NAME_CONFLICT', { cause: error })
      return
    }
    this.conflict = undefined
    this.toolNames = tools.map((tool) => tool.publicName)
  }

  private unregisterAll(): void {
    const unregister = this.unregister
    this.unregister = undefined
    this.toolNames = []
    unregister?.()
  }

  private lostDuring(generation: Generation, what: string): McpError {
    if (this.disposed) return this.lifetime.signal.reason as McpError
    return new McpError(`the connection closed during ${what}${suffix(generation.endDescription())}`, 'MCP_CONNECT_FAILED')
  }

  /** A coded error for anything an attempt threw, with what is known about the server's end. */
  asMcpError(error: unknown, generation?: Generation): McpError {
    if (error instanceof McpError) return error
    const end = suffix(generation?.endDescription())
    if (error instanceof SdkError) {
      if (error.code === ErrorCode.RequestTimeout) return new McpError(`no answer within ${this.config.startupTimeoutMs} ms${end}`, 'MCP_TIMEOUT', { cause: error })
      if (error.code === ErrorCode.ConnectionClosed) return new McpError(`the connection closed${end}`, 'MCP_CONNECT_FAILED', { cause: error })
      return new McpError(`the server answered with error ${error.code}: ${errorMessage(error)}${end}`, 'MCP_SERVER_ERROR', { cause: error, rpcCode: error.code })
    }
    if (error instanceof Error && error.name === 'ZodError') return new McpError(`the server sent an invalid answer: ${errorMessage(error).slice(0, 500)}`, 'MCP_MALFORMED_RESPONSE', { cause: error })
    return new McpError(`${errorMessage(error)}${end}`, 'MCP_CONNECT_FAILED', { cause: error })
  }
}

function suffix(text: string | undefined): string {
  return text ? ` (${text})` : ''
}
