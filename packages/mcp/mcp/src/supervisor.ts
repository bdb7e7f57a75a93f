import { SdkError, SdkErrorCode, type Root } from '@modelcontextprotocol/client'
import { assertNever, codedDetail, errorMessage, isHarnessError, Lifetime, oneLine, type ToolDefinition } from 'dsh-core'
import { boundedText, classifyFailure } from './classify.ts'
import { inlineField } from './results.ts'
import type { McpConfig } from './config.ts'
import { bridgeToolDefinition } from './definition.ts'
import { describeRefused, describeRenamed, listAllTools, planTools, type RefusedTool, type RenamedTool } from './discovery.ts'
import { McpError, type McpErrorCode } from './errors.ts'
import { describeEnding, Generation, type GenerationHooks } from './generation.ts'
import { SessionGoneError } from './http-transport.ts'
import { AuthRequiredError, needsLoginMessage, type LoginNeeded } from './oauth/auth-required.ts'
import { StdioTransport } from './stdio-transport.ts'
import { ToolTable } from './tool-table.ts'
import { createTransport, type TransportServices } from './transport.ts'

/** Subprocess codes that no retry can fix: the command is missing, cannot run, or is not a command. */
const UNRUNNABLE_COMMAND = new Set(['SUBPROCESS_NOT_FOUND', 'SUBPROCESS_NOT_EXECUTABLE', 'SUBPROCESS_COMMAND_INVALID'])
/** Why a spawn was refused, when no retry can fix it: a missing or forbidden command or working directory. */
const UNRUNNABLE_SPAWN = new Set(['ENOENT', 'ENOTDIR', 'EACCES'])

/**
 * Where one server's connection is. The generation being connected (once made) or serving, and the
 * timer of the next attempt, live in their phases, so leaving a phase takes them with it.
 * `renewing`: the server forgot our HTTP session and a fresh one is on its way (calls wait for it).
 */
export type Phase =
  | { readonly kind: 'connecting'; readonly attempt: number; readonly renewing: boolean; readonly generation?: Generation }
  | { readonly kind: 'ready'; readonly generation: Generation }
  | { readonly kind: 'reconnecting'; readonly attempt: number; readonly retryAt: number; readonly renewing: boolean; readonly timer: NodeJS.Timeout }
  /** Given up after the crash budget; the tools stay listed and fail with MCP_UNAVAILABLE. */
  | { readonly kind: 'failed'; readonly reason: string }
  /** The server wants an OAuth login: no retries until one is stored (`resume`); calls fail with MCP_AUTH_REQUIRED. */
  | { readonly kind: 'needs_auth'; readonly login: LoginNeeded }
  /** Cannot work until the row is reloaded (a missing command): no retries. */
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'stopped'; readonly reason: string }

