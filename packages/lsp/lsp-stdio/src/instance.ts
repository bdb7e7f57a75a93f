import { abortError, assertNever, deadline, envFromConfig, raceAbort, type ChildHandle, type ContainedText, type SubprocessService, type Workspace } from 'dsh-core'
import { LspError, type LspProviderQuery, type LspQueryResult } from 'dsh-lsp'
import { CancellationTokenSource } from 'vscode-jsonrpc/node'
import { LSPErrorCodes, type InitializeParams, type InitializeResult, type ServerCapabilities } from 'vscode-languageserver-protocol'
import { queryAborted } from './aborted.ts'
import type { ServerConfig } from './config.ts'
import { LspConnection } from './connection.ts'
import type { Launch } from './launch.ts'
import { ProgressTracker } from './progress.ts'
import type { ServerRoot } from './roots.ts'
import { answerServerRequest } from './server-requests.ts'
import { settlesWithin } from './settle.ts'
import { checkPositionEncoding, methodOf, supportsOperation, supportsTransientOpen, toHover, toLocations } from './translate.ts'

export type InstanceState = 'starting' | 'indexing' | 'ready' | 'stopped'

export interface InstanceOptions {
  readonly serverId: string
  readonly config: ServerConfig
  readonly launch: Launch
  /** The directory the server runs in and is initialised with. */
  readonly workspace: ServerRoot
  readonly subprocess: SubprocessService
  /** Says what the server is doing (for progress on a terminal). */
  readonly report: (message: string) => void
}

const CLIENT_CAPABILITIES: InitializeParams['capabilities'] = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true, showMessage: {}, showDocument: { support: false } },
  workspace: { workspaceFolders: true, configuration: true, applyEdit: false },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
  },
}

/**
 * One language server process for one canonical workspace. Queries open the document, ask, and
 * close it again (transient open); they wait, bounded, for the server's own progress (project
 * loading) so a cold server does not answer from a half-loaded project.
 */
export class ServerInstance {
  readonly workspace: ServerRoot
  readonly ready: Promise<ServerCapabilities>
  lastUsed = Date.now()
  /** Queries running on this instance. */
  busy = 0
  serverInfo: { name: string; version?: string } | undefined
  private readonly child: ChildHandle
  private readonly connection: LspConnection
  private readonly progress: ProgressTracker
  private initialized = false
  /** The server answered `initialize`: it speaks LSP, so it is owed `shutdown`/`exit` even if we then refuse it. */
  private answered = false
  private disposed = false
  private teardown: Promise<void> | undefined

  constructor(private readonly options: InstanceOptions) {
    const { config, workspace } = options
    this.workspace = workspace
    this.progress = new ProgressTracker(config.indexingTimeoutMs, config.progressTimeoutMs)
    const env = envFromConfig(config.env)
    this.child = options.subprocess.spawn({
      argv: [options.launch.executable, ...options.launch.args],
      cwd: workspace.path,
      env,
      stdin: 'pipe',
      stdout: 'pipe',
      stderrTailBytes: config.maxStderrBytes,
      graceMs: config.killGraceMs,
    })
    this.connection = new LspConnection(this.child, options.serverId, config, {
      onServerRequest: (method, params) => answerServerRequest(method, params, { workspace, configuration: config.configuration, progress: this.progress }),
      onProgress: (token, value) => {
        const wasBusy = this.progress.busy
        this.progress.update(token, value)
        const title = this.progress.title
        if (title) options.report(title)
        else if (wasBusy && !this.progress.busy) options.report('ready')
      },
    })
    this.ready = this.initialize()
    this.ready.catch(() => {})
  }

  get launch(): Launch {
    return this.options.launch
  }

  get pid(): number {
    return this.child.pid
  }

  /** True once the process is gone or going: such an instance is never reused. */
  get dead(): boolean {
    return this.disposed || this.connection.failure !== undefined || !this.child.running
  }

  get state(): InstanceState {
    if (this.dead) return 'stopped'
    if (!this.initialized) return 'starting'
    return this.progress.busy ? 'indexing' : 'ready'
  }

  get indexingTitle(): string | undefined {
    return this.progress.title
  }

  /** The last progress token treated as ended because it outlived `progressTimeoutMs`. */
  get expiredProgress(): { readonly title: string; readonly lifetimeMs: number } | undefined {
    return this.progress.expired
  }

  /** True when `error` is this instance's transport failure (the provider replays such a query once). */
  isTransportFailure(error: unknown): boolean {
    return this.connection.isFatal(error)
  }

