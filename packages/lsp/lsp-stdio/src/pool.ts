import { HarnessError, Lifetime, type SubprocessService, type Workspace } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import type { ServerConfig } from './config.ts'
import { IdleEviction } from './idle.ts'
import { ServerInstance } from './instance.ts'
import type { Launch } from './launch.ts'
import type { ServerRoot } from './roots.ts'

export interface PoolOptions {
  readonly serverId: string
  readonly config: ServerConfig
  readonly subprocess: SubprocessService
  readonly report: (message: string) => void
  /** Throws when no new server may start for the workspace now (the crash budget). */
  readonly assertMayStart: (workspace: string) => void
}

/**
 * The live processes of one configured server: one per canonical workspace, at most `maxServers`,
 * each shut down once unused for `idleTimeoutMs`. Once closed it starts nothing, so no caller that
 * was still queued (a query or a readiness probe) can spawn a server into a disposed pool.
 */
export class ServerPool {
  private readonly instances = new Map<string, ServerInstance>()
  /** Teardowns of retired servers, which closing must wait for too. */
  /** Tracks the teardowns still running. */
  private readonly retiring = new Lifetime()
  private readonly idle: IdleEviction<ServerInstance>
  private closed = false

  constructor(private readonly options: PoolOptions) {
    this.idle = new IdleEviction(options.config.idleTimeoutMs, (instance) => {
      if (instance.busy === 0 && this.instances.get(instance.workspace.path) === instance) void this.retire(instance)
    })
  }

  /**
   * The live server for the workspace, or a new one started as `launch` says (subject to the crash
   * budget and the cap). `launch` is asked for only when a server has to start.
   */
  async acquire(workspace: ServerRoot, launch: () => Launch | Promise<Launch>): Promise<ServerInstance> {
    this.assertOpen()
    const serving = this.serving(workspace)
    if (serving) return serving
    const current = this.instances.get(workspace.path)
    if (current) void this.retire(current)
    this.options.assertMayStart(workspace.path)
    const how = await launch()
    this.assertOpen()
    if (this.instances.size >= this.options.config.maxServers) this.makeRoom()
    let instance: ServerInstance
    try {
      const { serverId, config, subprocess, report } = this.options
      instance = new ServerInstance({ serverId, config, launch: how, workspace, subprocess, report })
    } catch (error) {
      if (error instanceof HarnessError && error.code === 'SUBPROCESS_SHUT_DOWN') throw new LspError(`${this.options.serverId}: the host is shutting down`, 'LSP_DISPOSED', { cause: error })
      throw error
    }
    this.instances.set(workspace.path, instance)
    return instance
  }

  /** The workspace's server when one is running and the pool open (no promise: the warm path of every query). */
  serving(workspace: ServerRoot): ServerInstance | undefined {
    if (this.closed) return undefined
    const current = this.instances.get(workspace.path)
    return current && !current.dead ? current : undefined
  }

  private assertOpen(): void {
    if (this.closed) throw new LspError(`${this.options.serverId}: lsp-stdio provider is disposed`, 'LSP_DISPOSED')
  }

  /** After use: a dead server goes (the promise is its teardown), a live one starts its idle countdown. */
  release(instance: ServerInstance): Promise<void> | undefined {
    if (instance.dead) return this.retire(instance)
    this.idle.schedule(instance)
    return undefined
  }

  /** Takes the server out of the pool and stops it. */
  retire(instance: ServerInstance): Promise<void> {
    this.idle.cancel(instance)
    if (this.instances.get(instance.workspace.path) === instance) this.instances.delete(instance.workspace.path)
    const teardown = instance.dispose()
    this.retiring.track(teardown)
    return teardown
  }

  /**
   * Stops every server whose launch's trusted decision was revoked (trusted.json changed); the next
   * query to its workspace launches under the decision as it is now. Resolves with the roots stopped.
   */
  async retireRevoked(): Promise<string[]> {
    const checked = await Promise.all(this.live().map(async (instance) => ({ instance, revoked: (await instance.launch.revoked?.()) === true })))
    const stopped: string[] = []
    for (const { instance, revoked } of checked) {
      // Still the pool's own (not retired or replaced while trust was read again).
      if (!revoked || this.instances.get(instance.workspace.path) !== instance) continue
      stopped.push(instance.workspace.path)
      void this.retire(instance)
    }
    return stopped
  }

  /** The servers in the pool that are still running. */
  live(): ServerInstance[] {
    return [...this.instances.values()].filter((instance) => !instance.dead)
  }

  /** The most recently used server still in the pool. */
  newest(): ServerInstance | undefined {
    let newest: ServerInstance | undefined
    for (const instance of this.instances.values()) if (!newest || instance.lastUsed > newest.lastUsed) newest = instance
    return newest
  }

  /** Starts nothing more, stops every server, and resolves when all of them (and earlier retirements) are gone. */
  async close(): Promise<void> {
    this.closed = true
    this.idle.clear()
    const instances = [...this.instances.values()]
    this.instances.clear()
    const [teardowns] = await Promise.all([Promise.allSettled(instances.map((instance) => this.retire(instance))), this.retiring.settled()])
    const failures = teardowns.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
    if (failures.length === 1) throw failures[0]
    if (failures.length > 1) throw new AggregateError(failures, 'lsp-stdio instance teardown failed')
  }

  /** Makes room by retiring the least recently used idle server; with every server busy the new one cannot start. */
  private makeRoom(): void {
    let idlest: ServerInstance | undefined
    for (const instance of this.instances.values()) {
      if (instance.busy === 0 && (!idlest || instance.lastUsed < idlest.lastUsed)) idlest = instance
    }
    if (!idlest) throw new LspError(`${this.options.serverId}: all ${this.options.config.maxServers} servers are busy (maxServers)`, 'LSP_CAPACITY')
    void this.retire(idlest)
  }
}