export interface Logger {
  debug(message: string): void
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

export interface SupervisorOptions {
  readonly config: McpConfig
  readonly services: TransportServices
  /** Where a stdio server runs (absolute). */
  readonly cwd: string
  /** Registers definitions on the row's scope, all or none (throws on a taken name). Returns the disposer. */
  readonly register: (definitions: readonly ToolDefinition[]) => () => void
  /** Runs registrations and disposals as one catalog change. */
  readonly batch: <T>(change: () => T) => T
  readonly logger: Logger
  /** Public names the row registers itself (M4 resource tools), which server tools must not take. */
  readonly reserved: ReadonlySet<string>
  /** The roots the client answers `roots/list` with; absent: the client declares no `roots` (the default). */
  readonly roots?: () => Root[]
  /** Answers the server's questions (elicitation); absent: the client declares no `elicitation`. */
  readonly elicit?: GenerationHooks['elicit']
  /** After each successful connect (M4 extras read instructions and prompts here). */
  readonly onConnected?: (generation: Generation, signal: AbortSignal) => Promise<void> | void
  /** `notifications/resources/list_changed` on the current connection (SEP-2640 skills listen to it). */
  readonly onResourcesChanged?: (generation: Generation) => void
  /** The server wants a login (phase `needs_auth`); `resume()` connects again once one is stored. */
  readonly onNeedsAuth?: (signal: AbortSignal) => void
}

/**
 * What the row's startup came to: activation waits for it. Its first attempt; for a `required` row,
 * also the retries that begin within `startupTimeoutMs` of the first (`attempts` counts them all).
 */
export interface StartupOutcome {
  readonly error?: McpError
  readonly attempts: number
}

/** The latest failure: `message` may reach the model, `detail` (with the server's stderr) is for logs and status. */
export interface LastError {
  readonly message: string
  readonly detail: string
  readonly code: McpErrorCode
  readonly at: number
}

/** What status and callers read of a supervisor; only the supervisor's own transitions change it. */
export interface SupervisorView {
  readonly phase: Phase
  /** A fresh HTTP session is being opened (the server forgot ours): calls wait for it instead of failing. */
  readonly renewingSession: boolean
  /** The most recent failure, kept after recovery so status can say what happened. */
  readonly lastError: LastError | undefined
  /** A swap that failed because a foreign tool holds one of our names. */
  readonly conflict: string | undefined
  /** Listed tools the bridge refused (invalid per the MCP schema, or nameless), from the last sync. */
  readonly refused: readonly RefusedTool[]
  /** Published tools whose description was cut at `maxDescriptionChars`, from the last sync. */
  readonly cutDescriptions: readonly CutDescription[]
  /** Published tools named otherwise because another listed tool holds their usual name, from the last sync. */
  readonly renamed: readonly RenamedTool[]
  readonly reconnects: number
}

export interface CutDescription {
  readonly rawName: string
  /** The length of the description the server listed. */
  readonly chars: number
}

/**
 * The lifecycle of one server: generations (one Client + transport per attempt), a serial sync
 * queue with a generation fence, coalesced re-syncs applied as diffs, jittered bounded
 * reconnection, a close barrier, and disposal that waits for the work to finish. See docs/mcp.md,
 * "Lifecycle".
 */
export class Supervisor {
  readonly config: McpConfig
  /** The row's: aborted when it is unloaded; every attempt, sync and wait follows it. */
  private readonly lifetime = Lifetime.following(undefined)
  private readonly table: ToolTable
  private generationCount = 0
  /** The last generation that connected, even after it died: status describes it. */
  private latest: Generation | undefined
  private queue: Promise<void> = Promise.resolve()
  private attempts: Promise<void> = Promise.resolve()
  /** list_changed coalescing: a re-sync is queued and has not started yet. */
  private resyncQueued = false
  /** The re-list a tools/list `ttlMs` asked for (see `relistAfter`). */
  private ttlTimer: NodeJS.Timeout | undefined
  private failedAttempts = 0
  private disposed = false
  private disposal: Promise<void> | undefined
  private lastWarnings = ''
  /** Callers waiting for a connection newer than the one that failed them (see `reconnected`). */
  private readonly waiters = new Set<() => void>()
  private phaseState: Phase = { kind: 'connecting', attempt: 0, renewing: false }
  private recordedError: LastError | undefined
  private nameConflict: string | undefined
  private refusedTools: readonly RefusedTool[] = []
  private cutDescriptions: readonly CutDescription[] = []
  private renamedTools: readonly RenamedTool[] = []
  private reconnectCount = 0
  /** The server exited on the version probe and then connected with `initialize`: later attempts skip the probe (see `closedOnProbe`). */
  private knownLegacy = false
  /**
   * The probe is not why this server ends: it answered the probe once, or a start asked with
   * `initialize` after a closed probe failed too. A closed probe is then a crash (`closedOnProbe`).
   */
  private probeRuledOut = false
  /** While the row's startup runs: when a `required` row's retries must have begun, and how activation hears the outcome. */
  private starting: { readonly until: number; attempts: number; readonly settle: (outcome: StartupOutcome) => void } | undefined

  constructor(private readonly options: SupervisorOptions) {
    this.config = options.config
    this.table = new ToolTable({
      register: options.register,
      batch: options.batch,
      define: (tool) => bridgeToolDefinition(tool, this, this.config),
    })
  }

  get serverName(): string {
    return this.config.serverName
  }

  get phase(): Phase {
    return this.phaseState
  }

  /** A fresh HTTP session is being opened (the server forgot ours): calls wait for it instead of failing. */
  get renewingSession(): boolean {
    const phase = this.phaseState
    return (phase.kind === 'connecting' || phase.kind === 'reconnecting') && phase.renewing
  }

  get lastError(): LastError | undefined {
    return this.recordedError
  }

  /** A read-only snapshot for status. */
  get view(): SupervisorView {
    return { phase: this.phaseState, renewingSession: this.renewingSession, lastError: this.recordedError, conflict: this.nameConflict, refused: this.refusedTools, cutDescriptions: this.cutDescriptions, renamed: this.renamedTools, reconnects: this.reconnectCount }
  }

  /** The generation being connected or serving (the fence of every sync and notification). */
  private get current(): Generation | undefined {
    const phase = this.phaseState
    return phase.kind === 'connecting' || phase.kind === 'ready' ? phase.generation : undefined
  }

  /** The public names currently registered for this server. */
  get tools(): readonly string[] {
    return this.table.names
  }

  /** The connection calls should use now, if there is one. */
  get live(): Generation | undefined {
    return this.current && !this.current.closed && this.current.connectedAt !== undefined ? this.current : undefined
  }

  get lastConnected(): Generation | undefined {
    return this.latest
  }

  /**
   * Makes the first attempt; resolves when it has settled, or for a `required` row once an attempt
   * connected or no further one begins within `startupTimeoutMs` of the first (never rejects). A
   * required server that flaps at startup still comes up, and no retry is announced that the boot
   * would not wait for.
   */
  start(): Promise<StartupOutcome> {
    return new Promise((settle) => {
      this.starting = { until: Date.now() + this.config.startupTimeoutMs, attempts: 0, settle }
      this.attempts = this.attempt('startup').catch(() => {})
    })
  }