  async query(request: LspProviderQuery, source: ContainedText, signal: AbortSignal): Promise<LspQueryResult> {
    if (this.disposed) throw new LspError(`${this.options.serverId}: the server instance was disposed`, 'LSP_DISPOSED')
    if (signal.aborted) throw abortError(signal, queryAborted)
    this.busy++
    this.lastUsed = Date.now()
    try {
      return await this.run(request, source, signal)
    } finally {
      this.busy--
      this.lastUsed = Date.now()
    }
  }

  /** Graceful `shutdown`/`exit` within `shutdownTimeoutMs`, then the process group is ended for sure. Shared by all callers. */
  dispose(): Promise<void> {
    return this.end(true)
  }

  /** Like `dispose()`, but `graceful: false` skips the polite phase for a server known not to listen. */
  private end(graceful: boolean): Promise<void> {
    this.disposed = true
    this.teardown ??= this.stop(graceful)
    return this.teardown
  }

  private async run(request: LspProviderQuery, source: ContainedText, signal: AbortSignal): Promise<LspQueryResult> {
    let capabilities: ServerCapabilities
    try {
      capabilities = await raceAbort(this.ready, signal, queryAborted)
    } catch (error) {
      // A server that failed its handshake (or whose handshake we gave up on) is never pooled.
      await this.dispose()
      throw error
    }
    const { serverId } = this.options
    if (!supportsOperation(capabilities, request.operation)) {
      throw new LspError(`${serverId}: the language server does not support ${request.operation}`, 'LSP_UNSUPPORTED_OPERATION')
    }
    if (!supportsTransientOpen(capabilities)) {
      throw new LspError(`${serverId}: the language server does not support transient textDocument/didOpen and didClose`, 'LSP_UNSUPPORTED_OPERATION')
    }
    const textDocument = { uri: source.url }
    try {
      await this.connection.notify('textDocument/didOpen', { textDocument: { ...textDocument, languageId: request.languageId, version: 1, text: source.text } }, signal)
    } catch (error) {
      // The frame may be half-written: the stream cannot be trusted any more.
      await this.dispose()
      throw error
    }
    try {
      return await this.ask(request, textDocument, signal)
    } finally {
      // Not awaited: the writer keeps message order, so the next didOpen still follows this
      // didClose; a failed write makes the stream untrustworthy, so the instance goes.
      if (!this.dead) void this.connection.notify('textDocument/didClose', { textDocument }).catch(() => this.dispose())
    }
  }

  /**
   * Asks once the server is quiet. If the server started new work while we asked (a cold project
   * loading), the answer came from a half-loaded project: wait for the work to end and ask again.
   */
  private async ask(request: LspProviderQuery, textDocument: { uri: string }, signal: AbortSignal): Promise<LspQueryResult> {
    let complete = await this.progress.waitQuiet(signal)
    const epoch = this.progress.epoch
    let payload = await this.request(request, textDocument, signal)
    if (this.progress.epoch !== epoch || this.progress.busy) {
      complete = await this.progress.waitQuiet(signal)
      if (complete) payload = await this.request(request, textDocument, signal)
    }
    switch (request.operation) {
      case 'hover':
        return { kind: 'hover', hover: toHover(payload), complete }
      case 'goToDefinition':
      case 'findReferences':
      case 'goToImplementation':
        return { kind: 'locations', locations: toLocations(payload), resolvedWorkspaceUri: this.workspace.url, complete }
      default:
        return assertNever(request.operation, 'LSP operation')
    }
  }

  /** One request, retried once when the server says its content was modified meanwhile. */
  private async request(request: LspProviderQuery, textDocument: { uri: string }, signal: AbortSignal): Promise<unknown> {
    const params = {
      textDocument,
      position: { line: request.position.line, character: request.position.character },
      ...(request.operation === 'findReferences' ? { context: { includeDeclaration: true } } : {}),
    }
    const method = methodOf(request.operation)
    try {
      return await this.send(method, params, signal)
    } catch (error) {
      if (!(error instanceof LspError && error.rpcCode === LSPErrorCodes.ContentModified)) throw error
      return this.send(method, params, signal)
    }
  }

