import { basename } from 'node:path'
import { abortError, assertNever, FsError, HarnessError, raceAbort, type CapabilityStatus, type ContainedText, type FileSystem, type ProbeContext, type SubprocessService, type Workspace } from 'dsh-core'
import { LspError, type LspProvider, type LspProviderQuery, type LspQueryResult } from 'dsh-lsp'
import type { ServerConfig } from './config.ts'
import { CrashBudget } from './crash-budget.ts'
import { queryAborted } from './aborted.ts'
import { ServerInstance } from './instance.ts'

const CRASH_CODES = new Set<string>(['LSP_SERVER_EXITED', 'LSP_SERVER_START_FAILED', 'LSP_SERVER_CRASHED', 'LSP_PROTOCOL_ERROR'])

export interface ProviderOptions {
  readonly id: string
  readonly config: ServerConfig
  /** Resolved at load, so a missing server fails the plugin instead of the first query. */
  readonly executable: string
  readonly fs: FileSystem
  readonly subprocess: SubprocessService
  /** Progress lines for long work (server start, indexing). */
  readonly report: (message: string) => void
}

/**
 * One configured language server, as an LSP provider: a pool of server processes, one per
 * canonical workspace, each with a queue that keeps read → didOpen → request → didClose whole.
 * Servers start lazily, are replaced once when their transport fails mid-query, are held back
 * by a crash budget, evicted when idle and capped in number.
 */
export class StdioLspProvider implements LspProvider {
  readonly id: string
  readonly extensionToLanguage: Readonly<Record<string, string>>
  private readonly instances = new Map<string, ServerInstance>()
  private readonly queues = new Map<string, Promise<void>>()
  private readonly budgets = new Map<string, CrashBudget>()
  private readonly idleTimers = new Map<ServerInstance, NodeJS.Timeout>()
  /** Workspace lookups, queue tails and retiring instances that disposal must wait for. */
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly lifetime = new AbortController()
  private disposed = false

  constructor(private readonly options: ProviderOptions) {
    this.id = options.id
    this.extensionToLanguage = { ...options.config.extensionToLanguage }
  }

  async query(request: LspProviderQuery, signal?: AbortSignal): Promise<LspQueryResult> {
    this.guard(signal)
    const scoped = signal ? AbortSignal.any([signal, this.lifetime.signal]) : this.lifetime.signal
    const workspace = await this.track(this.canonicalWorkspace(request.workspaceRoot, scoped))
    this.guard(scoped)
    return this.enqueue(workspace.path, scoped, async () => {
      this.guard(scoped)
      // Read at our turn in the queue, so a query sees what was written while it waited.
      const source = await this.readSource(workspace, request.filePath, scoped)
      this.guard(scoped)
      return this.runWithReplay(workspace, request, source, scoped)
    })
  }

  /** The state `dsh status` shows, with the extensions this server answers for. */
  status(): CapabilityStatus {
    return this.withExtensions(this.stateNow())
  }

  /** The most recently used instance's state, a crash, or idle. */
  private stateNow(): CapabilityStatus {
    for (const budget of this.budgets.values()) {
      const reason = budget.blockedReason()
      if (reason) return { state: 'crashed', detail: reason }
    }
    const newest = [...this.instances.values()].sort((a, b) => b.lastUsed - a.lastUsed)[0]
    if (newest) {
      const state = newest.state
      switch (state) {
        case 'starting':
          return { state: 'starting', detail: this.describe(newest) }
        case 'indexing':
          return { state: 'indexing', detail: `${newest.indexingTitle ?? 'indexing'} (${this.describe(newest)})` }
        case 'ready':
          return { state: 'ready', detail: this.describe(newest) }
        case 'stopped':
          break
        default:
          return assertNever(state, 'instance state')
      }
    }
    const crash = [...this.budgets.values()].map((budget) => budget.lastCrash).find(Boolean)
    if (crash) return { state: 'crashed', detail: crash.message }
    return { state: 'idle', detail: `${this.options.executable}; starts on the first query` }
  }