  /** The startup is over (`error`: how it failed): activation goes on. */
  private startupSettled(error?: McpError): void {
    const starting = this.starting
    if (!starting) return
    this.starting = undefined
    starting.settle(error ? { error, attempts: starting.attempts } : { attempts: starting.attempts })
  }

  /** A required row's startup waits for its retries; any other row's ends with its first attempt. */
  private get retryingStartup(): boolean {
    return this.starting !== undefined && this.config.required
  }

  /** Who answers the server's questions (the row's `elicitation`); undefined when it declares none. */
  get elicit(): GenerationHooks['elicit'] | undefined {
    return this.options.elicit
  }

  /** True once `dispose()` began: the row is being unloaded. */
  get isDisposed(): boolean {
    return this.disposed
  }

  /** The coded error a call gets while the server is not connected: names the server, its state and its last error (no stderr). */
  unavailable(): McpError {
    if (this.phase.kind === 'needs_auth') return new McpError(needsLoginMessage(this.serverName, this.phase.login), 'MCP_AUTH_REQUIRED')
    return new McpError(`MCP server ${this.serverName} is unavailable (${this.describePhase(false)})`, 'MCP_UNAVAILABLE')
  }

  /**
   * Resolves with the first live connection other than `failed` (the bridge reconnects after a lost
   * session at once); rejects with `MCP_UNAVAILABLE` once that turns into an ordinary outage or the
   * bridge gives up or stops, and with the call's abort reason when its lifetime aborts.
   */
  reconnected(failed: Generation | undefined, call: Lifetime): Promise<Generation> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const live = this.live
        if (call.aborted) return settle(() => reject(call.reason))
        if (live && live !== failed) return settle(() => resolve(live))
        // Gone for good, or back to an ordinary outage (backoff): the caller gets the state now.
        const outage = this.phase.kind === 'reconnecting' && !this.renewingSession
        if (this.disposed || outage || ['failed', 'unavailable', 'stopped', 'needs_auth'].includes(this.phase.kind)) settle(() => reject(this.unavailable()))
      }
      let stopListening = () => {}
      const settle = (finish: () => void) => {
        this.waiters.delete(check)
        stopListening()
        finish()
      }
      this.waiters.add(check)
      stopListening = call.onAbort(check)
      check()
    })
  }

  /** `withStderr`: for status and logs; without, what a caller (and so the model) may see. */
  describePhase(withStderr = true): string {
    const phase = this.phase
    const last = this.recordedError ? `; last error: ${withStderr ? this.recordedError.detail : this.recordedError.message}` : ''
    switch (phase.kind) {
      case 'connecting':
        return `connecting${phase.attempt ? `, attempt ${phase.attempt}/${this.config.reconnect.maxAttempts}` : ''}${last}`
      case 'ready':
        return 'ready'
      case 'reconnecting': {
        return `reconnecting ${phase.attempt}/${this.config.reconnect.maxAttempts}, next attempt in ${waitInWords(phase.retryAt - Date.now())}${last}`
      }
      case 'needs_auth':
        return `needs a login (${phase.login.why}); run: ${phase.login.loginCommand}`
      case 'failed':
      case 'unavailable':
      case 'stopped':
        return `${phase.kind}: ${phase.reason}${last}`
      default:
        return assertNever(phase, 'supervisor phase')
    }
  }

  /** A login was stored for a server that needed one: connect again now. */
  resume(): void {
    if (this.disposed || this.phase.kind !== 'needs_auth') return
    const next = this.attempt('retry').catch(() => {})
    this.attempts = this.attempts.then(() => next)
  }

  /** The roots changed: tell the live server (it asks `roots/list` again). */
  rootsChanged(): void {
    this.live?.rootsChanged()
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
    if (this.ttlTimer) clearTimeout(this.ttlTimer)
    this.ttlTimer = undefined
    const generation = this.current
    this.transition({ kind: 'stopped', reason: 'unloaded' })
    // Unloaded while a required row's startup waited for a retry: activation ends (it reports nothing).
    this.startupSettled(this.lifetime.signal.reason as McpError)
    if (generation && !(await generation.close(this.options.config.closeTimeoutMs))) {
      this.options.logger.error(`${this.label}: the server did not close within ${this.options.config.closeTimeoutMs} ms (closeTimeoutMs); it was abandoned (a stdio server's process group killed at once)`)
    }
    await this.attempts
    await this.queue
    this.table.clear()
  }

  private get label(): string {
    return `mcp(${this.serverName})`
  }

  /**
   * The one way the phase changes: the phase left takes its pending attempt with it (a scheduled
   * retry is cancelled unless the next phase is that same wait), then waiting callers look again.
   */
  private transition(next: Phase): void {
    const left = this.phaseState
    if (left.kind === 'reconnecting' && (next.kind !== 'reconnecting' || next.timer !== left.timer)) clearTimeout(left.timer)
    this.phaseState = next
    for (const check of [...this.waiters]) check()
  }

  private isCurrent(generation: Generation): boolean {
    return !this.disposed && this.current === generation && !generation.closed
  }

  private async attempt(kind: 'startup' | 'retry'): Promise<void> {
    const renewing = this.renewingSession
    const attempt = kind === 'retry' ? this.failedAttempts : 0
    if (this.starting) this.starting.attempts++
    this.transition({ kind: 'connecting', attempt, renewing })
    let generation: Generation | undefined
    let step = 'start'
    try {
      // At most three starts: a server that ended the connection on the version probe is started
      // again and asked with initialize, after a second probe when it said nothing (`closedOnProbe`).
      let legacy = this.knownLegacy
      /** The start whose probe closed, as a failure, once the attempt asks with initialize. */
      let closedProbe: McpError | undefined
      /** A first closing on the probe with nothing said: a crash at start, or a server that exits on the probe silently. */
      let silentClose: { readonly failure: McpError; readonly stderr: string } | undefined
      for (;;) {
        step = 'start'
        generation = await this.openGeneration(attempt, renewing)
        step = 'initialize'
        try {
          await generation.connect(this.config.startupTimeoutMs, this.lifetime.signal, legacy)
          break
        } catch (error) {
          if (closedProbe) {
            // Failed with initialize too: the server did not end on the probe (it exits at start, say); later attempts probe once.
            this.probeRuledOut = true
            // Refused as a server speaking only the probe's revision refuses it: the closed probe was a crash, the attempt's failure.
            if (refusedHandshake(this.attemptError(error, step, generation), step)) throw closedProbe
          }
          if (legacy) throw error
          const closed = await this.closedOnProbe(generation, error)
          if (!closed) throw error
          if (!closed.named && !silentClose) {
            // The next start tells: a crash at start answers the probe this time, a server that exits on it closes again.
            silentClose = closed
            this.options.logger.debug(`${this.label}: the connection closed during the version probe (server/discover) with nothing said; starting the server again and probing again`)
            continue
          }
          closedProbe = closed.failure
          legacy = true
        }
      }
      if (!legacy && this.config.protocol === 'auto') {
        // The server answered the probe: it does not end on one, so a closing before was a crash at start.
        this.probeRuledOut = true
        if (silentClose) {
          const { failure, stderr } = silentClose
          this.options.logger.warn(`${this.label}: the server ended as it started and was started again: ${codedDetail({ detail: stderr ? `${failure.message}; stderr: ${stderr}` : failure.message, failure })}`)
        }
      }
      if (legacy && !this.knownLegacy) {
        this.knownLegacy = true
        this.options.logger.warn(`${this.label}: the server exited on the version probe (server/discover) and was started again with initialize, which it speaks; this row skips the probe from now on (protocol: 2025-11-25 skips it from the start)`)
      }
      if (!this.isCurrent(generation)) throw this.lostDuring(generation, 'connect')
      step = 'tools/list'
      // A required row's startup (its retries too) fails on a name another plugin holds.
      const strict = this.retryingStartup
      await this.enqueue(() => this.sync(generation!, strict ? 'strict' : 'contained'))
      if (!this.isCurrent(generation)) throw this.lostDuring(generation, 'tool discovery')
      step = 'setup'
      await this.options.onConnected?.(generation, this.lifetime.signal)
      if (!this.isCurrent(generation)) throw this.lostDuring(generation, 'setup')
      generation.connectedAt = Date.now()
      this.latest = generation
      this.transition({ kind: 'ready', generation })
      if (kind === 'retry' && this.retryingStartup) {
        this.options.logger.info(`${this.label}: connected and synced ${this.table.names.length} tools (retry ${this.failedAttempts}/${this.config.reconnect.maxAttempts})`)
      } else if (kind === 'retry') {
        this.reconnectCount++
        this.options.logger.info(`${this.label}: reconnected and re-synced ${this.table.names.length} tools (attempt ${this.failedAttempts}/${this.config.reconnect.maxAttempts})`)
      }
      this.startupSettled()
    } catch (error) {
      const failure = await this.attemptFailed(generation, error, step)
      // A retry is scheduled only when it begins within the startup's window (see `down`).
      if (!this.retryingStartup || this.phase.kind !== 'reconnecting') this.startupSettled(failure)
      throw failure
    }
  }

  /** A fresh transport and client for one connection attempt (not yet connected), made current. */
  private async openGeneration(attempt: number, renewing: boolean): Promise<Generation> {
    let generation: Generation | undefined
    const transport = await createTransport(this.config, {
      services: this.options.services,
      cwd: this.options.cwd,
      signal: this.lifetime.signal,
      onSuspect: () => generation && this.checkAlive(generation),
    })
    if (this.disposed) throw this.lifetime.signal.reason
    generation = new Generation(++this.generationCount, transport, {
      onListChanged: (changed) => this.listChanged(changed),
      ...(this.options.onResourcesChanged ? { onResourcesChanged: (changed: Generation) => this.isCurrent(changed) && this.options.onResourcesChanged?.(changed) } : {}),
      onClosed: (closed) => this.closed(closed),
      onTransportError: (error) => this.transportError(error),
      roots: this.options.roots,
      elicit: this.options.elicit,
    }, this.config.protocol)
    this.transition({ kind: 'connecting', attempt, renewing, generation })
    return generation
  }

  /**
   * Some older stdio servers exit on any request before `initialize`; the SDK's in-place probe then
   * reports the closed connection. A server that crashes at start looks the same on the wire (it
   * exits right after the probe is sent, unanswered), and only what the server said can tell them
   * apart: it can name the probe's method (`server/discover`) only if it read it, and a crash at
   * start answers the probe when started again. So, once that server is gone (the close barrier),
   * the same attempt starts it again: with initialize when its stderr named the probe or a second
   * probe closed too (the row remembers only if that connects), else with the probe once more.
   * Returns the closed start as a failure, and whether the server named the probe, when the caller
   * should start again; undefined for any other failure, or once the probe is ruled out (`probeRuledOut`).
   */
  private async closedOnProbe(generation: Generation, error: unknown): Promise<{ readonly failure: McpError; readonly stderr: string; readonly named: boolean } | undefined> {
    if (this.disposed || this.config.protocol !== 'auto' || this.probeRuledOut || !probeClosed(error)) return undefined
    if (!(await generation.close(this.options.config.closeTimeoutMs))) return undefined
    const { stderr } = generation.ending()
    return { failure: this.attemptError(error, 'initialize', generation), stderr, named: PROBE_NAMED.test(stderr) }
  }

  /**
   * Closes the failed generation and waits (bounded) until it has: no replacement may start while
   * the old server runs. Then schedules the next attempt. Returns the coded failure, which by then
   * knows how the server ended (exit code, that dsh stopped it, stderr tail).
   */
  private async attemptFailed(generation: Generation | undefined, error: unknown, step: string): Promise<McpError> {
    if (this.disposed) return this.attemptError(error, step, generation)
    const closed = generation ? await generation.close(this.options.config.closeTimeoutMs) : true
    const attempted = this.attemptError(error, step, generation)
    if (this.disposed) return attempted
    // A server that refuses the handshake itself speaks no revision we asked for, whatever it answered.
    const failure = refusedHandshake(attempted, step) ? new McpError(attempted.message, 'MCP_PROTOCOL_UNSUPPORTED', { cause: attempted }) : attempted
    this.recordError(failure, generation)
    const unmendable = closed ? unmendableBy(failure, this.config) : undefined
    if (unmendable) {
      // One line, with the code: the row waits for a reload, and says so.
      this.transition({ kind: 'unavailable', reason: unmendable })
      this.options.logger.error(`${this.label}: connection attempt failed: ${codedDetail({ detail: `${this.lastError!.detail}; not retrying until the row is reloaded`, failure })}`)
      return failure
    }
    // A server that wants a login says so once, below, not also as a failed attempt.
    if (failure.code !== 'MCP_AUTH_REQUIRED') this.options.logger.warn(`${this.label}: connection attempt failed: ${codedDetail({ detail: this.lastError!.detail, failure })}`)
    if (!closed) {
      if (this.current !== generation) return failure
      const reason = `the failed server did not exit within ${this.options.config.closeTimeoutMs} ms (closeTimeoutMs); reconnecting stopped so that two servers never run at once`
      this.transition({ kind: 'stopped', reason })
      this.options.logger.error(`${this.label}: ${reason}`)
      return failure
    }
    if (failure.code === 'MCP_AUTH_REQUIRED') return this.enterNeedsAuth(this.loginNeededBy(failure), generation)
    this.down(generation, false)
    return failure
  }

  /**
   * The one way into `needs_auth`, from a connection attempt or a lost connection alike: the login
   * is kept as it is (why, and the command), and the message built from it is what the log line,
   * status and every call then say, naming the server once. Returns that failure.
   */
  private enterNeedsAuth(login: LoginNeeded, generation: Generation | undefined): McpError {
    const failure = new McpError(needsLoginMessage(this.serverName, login), 'MCP_AUTH_REQUIRED')
    this.recordError(failure, generation)
    this.transition({ kind: 'needs_auth', login: { why: login.why, loginCommand: login.loginCommand } })
    this.options.logger.warn(`${this.label}: ${codedDetail({ detail: failure.message, failure })}`)
    this.options.onNeedsAuth?.(this.lifetime.signal)
    return failure
  }

  /**
   * The login a failure coded `MCP_AUTH_REQUIRED` waits for: the `AuthRequiredError` in its causes
   * (classify.ts keeps it there). Only the SDK's own `UnauthorizedError` comes without one (our
   * providers throw theirs first), and says no more than that the server refused us.
   */
  private loginNeededBy(failure: McpError): LoginNeeded {
    for (let cause: unknown = failure; cause !== undefined && cause !== null; cause = (cause as { cause?: unknown }).cause) {
      if (cause instanceof AuthRequiredError) return cause
    }
    const why = 'the server refused our authorization (HTTP 401)'
    return this.options.services.auth?.needsLogin(why) ?? { why, loginCommand: `dsh mcp login ${this.serverName}` }
  }

  private attemptError(error: unknown, step: string, generation: Generation | undefined): McpError {
    if (error instanceof McpError) return error
    const classified = classifyFailure(error, { what: step, subject: 'the server', stage: 'connect', ending: generation?.ending(), disposed: this.disposed })
    return classified instanceof McpError ? classified : new McpError(classified.message, 'MCP_CONNECT_FAILED', { cause: classified })
  }

  /** Keeps a failure for status: the message as callers may see it, the detail with the server's stderr. */
  private recordError(failure: { readonly message: string; readonly code: McpErrorCode }, generation: Generation | undefined): void {
    const ending = generation?.ending()
    const detail = ending?.stderr ? `${failure.message}; stderr: ${ending.stderr}` : failure.message
    this.recordedError = { message: failure.message, detail, code: failure.code, at: Date.now() }
  }

  /** The transport of `generation` closed. For an established connection that is an outage. */
  private closed(generation: Generation): void {
    if (generation.connectedAt === undefined || this.current !== generation || this.disposed) return
    const lost = generation.transport instanceof StdioTransport ? undefined : generation.transport.lostBecause
    const unmendable = lost instanceof McpError ? unmendableBy(lost, this.config) : undefined
    if (lost instanceof McpError && unmendable) {
      // Refused for the whole row (a credential the server stopped taking): as at a connection
      // attempt, one coded line, and the row waits for a reload; its tools stay listed and fail.
      this.recordError(lost, generation)
      this.transition({ kind: 'unavailable', reason: unmendable })
      this.options.logger.error(`${this.label}: connection lost: ${codedDetail({ detail: `${lost.message}; not retrying until the row is reloaded`, failure: lost })}`)
      return
    }
    if (lost instanceof AuthRequiredError) {
      // The server refused the stored login's token and no refresh mends it: as at a connection
      // attempt, needs_auth, not an outage to retry.
      this.enterNeedsAuth(lost, generation)
      return
    }
    const ending = generation.ending()
    const reason = ending.summary ?? 'the connection closed'
    this.recordError({ message: reason, code: 'MCP_CONNECTION_LOST' }, generation)
    this.options.logger.warn(`${this.label}: connection lost: ${describeEnding(ending) ?? reason}`)
    // A server that forgot our session is still there: reconnect at once (the call it refused waits to be sent again).
    this.down(generation, true, sessionLost(generation))
  }

  /**
   * A generation is gone (or an attempt failed before it had one): schedule the next attempt, or
   * give up. Its failure was just recorded: each line said here ends with that failure's code.
   */
  private down(generation: Generation | undefined, lost: boolean, immediate = false): void {
    if (this.disposed || this.current !== generation) return
    const policy = this.config.reconnect
    const failure = this.recordedError
    const coded = (line: string) => codedDetail(failure ? { detail: line, failure } : { detail: line })
    if (!policy.enabled) {
      const reason = lost ? 'the connection was lost and reconnect is disabled; its tools stay listed and fail until the row is reloaded' : 'the connection failed and reconnect is disabled'
      this.transition({ kind: 'stopped', reason })
      this.options.logger.error(`${this.label}: ${coded(reason)}`)
      return
    }
    if (generation?.connectedAt !== undefined && Date.now() - generation.connectedAt >= policy.stableAfterMs) this.failedAttempts = 0
    this.failedAttempts++
    const base = immediate ? 0 : Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (this.failedAttempts - 1))
    const delay = Math.round(base * (1 + policy.jitterRatio * (2 * Math.random() - 1)))
    if (this.retryingStartup && (this.failedAttempts > policy.maxAttempts || Date.now() + delay > this.starting!.until)) {
      // A required row's startup is over: the boot fails with the cause, and the row is unloaded (no log line says more).
      const bound = this.failedAttempts > policy.maxAttempts ? `reconnect.maxAttempts (${policy.maxAttempts})` : `startupTimeoutMs (${this.config.startupTimeoutMs} ms)`
      this.transition({ kind: 'failed', reason: `did not start: no further attempt within ${bound}` })
      return
    }
    if (this.failedAttempts > policy.maxAttempts) {
      const reason = `gave up after ${policy.maxAttempts} consecutive failed attempts; its tools stay listed and fail until the row is reloaded`
      this.transition({ kind: 'failed', reason })
      this.options.logger.error(`${this.label}: ${coded(reason)}`)
      return
    }
    const timer = setTimeout(() => {
      const next = this.attempt('retry').catch(() => {})
      this.attempts = this.attempts.then(() => next)
    }, delay)
    timer.unref()
    this.transition({ kind: 'reconnecting', attempt: this.failedAttempts, retryAt: Date.now() + delay, renewing: immediate, timer })
    this.options.logger.warn(`${this.label}: ${coded(`${lost ? 'connection lost; reconnecting' : 'connection failed; retrying'} in ${delay}ms (attempt ${this.failedAttempts}/${policy.maxAttempts})`)}`)
  }

  /**
   * `notifications/tools/list_changed`: coalesced. While a re-sync is queued, more notifications
   * add nothing; while one runs, one more is queued (it will see every change made meanwhile).
   */
  private listChanged(generation: Generation): void {
    if (!this.isCurrent(generation) || this.resyncQueued) return
    this.resyncQueued = true
    this.enqueue(() => {
      this.resyncQueued = false
      return this.sync(generation, 'contained')
    }).catch((error: unknown) => {
      if (this.disposed || !this.isCurrent(generation)) return
      const failure = error instanceof McpError ? error : this.attemptError(error, 'tools/list', generation)
      this.recordedError = { message: `re-sync failed: ${failure.message}`, detail: `re-sync failed: ${failure.message}`, code: failure.code, at: Date.now() }
      this.options.logger.error(`${this.label}: re-sync failed; the previous tools stay: ${failure.message}`)
    })
  }

  /**
   * A listing with a `ttlMs` above 0 is stale once it has passed: the tools are listed again as on a
   * `list_changed` (a server that does not announce changes still gets them re-indexed), at the
   * earliest after `listTtlFloorMs`, so a tiny ttl cannot make the bridge list without pause.
   */
  private relistAfter(generation: Generation, ttlMs: number | undefined): void {
    if (this.ttlTimer) clearTimeout(this.ttlTimer)
    this.ttlTimer = undefined
    if (ttlMs === undefined || !(ttlMs > 0) || this.disposed) return
    this.ttlTimer = setTimeout(() => {
      this.ttlTimer = undefined
      this.listChanged(generation)
    }, Math.max(ttlMs, this.config.listTtlFloorMs))
    this.ttlTimer.unref()
  }

  /** The HTTP event stream ended: a ping tells whether the server is still there (a refused or unanswered one closes the transport). */
  private checkAlive(generation: Generation): void {
    if (!this.isCurrent(generation) || generation.connectedAt === undefined) return
    generation.client.ping({ timeout: this.config.startupTimeoutMs }).catch((error: unknown) => {
      if (!this.isCurrent(generation)) return
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) void generation.close(this.options.config.closeTimeoutMs)
    })
  }

  private transportError(error: Error): void {
    if (this.disposed) return
    // A 401 is its request's own failure: at an attempt needs_auth (logged once with the login
    // command); a refused credential, at an attempt or on a live connection, is said once with its code.
    if ((error as { code?: unknown }).code === 401 || (error as { status?: unknown }).status === 401 || error instanceof AuthRequiredError || (error instanceof McpError && error.code === 'MCP_CREDENTIAL_REJECTED')) return
    // The SDK's message may quote what the server sent whole (an answer to an id never asked, its
    // result included): one line, readable, and bounded, as any server text in our messages.
    this.options.logger.warn(`${this.label}: transport error: ${boundedText(inlineField(errorMessage(error)))}`)
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
   * Fetch every page, then apply the difference. The fence is checked before and after the fetch, so
   * a generation that died meanwhile publishes nothing. Unchanged tools are neither re-checked nor
   * re-registered.
   */
  private async sync(generation: Generation, mode: 'strict' | 'contained'): Promise<void> {
    if (!this.isCurrent(generation)) return
    const started = performance.now()
    let ttlMs: number | undefined
    const listed = await listAllTools(generation.client, { pageTimeoutMs: this.config.startupTimeoutMs, signal: this.lifetime.signal, onTtl: (ttl) => (ttlMs = ttl) })
    if (!this.isCurrent(generation)) return
    this.relistAfter(generation, ttlMs)
    const plan = planTools(this.serverName, listed, { ...this.config, reserved: this.options.reserved, headerParameters: generation.sendsParameterHeaders }, this.table.byFingerprint())
    this.refusedTools = plan.refused
    this.cutDescriptions = plan.tools.flatMap((tool) => (tool.cutFrom === undefined ? [] : [{ rawName: tool.rawName, chars: tool.cutFrom }]))
    this.renamedTools = plan.renamed
    this.warnOnce([
      ...plan.unmatched,
      ...plan.renamed.map(describeRenamed),
      ...this.cutDescriptions.map((cut) => `tool ${JSON.stringify(cut.rawName)}'s description (${cut.chars} characters) is cut at maxDescriptionChars ${this.config.maxDescriptionChars}`),
      ...plan.refused.map((tool) => `tool ${describeRefused(tool).replace(/: /, ' is refused: ')}`),
      ...plan.shadowed.map((name) => `tool ${JSON.stringify(name)} is not published: its name is taken by the bridge's own resource tools`),
    ])
    for (const problem of plan.unenforcedSchemas) this.options.logger.warn(`${this.label}: output schema not enforced for ${problem}`)
    const changed = this.swap(plan.tools, mode)
    this.options.logger.debug(`${this.label}: synced ${listed.length} listed tools in ${Math.round(performance.now() - started)} ms (${changed ? 'changed' : 'unchanged'})`)
  }

  /** Logs each warning line once while it stays the same (a re-sync does not repeat them). */
  private warnOnce(lines: readonly string[]): void {
    const joined = lines.join('\n')
    if (joined !== this.lastWarnings) for (const line of lines) this.options.logger.warn(`${this.label}: ${line}`)
    this.lastWarnings = joined
  }

  private swap(tools: Parameters<ToolTable['apply']>[0], mode: 'strict' | 'contained'): boolean {
    try {
      const changed = this.table.apply(tools)
      this.nameConflict = undefined
      return changed
    } catch (error) {
      const conflict = `tool registration failed, so no tools are registered: ${errorMessage(error)}`
      this.nameConflict = conflict
      this.options.logger.error(`${this.label}: ${conflict}`)
      if (mode === 'strict') throw new McpError(`MCP server ${this.serverName}: ${conflict}`, 'MCP_NAME_CONFLICT', { cause: error })
      return true
    }
  }

  private lostDuring(generation: Generation, what: string): McpError {
    if (this.disposed) return this.lifetime.signal.reason as McpError
    const summary = generation.ending().summary
    return new McpError(`the connection closed during ${what}${summary ? ` (${summary})` : ''}`, 'MCP_CONNECT_FAILED')
  }
}