  /**
   * Sends a request under the request deadline. On abort it sends `$/cancelRequest` and gives the
   * server `killGraceMs` to settle; a server that does not is ended at once (it has shown it is not
   * listening, so a polite `shutdown` would only make the caller wait `shutdownTimeoutMs` more), so
   * a runaway request can never overlap the next query.
   */
  private async send(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const { config, serverId } = this.options
    const budget = deadline(signal, config.requestTimeoutMs, 'LSP_TIMEOUT')
    const cancellation = new CancellationTokenSource()
    const pending = this.connection.request<unknown>(method, params, cancellation.token)
    pending.catch(() => {})
    try {
      return await raceAbort(pending, budget.signal)
    } catch (error) {
      if (!budget.signal.aborted) throw error
      cancellation.cancel()
      if (!(await settlesWithin(pending, config.killGraceMs))) await this.end(false)
      if (budget.expired) throw new LspError(`${serverId}: ${method} got no answer within ${config.requestTimeoutMs} ms`, 'LSP_TIMEOUT')
      throw abortError(signal, queryAborted)
    } finally {
      budget.dispose()
      cancellation.dispose()
    }
  }

  /**
   * One round trip before the first document is opened. Some servers answer `initialized` by asking
   * us for their configuration and ignore documents opened before that answer arrives, yet answer
   * requests about them (bash-language-server returns nothing for the first query of every fresh
   * server). A `$/` request is one the protocol obliges every server to refuse at once
   * (MethodNotFound); its reply arrives after everything the server sent before it, including
   * that configuration request, which we answer first. A server that does not reply costs at most
   * `handshakeSettleMs`.
   */
  private async settleAfterInitialized(): Promise<void> {
    const { handshakeSettleMs } = this.options.config
    if (handshakeSettleMs === 0) return
    const budget = deadline(undefined, handshakeSettleMs, 'LSP_HANDSHAKE_SETTLE')
    const cancellation = new CancellationTokenSource()
    try {
      await raceAbort(this.connection.request('$/dsh/settle', null, cancellation.token), budget.signal)
    } catch (error) {
      // The refusal is the expected answer; only a dead connection matters, and it surfaces on the next write.
      if (this.connection.isFatal(error)) throw error
    } finally {
      budget.dispose()
      cancellation.dispose()
    }
  }

  private async initialize(): Promise<ServerCapabilities> {
    const { config, serverId, workspace } = this.options
    this.options.report('starting')
    const budget = deadline(undefined, config.initializeTimeoutMs, 'LSP_INITIALIZE_TIMEOUT')
    const cancellation = new CancellationTokenSource()
    const params: InitializeParams = {
      processId: config.processId === 'host' ? process.pid : null,
      clientInfo: { name: 'dsh-lsp-stdio' },
      rootUri: workspace.url,
      workspaceFolders: [{ uri: workspace.url, name: 'workspace' }],
      initializationOptions: this.options.launch.initializationOptions,
      capabilities: CLIENT_CAPABILITIES,
    }
    try {
      const result = await raceAbort(this.connection.request<InitializeResult>('initialize', params, cancellation.token), budget.signal)
      this.answered = true
      if (typeof result?.capabilities !== 'object' || result.capabilities === null) {
        throw new LspError(`${serverId}: the initialize result has no capabilities`, 'LSP_MALFORMED_RESPONSE')
      }
      checkPositionEncoding(result.capabilities)
      if (result.serverInfo && typeof result.serverInfo.name === 'string') this.serverInfo = result.serverInfo
      await this.connection.notify('initialized', {})
      await this.settleAfterInitialized()
      this.initialized = true
      this.options.report('initialized')
      return result.capabilities
    } catch (error) {
      if (budget.expired) {
        throw new LspError(`${serverId}: the language server did not answer initialize within ${config.initializeTimeoutMs} ms`, 'LSP_SERVER_START_FAILED')
      }
      throw error
    } finally {
      budget.dispose()
      cancellation.dispose()
    }
  }

  private async stop(graceful: boolean): Promise<void> {
    const { config } = this.options
    if (graceful && this.answered && !this.connection.failure && this.child.running) {
      const budget = deadline(undefined, config.shutdownTimeoutMs, 'LSP_SHUTDOWN')
      const cancellation = new CancellationTokenSource()
      try {
        await raceAbort(this.connection.request('shutdown', null, cancellation.token), budget.signal)
        await this.connection.notify('exit', null, budget.signal)
        await raceAbort(this.child.exited, budget.signal)
      } catch {
        // Whatever went wrong, the process group is ended below.
      } finally {
        budget.dispose()
        cancellation.dispose()
      }
    }
    await this.child.terminate()
    this.connection.fail(new LspError(`${this.options.serverId}: the server instance was disposed`, 'LSP_DISPOSED'))
  }
}
