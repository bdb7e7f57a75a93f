import { abortError, FsError, quote, raceAbort, type CapabilityStatus, type ContainedText, type FileSystem, type ProbeContext, type SubprocessService, type Workspace } from 'dsh-core'
import { LspError, type LspProvider, type LspProviderQuery, type LspQueryResult } from 'dsh-lsp'
import { queryAborted } from './aborted.ts'
import type { ServerConfig } from './config.ts'
import type { ServerInstance } from './instance.ts'
import type { Launch, Launcher } from './launch.ts'
import { ServerPool } from './pool.ts'
import { Preflight } from './preflight.ts'
import { WorkQueue } from './queue.ts'
import { trackUntilSettled } from './settle.ts'
import { fuseSignals } from './signals.ts'
import { probeFailureStatus, providerStatus, withExtensions } from './status.ts'
import { Supervision, type FailureKind, type TransportOwner } from './supervision.ts'

export interface ProviderOptions {
  readonly id: string
  readonly config: ServerConfig
  /** How the server starts for a workspace. */
  readonly launcher: Launcher
  readonly fs: FileSystem
  readonly subprocess: SubprocessService
  /** Progress lines for long work (server start, indexing). */
  readonly report: (message: string) => void
}

/** The owner of a failure that happened before any server existed. */
const NO_SERVER: TransportOwner = { isTransportFailure: () => false }

/**
 * One configured language server, as an LSP provider. A query runs through the pipeline here:
 * canonical workspace, that workspace's queue, the source read at its turn, a pooled server
 * (ServerPool), one replay on a fresh server when the transport fails (Supervision says what a
 * crash is), and every wait bound to the caller's signal fused with the provider's lifetime.
 */
export class StdioLspProvider implements LspProvider {
  readonly id: string
  readonly extensionToLanguage: Readonly<Record<string, string>>
  private readonly pool: ServerPool
  private readonly queue = new WorkQueue()
  private readonly supervision: Supervision
  private readonly preflight: Preflight | undefined
  /** Workspace lookups in flight, which disposal waits for. */
  private readonly lookups = new Set<Promise<void>>()
  private readonly lifetime = new AbortController()
  private disposed = false

  constructor(private readonly options: ProviderOptions) {
    const { id, config, subprocess, report } = options
    this.id = id
    this.extensionToLanguage = { ...config.extensionToLanguage }
    this.supervision = new Supervision(id, config.crashes)
    this.pool = new ServerPool({ serverId: id, config, subprocess, report, assertMayStart: (workspace) => this.supervision.assertMayStart(workspace) })
    const { preflight } = config
    this.preflight = preflight ? new Preflight({ serverId: id, config: { ...config, preflight }, subprocess, lifetime: this.lifetime.signal }) : undefined
  }

  async query(request: LspProviderQuery, signal?: AbortSignal): Promise<LspQueryResult> {
    this.guard(signal)
    const scope = fuseSignals(this.lifetime.signal, signal)
    try {
      const workspace = await this.workspaceOf(request.workspaceRoot, scope.signal)
      this.guard(scope.signal)
      return await this.queue.run(workspace.path, scope.signal, async () => {
        this.guard(scope.signal)
        // Read at our turn in the queue, so a query sees what was written while it waited.
        const source = await this.readSource(workspace, request.filePath, scope.signal)
        this.guard(scope.signal)
        return this.runWithReplay(workspace, request, source, scope.signal)
      })
    } finally {
      scope.dispose()
    }
  }

  /** The state `dsh status` shows, with the extensions this server answers for. */
  status(): CapabilityStatus {
    const view = { launcher: this.options.launcher, blocked: this.supervision.blockedReason(), newest: this.pool.newest(), lastCrash: this.supervision.lastCrash, unusable: this.preflight?.failure }
    return withExtensions(providerStatus(view), this.extensionToLanguage)
  }