/** A server's stderr naming the version probe's method: it read the probe (see `closedOnProbe`). */
const PROBE_NAMED = /server\/discover/

/** The SDK's verdict when a stdio server it probed in place closed the connection on `server/discover`. */
function probeClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /probed in place/.test(error.message)
}

/**
 * JSON-RPC answers that refuse the request itself rather than fail it: an invalid request, an
 * unknown method, invalid params, and MCP's header, capability and version errors (-32020…-32022).
 */
const PROTOCOL_REFUSALS = new Set([-32600, -32601, -32602, -32020, -32021, -32022])

/**
 * The server answered the handshake with a refusal of the handshake itself (see
 * `PROTOCOL_REFUSALS`, or HTTP 400): it is up and does not speak what we asked, so trying again
 * asks the same question. Any other error answer (a server that cannot start its work) is retried.
 */
function refusedHandshake(failure: McpError, step: string): boolean {
  if (step !== 'initialize' || failure.code !== 'MCP_SERVER_ERROR') return false
  return failure.httpStatus === 400 || (failure.rpcCode !== undefined && PROTOCOL_REFUSALS.has(failure.rpcCode))
}

/**
 * Why no retry can mend `failure`, decided by its code (the row then waits for a reload, and a
 * `required` one fails the boot without announcing a retry), or undefined when the next attempt may
 * go otherwise (a server that exited, one that cannot be reached yet).
 */