  /** Starts (or reuses) the server for the probed workspace and reports how it came up. */
  async probe({ cwd, signal }: ProbeContext): Promise<CapabilityStatus> {
    try {
      this.guard(signal)
      const workspace = await this.track(this.canonicalWorkspace(cwd, signal))
      await this.enqueue(workspace.path, signal, async () => {
        const instance = this.instanceFor(workspace)
        try {
          await raceAbort(instance.ready, signal)
        } catch (error) {
          if (instance.isTransportFailure(error) || (error instanceof LspError && error.code === 'LSP_SERVER_START_FAILED')) this.budget(workspace.path).record(error as LspError)
          await this.retire(instance)
          throw error
        }
        this.scheduleIdle(instance)
      })
      return this.status()
    } catch (error) {
      // A server that died or never came up crashed; a bad workspace or a cancelled probe did not.
      const crashed = error instanceof LspError && CRASH_CODES.has(error.code)
      return this.withExtensions({ state: crashed ? 'crashed' : 'unavailable', detail: error instanceof Error ? error.message : String(error) })
    }
  }

  /** Stops every server and waits for all in-flight work; later queries fail with LSP_DISPOSED. */
  async disposeAll(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true
      this.lifetime.abort(new LspError(`${this.id}: lsp-stdio provider is disposed`, 'LSP_DISPOSED'))
    }
    for (const timer of this.idleTimers.values()) clearTimeout(timer)
    this.idleTimers.clear()
    const instances = [...this.instances.values()]
    this.instances.clear()
    // Queue tails and tracked work never reject; only an instance's teardown can. Teardowns are
    // tracked too, so a concurrent second disposeAll() also waits for them.
    const [teardowns] = await Promise.all([Promise.allSettled(instances.map((instance) => this.track(instance.dispose()))), ...this.queues.values(), ...this.inFlight])
    this.queues.clear()
    const failures = teardowns.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
    if (failures.length === 1) throw failures[0]
    if (failures.length > 1) throw new AggregateError(failures, 'lsp-stdio instance teardown failed')
  }

  private async runWithReplay(workspace: Workspace, request: LspProviderQuery, source: ContainedText, signal: AbortSignal): Promise<LspQueryResult> {
    const budget = this.budget(workspace.path)
    let instance = this.instanceFor(workspace)
    try {
      const result = await this.attempt(instance, budget, request, source, signal)
      budget.succeeded()
      return result
    } catch (error) {
      // A transport failure (the server died under us) is replayed once on a fresh server with the
      // same source; a server's error answer, an unsupported operation or an abort is not.
      if (!instance.isTransportFailure(error) || signal.aborted) throw error
      await this.retire(instance)
      this.guard(signal)
      instance = this.instanceFor(workspace)
      const result = await this.attempt(instance, budget, request, source, signal)
      budget.succeeded()
      return result
    } finally {
      if (instance.dead) await this.retire(instance)
      else this.scheduleIdle(instance)
    }
  }

  private async attempt(instance: ServerInstance, budget: CrashBudget, request: LspProviderQuery, source: ContainedText, signal: AbortSignal): Promise<LspQueryResult> {
    try {
      return await instance.query(request, source, signal)
    } catch (error) {
      if (!signal.aborted && error instanceof LspError && (instance.isTransportFailure(error) || error.code === 'LSP_SERVER_START_FAILED')) budget.record(error)
      throw error
    }
  }

  /** The live server for this workspace, or a new one (subject to the crash budget and the cap). */
  private instanceFor(workspace: Workspace): ServerInstance {
    const current = this.instances.get(workspace.path)
    if (current && !current.dead) return current
    if (current) void this.retire(current)
    this.budget(workspace.path).assertMayStart()
    if (this.instances.size >= this.options.config.maxServers) this.makeRoom()
    let instance: ServerInstance
    try {
      instance = new ServerInstance({
        serverId: this.id,
        config: this.options.config,
        executable: this.options.executable,
        workspace,
        subprocess: this.options.subprocess,
        report: this.options.report,
      })
    } catch (error) {
      if (error instanceof HarnessError && error.code === 'SUBPROCESS_SHUT_DOWN') throw new LspError(`${this.id}: the host is shutting down`, 'LSP_DISPOSED', { cause: error })
      throw error
    }
    this.instances.set(workspace.path, instance)
    return instance
  }

  /** Retires the least recently used idle server; with every server busy the new one cannot start. */
  private makeRoom(): void {
    const idle = [...this.instances.values()].filter((instance) => instance.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0]
    if (!idle) {
      throw new LspError(`${this.id}: all ${this.options.config.maxServers} servers are busy (maxServers)`, 'LSP_CAPACITY')
    }
    void this.retire(idle)
  }

  private retire(instance: ServerInstance): Promise<void> {
    const timer = this.idleTimers.get(instance)
    if (timer) clearTimeout(timer)
    this.idleTimers.delete(instance)
    if (this.instances.get(instance.workspace.path) === instance) this.instances.delete(instance.workspace.path)
    return this.track(instance.dispose())
  }

  private scheduleIdle(instance: ServerInstance): void {
    const previous = this.idleTimers.get(instance)
    if (previous) clearTimeout(previous)
    const timer = setTimeout(() => {
      this.idleTimers.delete(instance)
      if (instance.busy === 0 && this.instances.get(instance.workspace.path) === instance) void this.retire(instance)
    }, this.options.config.idleTimeoutMs)
    timer.unref()
    this.idleTimers.set(instance, timer)
  }

  private budget(key: string): CrashBudget {
    let budget = this.budgets.get(key)
    if (!budget) this.budgets.set(key, (budget = new CrashBudget(this.id, this.options.config.crashes)))
    return budget
  }

  /**
   * Serialises work per workspace. An aborted waiter gives up at once, but the queue's tail keeps
   * following the work actually running, so nobody overtakes it.
   */
  private enqueue<T>(key: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve()
    const result = raceAbort(previous, signal, queryAborted).then(work)
    const tail = previous.then(() => result).then(
      () => {},
      () => {},
    )
    this.queues.set(key, tail)
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key)
    })
    return result
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => {},
      () => {},
    )
    this.inFlight.add(settled)
    void settled.then(() => this.inFlight.delete(settled))
    return work
  }

  private async canonicalWorkspace(root: string, signal: AbortSignal): Promise<Workspace> {
    try {
      return await this.options.fs.workspace(root, signal)
    } catch (error) {
      if (signal.aborted) throw abortError(signal, queryAborted)
      const reason = error instanceof Error ? error.message : String(error)
      throw new LspError(`workspace "${root}" cannot be used: ${reason}`, 'LSP_WORKSPACE_INVALID', { cause: error })
    }
  }

  private async readSource(workspace: Workspace, filePath: string, signal: AbortSignal): Promise<ContainedText> {
    try {
      return await this.options.fs.readContainedText(workspace, filePath, { maxBytes: this.options.config.maxDocumentBytes, signal })
    } catch (error) {
      if (signal.aborted) throw abortError(signal, queryAborted)
      if (error instanceof FsError && error.code === 'FS_OUTSIDE_WORKSPACE') {
        throw new LspError(`source "${filePath}" resolves outside the workspace ${workspace.path}`, 'LSP_SOURCE_OUTSIDE_WORKSPACE', { cause: error })
      }
      const reason = error instanceof Error ? error.message : String(error)
      throw new LspError(`source "${filePath}" cannot be used: ${reason}`, 'LSP_SOURCE_INVALID', { cause: error })
    }
  }

  private guard(signal: AbortSignal | undefined): void {
    if (this.disposed) throw new LspError(`${this.id}: lsp-stdio provider is disposed`, 'LSP_DISPOSED')
    if (signal?.aborted) throw abortError(signal, queryAborted)
  }

  private withExtensions(status: CapabilityStatus): CapabilityStatus {
    return { state: status.state, detail: `${status.detail} [${Object.keys(this.extensionToLanguage).join(' ')}]` }
  }

  private describe(instance: ServerInstance): string {
    const name = instance.serverInfo ? `${instance.serverInfo.name}${instance.serverInfo.version ? ` ${instance.serverInfo.version}` : ''}` : basename(this.options.executable)
    return `${name}, pid ${instance.pid}, workspace ${instance.workspace.path}`
  }
}