  /**
   * Starts (or reuses) the server for the probed workspace and reports how it came up. It waits
   * in the workspace's queue like a query and is bound to the provider's lifetime, so a probe
   * queued while the provider unloads starts nothing. Never throws.
   */
  async probe({ cwd, signal }: ProbeContext): Promise<CapabilityStatus> {
    const scope = fuseSignals(this.lifetime.signal, signal)
    let failure: FailureKind = 'none'
    try {
      this.guard(scope.signal)
      const workspace = await this.workspaceOf(cwd, scope.signal)
      await this.queue.run(workspace.path, scope.signal, async () => {
        this.guard(scope.signal)
        let instance: ServerInstance | undefined
        try {
          instance = await this.pool.acquire(workspace, () => this.launch(workspace, scope.signal))
          await raceAbort(instance.ready, scope.signal)
        } catch (error) {
          failure = this.supervision.settle(workspace.path, error, instance ?? NO_SERVER, scope.signal)
          if (instance) await this.pool.retire(instance)
          throw error
        }
        await this.pool.release(instance)
      })
      return this.status()
    } catch (error) {
      return withExtensions(probeFailureStatus(error, failure), this.extensionToLanguage)
    } finally {
      scope.dispose()
    }
  }

  /** Stops every server and waits for all in-flight work; later queries fail with LSP_DISPOSED. */
  async disposeAll(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true
      this.lifetime.abort(new LspError(`${this.id}: lsp-stdio provider is disposed`, 'LSP_DISPOSED'))
    }
    const closing = this.pool.close()
    // Queue tails and lookups never reject; only a server's teardown can.
    await Promise.all([closing.catch(() => {}), this.queue.drained(), ...this.lookups, ...(this.preflight?.pending() ?? [])])
    await closing
  }

  /**
   * One attempt, and when the server's transport failed under it, one more on a fresh server with
   * the source already read. Whatever happens, the server used last is released to the pool.
   */
  private async runWithReplay(workspace: Workspace, request: LspProviderQuery, source: ContainedText, signal: AbortSignal): Promise<LspQueryResult> {
    let instance = await this.start(workspace, signal)
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await instance.query(request, source, signal)
          this.supervision.succeeded(workspace.path)
          return result
        } catch (error) {
          if (this.supervision.settle(workspace.path, error, instance, signal) !== 'transport' || attempt > 1) throw error
        }
        await this.pool.retire(instance)
        this.guard(signal)
        instance = await this.start(workspace, signal)
      }
    } finally {
      await this.pool.release(instance)
    }
  }

  /** A server for the workspace; a start that fails at once counts like any other failure. */
  private async start(workspace: Workspace, signal: AbortSignal): Promise<ServerInstance> {
    try {
      return await this.pool.acquire(workspace, () => this.launch(workspace, signal))
    } catch (error) {
      this.supervision.settle(workspace.path, error, NO_SERVER, signal)
      throw error
    }
  }

  /** How a new server starts for the workspace, once the row's preflight passed there. */
  private async launch(workspace: Workspace, signal: AbortSignal): Promise<Launch> {
    const launch = await this.options.launcher.launch(workspace, signal)
    await this.preflight?.assert(launch.executable, workspace.path, signal)
    return launch
  }

  private async workspaceOf(root: string, signal: AbortSignal): Promise<Workspace> {
    const lookup = this.options.fs.workspace(root, signal)
    trackUntilSettled(this.lookups, lookup)
    try {
      return await lookup
    } catch (error) {
      if (signal.aborted) throw abortError(signal, queryAborted)
      const reason = error instanceof Error ? error.message : String(error)
      throw new LspError(`workspace ${quote(root)} cannot be used: ${reason}`, 'LSP_WORKSPACE_INVALID', { cause: error })
    }
  }

  private async readSource(workspace: Workspace, filePath: string, signal: AbortSignal): Promise<ContainedText> {
    try {
      return await this.options.fs.readContainedText(workspace, filePath, { maxBytes: this.options.config.maxDocumentBytes, signal })
    } catch (error) {
      if (signal.aborted) throw abortError(signal, queryAborted)
      if (error instanceof FsError && error.code === 'FS_OUTSIDE_WORKSPACE') {
        throw new LspError(`source ${quote(filePath)} resolves outside the workspace ${workspace.path}`, 'LSP_SOURCE_OUTSIDE_WORKSPACE', { cause: error })
      }
      const reason = error instanceof Error ? error.message : String(error)
      throw new LspError(`source ${quote(filePath)} cannot be used: ${reason}`, 'LSP_SOURCE_INVALID', { cause: error })
    }
  }

  private guard(signal: AbortSignal | undefined): void {
    if (this.disposed) throw new LspError(`${this.id}: lsp-stdio provider is disposed`, 'LSP_DISPOSED')
    if (signal?.aborted) throw abortError(signal, queryAborted)
  }
}