function unmendableBy(failure: McpError, config: McpConfig): string | undefined {
  switch (failure.code) {
    case 'MCP_PROTOCOL_UNSUPPORTED':
      return `the server speaks no protocol revision this row allows (protocol: ${config.protocol}); not retrying until the row is reloaded`
    case 'MCP_CREDENTIAL_MISSING':
      return 'a credential the row names is not set; set it (environment, project .env or user .env), then reload the row'
    case 'MCP_CREDENTIAL_REJECTED':
      // The same credential is refused the same way: only another one (a reload) can change that.
      return 'the server refused the row\'s credential (HTTP 401) and no login can help; give the row another (bearerTokenEnvVar, headers, envHeaders), then reload the row'
    case 'MCP_NAME_CONFLICT':
      // Only a required row's startup fails on it (any other sync keeps the connection with no tools).
      return 'a tool name of this server is held by another plugin; free it (or rename the server), then reload the row'
    case 'MCP_CONNECT_FAILED':
      return unrunnable(failure.cause)
    default:
      return undefined
  }
}

function unrunnable(cause: unknown): string | undefined {
  if (!isHarnessError(cause)) return undefined
  if (UNRUNNABLE_COMMAND.has(cause.code)) return 'the command cannot be run; install it (or fix `command`), then reload the row'
  const system = (cause.cause as { code?: unknown } | undefined)?.code
  if (cause.code === 'SUBPROCESS_SPAWN_FAILED' && typeof system === 'string' && UNRUNNABLE_SPAWN.has(system)) return `the server cannot be started as the row says (${system}: its command or working directory is missing or not allowed); fix the row, then reload it`
  return undefined
}

/**
 * A wait as a person reads it, as it is: `400 ms` under a second (rounding up said `1 s` for the
 * half-second retries of the default policy, and `0 s` for one due now), else seconds to a tenth
 * (`2.5 s`, `30 s`).
 */
export function waitInWords(ms: number): string {
  const left = Math.max(0, Math.round(ms))
  return left < 1000 ? `${left} ms` : `${Number((left / 1000).toFixed(1))} s`
}

/** Whether a remote generation closed because the server forgot our session (it is still there): the next attempt settles that at once. */
function sessionLost(generation: Generation): boolean {
  const transport = generation.transport
  return !(transport instanceof StdioTransport) && transport.lostBecause instanceof SessionGoneError
}
