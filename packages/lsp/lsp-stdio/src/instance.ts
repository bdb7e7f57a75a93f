import { assertNever, errorFromReason, envFromConfig, Lifetime, oneLine, type ChildHandle, type ContainedText, type SubprocessService, type Workspace } from 'dsh-core'
import { LspError, type LspCall, type LspCallDirection, type LspDiagnostic, type LspDocumentSymbol, type LspFileChangeKind, type LspOperation, type LspPosition, type LspProviderQuery, type LspQueryResult, type LspRange, type LspWorkspaceSymbol } from 'dsh-lsp'
import { FileChangeType, LSPErrorCodes, MessageType, type InitializeParams, type InitializeResult, type ServerCapabilities, type SymbolKind } from 'vscode-languageserver-protocol'
import { queryAborted } from './aborted.ts'
import { CallScope } from './call-scope.ts'
import type { ServerConfig } from './config.ts'
import { LspConnection, type RequestOptions } from './connection.ts'
import { HANDED } from './message-writer.ts'
import type { Launch } from './launch.ts'
import { ProgressTracker } from './progress.ts'
import { digestOf, KeptDocuments } from './documents.ts'
import { PublishedDiagnostics, type DiagnosticsWatch } from './published-diagnostics.ts'
import type { ServerRoot } from './roots.ts'
import { answerServerRequest } from './server-requests.ts'
import { toDiagnostics, toDocumentSymbols, toPulledDiagnostics, toWorkspaceSymbols } from './translate-capabilities.ts'
import { toCallHierarchyItem, toCallHierarchyItems, toCalls, toPrepareRename, toWorkspaceEdit, type TranslatedEdit } from './translate-edits.ts'
import { nameAt, textIn } from './source-text.ts'
import { RenameRefusals } from './rename-refusal.ts'
import { settling } from './settling.ts'
import { offersTsserverRequests, toTsserverDiagnostics, TSSERVER_DIAGNOSTIC_REQUESTS, TSSERVER_REQUEST } from './tsserver-diagnostics.ts'
import { acceptsWholeChanges, checkPositionEncoding, methodOf, supportsOperation, supportsTransientOpen, toHover, toLocations, wantsSave } from './translate.ts'

export type InstanceState = 'starting' | 'indexing' | 'ready' | 'stopped'

/** Diagnostics are asked of any server (pulled, or the publication awaited). */
const ALWAYS_SUPPORTED = { supported: () => true as const }

/** What the server must offer for a query of each operation (true, or the name of what is missing); one check per operation, not an object and a closure per query. */
type Support = { readonly supported: (capabilities: ServerCapabilities) => true | string }
const supportOf = (operation: LspOperation): Support => ({ supported: (capabilities) => supportsOperation(capabilities, operation) || operation })
const QUERY_SUPPORT: Readonly<Record<LspOperation, Support>> = {
  goToDefinition: supportOf('goToDefinition'),
  findReferences: supportOf('findReferences'),
  goToImplementation: supportOf('goToImplementation'),
  hover: supportOf('hover'),
}

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

/** SymbolKind 1–26: what translation accepts. */
const SYMBOL_KINDS = { valueSet: Array.from({ length: 26 }, (_, index) => (index + 1) as SymbolKind) }

const CLIENT_CAPABILITIES: InitializeParams['capabilities'] = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true, showMessage: {}, showDocument: { support: false } },
  // workspaceEdit: what rename answers may hold (dsh-tool-lsp applies them itself, never through applyEdit).
  workspace: {
    workspaceFolders: true,
    configuration: true,
    applyEdit: false,
    symbol: { symbolKind: SYMBOL_KINDS },
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], failureHandling: 'abort' },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    // Tags (unnecessary, deprecated): pyright sends its "not accessed" hints only to clients that declare them.
    publishDiagnostics: { relatedInformation: true, versionSupport: true, tagSupport: { valueSet: [1, 2] } },
    diagnostic: { dynamicRegistration: false, tagSupport: { valueSet: [1, 2] } },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true, symbolKind: SYMBOL_KINDS },
    rename: { dynamicRegistration: false, prepareSupport: true },
    callHierarchy: { dynamicRegistration: false },
  },
}

/** The progress token of work announced in the server's log (`logProgress`); no server's own token is a string starting so. */
const LOG_PROGRESS_TOKEN = '$dsh/log-progress'

/** What a file change is called in `workspace/didChangeWatchedFiles`. */
const FILE_CHANGE_TYPES: Record<LspFileChangeKind, FileChangeType> = { created: FileChangeType.Created, changed: FileChangeType.Changed, deleted: FileChangeType.Deleted }

/** An open document: its URI and the version it was opened with. */
interface OpenDocument {
  readonly uri: string
  readonly version: number
}

/**
 * One language server process for one canonical workspace. Requests open their document, ask, and
 * close it again (transient open), or, on a server that keeps documents (pull diagnostics), leave it
 * open for the next request; they wait, bounded, for the server's own progress (project loading) so
 * a cold server does not answer from a half-loaded project.
 */
export class ServerInstance {
  readonly workspace: ServerRoot
  readonly ready: Promise<ServerCapabilities>
  lastUsed = Date.now()
  /** Calls using this instance now: from `claim()` to `unclaim()` (the provider's attempt; idle eviction and the cap look at it). */
  busy = 0
  serverInfo: { name: string; version?: string } | undefined
  private readonly child: ChildHandle
  private readonly connection: LspConnection
  private readonly progress: ProgressTracker
  private readonly published = new PublishedDiagnostics()
  private readonly fatalLog: readonly RegExp[]
  private readonly logProgress: { readonly title: string; readonly begin: RegExp; readonly end: RegExp } | undefined
  /** Documents left open between requests (on a server answering pulled diagnostics: every document asked about, see keepsDocuments). */
  private readonly kept: KeptDocuments
  /**
   * Kept documents whose file a writer changed since their text was sent (fileChanged), by URI, with
   * the file's path: read and sent before the next request on this server (see `changedOnDisk`).
   */
  private readonly changed = new Map<string, string>()
  /** Every open gets a version no earlier open had, so a late answer to an earlier open is never taken for ours. */
  private nextVersion = 1
  /** The server refused the handshake's `$/` request in time: such a request can serve as a barrier. */
  private answersBarrier = false
  private initialized = false
  /** What the server said it can do, once its handshake is done. */
  private capabilities: ServerCapabilities | undefined
  /** The server answered `initialize`: it speaks LSP, so it is owed `shutdown`/`exit` even if we then refuse it. */
  private answered = false
  private disposed = false
  private teardown: Promise<void> | undefined
  /** What every request does when the server ignores its cancel (one object for all of them, not one per request). */
  private readonly ignoredCancel: RequestOptions['ignoredCancel']

  constructor(private readonly options: InstanceOptions) {
    const { config, workspace } = options
    this.workspace = workspace
    this.progress = new ProgressTracker(config.indexingTimeoutMs, config.progressTimeoutMs)
    this.kept = new KeptDocuments(config.maxOpenDocuments)
    this.ignoredCancel = { graceMs: config.killGraceMs, then: () => this.end(false) }
    this.fatalLog = config.fatalLogPatterns.map((source) => new RegExp(source))
    const { logProgress } = config
    this.logProgress = logProgress && { title: logProgress.title, begin: new RegExp(logProgress.begin), end: new RegExp(logProgress.end) }
    const env = envFromConfig({ ...options.launch.env, ...config.env })
    const configuration = options.launch.configuration === undefined ? config.configuration : options.launch.configuration
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
      onServerRequest: (method, params) => answerServerRequest(method, params, { workspace, configuration, progress: this.progress, maxContentBytes: config.maxDocumentBytes }),
      onProgress: (token, value) => this.onProgress(token, value),
      onNotification: (method, params) => {
        if (method === 'textDocument/publishDiagnostics') this.published.record(params)
        else if (method === 'window/logMessage' || method === 'window/showMessage') this.readLog(method, params)
      },
      onFatal: (error) => this.progress.fail(error),
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

  /**
   * The query's answer, its locations' `resolvedWorkspaceUri` the caller's `workspaceUri` (the
   * workspace it names files relative to; this server's root by default). On a warm server with the
   * document kept and unchanged: a pass to the pipe write, and one promise for the answer.
   */
  query(request: LspProviderQuery, source: ContainedText, bound: Bound, workspaceUri: string = this.workspace.url): Promise<LspQueryResult> {
    return this.use(bound, () =>
      this.opened(source, request.languageId, bound, QUERY_SUPPORT[request.operation], (document) => this.ask(request, document, bound, workspaceUri)),
    )
  }

  /**
   * The file's diagnostics as the server sees its current text: pulled (`textDocument/diagnostic`)
   * when the server offers that, else the publication that answers the open (see
   * PublishedDiagnostics), waited for at most `diagnosticsWaitMs` once the server is quiet.
   */
  diagnostics(source: ContainedText, languageId: string, bound: Bound): Promise<{ items: LspDiagnostic[]; complete: boolean }> {
    // A server known to answer pulls (TypeScript 7's) publishes nothing to wait for: no watch to
    // make and dispose, and no layer for it, on a call a writer makes after every edit. Its pull
    // follows the call's scope as a query does: no lifetime of the call's made for it.
    if (this.capabilities?.diagnosticProvider) return this.use(bound, () => this.opened(source, languageId, bound, ALWAYS_SUPPORTED, (document) => this.pulledDiagnostics(document, bound)))
    return this.use(bound, async () => {
      // Waits for the server's work and a publication: on the call's lifetime.
      const lifetime = bound instanceof CallScope ? bound.lifetime : bound
      const watch = this.published.watch(source.url)
      try {
        return await this.opened(source, languageId, lifetime, ALWAYS_SUPPORTED, (document, capabilities) => {
          if (capabilities.diagnosticProvider) return this.pulledDiagnostics(document, lifetime)
          if (offersTsserverRequests(capabilities)) return this.tsserverDiagnostics(document, lifetime)
          return this.pushedDiagnostics(document, watch, lifetime)
        })
      } finally {
        watch.dispose()
      }
    })
  }

  /** The file's outline (`textDocument/documentSymbol`). */
  documentSymbols(source: ContainedText, languageId: string, bound: Bound): Promise<{ symbols: LspDocumentSymbol[]; complete: boolean }> {
    return this.use(bound, () =>
      this.opened(source, languageId, bound, { supported: (capabilities) => offered(capabilities.documentSymbolProvider) || 'documentSymbols' }, async (document) => {
        const { payload, complete } = await this.askWhenQuiet('textDocument/documentSymbol', { textDocument: { uri: document.uri } }, bound)
        return { symbols: toDocumentSymbols(payload), complete }
      }),
    )
  }

  /**
   * `workspace/symbol`, with `anchor` open meanwhile: some servers (tsserver) search only the
   * projects of open files.
   */
  workspaceSymbols(query: string, anchor: { source: ContainedText; languageId: string }, lifetime: Lifetime): Promise<{ symbols: LspWorkspaceSymbol[]; complete: boolean }> {
    return this.use(lifetime, () =>
      this.opened(anchor.source, anchor.languageId, lifetime, { supported: (capabilities) => offered(capabilities.workspaceSymbolProvider) || 'workspaceSymbols' }, async () => {
        const { payload, complete } = await this.askWhenQuiet('workspace/symbol', { query }, lifetime)
        return { symbols: toWorkspaceSymbols(payload), complete }
      }),
    )
  }

  /**
   * What renaming the symbol at `position` takes: `textDocument/prepareRename` first when the server
   * offers it (a refusal is LSP_RENAME_REFUSED), then `textDocument/rename`. Nothing is applied.
   * With `describe`, the server's hover at the position too (`display`: its first line, such as
   * `(property) Circle.radius: number`), for a new name only some kinds of symbol may take.
   */
  rename(
    source: ContainedText,
    languageId: string,
    position: LspPosition,
    newName: string,
    bound: Bound,
    describe = false,
  ): Promise<TranslatedEdit & { oldName: string; complete: boolean; display?: string | undefined }> {
    const refusals = new RenameRefusals(this.options.serverId, position, newName)
    let prepared = false
    // A server refuses a rename by an error answer as often as by null (TypeScript: "You cannot rename this element").
    const refusable = async <T>(ask: () => Promise<T>, refused: (why: string, options: ErrorOptions & { rpcCode?: number }) => LspError): Promise<T> => {
      try {
        return await ask()
      } catch (error) {
        if (error instanceof LspError && error.code === 'LSP_SERVER_ERROR') throw refused(refusals.reasonOf(error), { cause: error, ...(error.rpcCode === undefined ? {} : { rpcCode: error.rpcCode }) })
        throw error
      }
    }
    const refused = (why: string) => refusals.symbol(why)
    return this.use(bound, () =>
      this.opened(source, languageId, bound, { supported: (capabilities) => offered(capabilities.renameProvider) || 'rename' }, async (document, capabilities) => {
        const textDocument = { uri: document.uri }
        let nameRange: LspRange | undefined
        const provider = capabilities.renameProvider
        if (typeof provider === 'object' && provider !== null && provider.prepareProvider === true) {
          const { payload } = await refusable(() => this.askWhenQuiet('textDocument/prepareRename', { textDocument, position }, bound), (why, options) => refusals.symbol(why, options))
          const preparation = toPrepareRename(payload)
          if (preparation === 'refused') throw refused('the language server says it is not a renameable symbol')
          if (preparation !== 'default') nameRange = preparation.range
          prepared = true
        }
        const { payload, complete } = await refusable(() => this.askWhenQuiet('textDocument/rename', { textDocument, position, newName }, bound), (why, options) => refusals.renameTo(why, prepared, options))
        if (payload === null) throw refused('the language server gave no edit')
        const edit = toWorkspaceEdit(payload)
        if (!edit.files.some((file) => file.edits.length) && !edit.fileOperations.length) throw refused('the language server gave an empty edit')
        const oldName = nameRange ? textIn(source.text, nameRange) : nameAt(source.text, position)
        if (!describe || !capabilities.hoverProvider) return { ...edit, oldName, complete }
        return { ...edit, oldName, complete, display: await this.displayAt(textDocument, position, bound) }
      }),
    )
  }

  /**
   * The first line of the server's hover at `position` (what the symbol is), or undefined when it
   * has none or answers it with an error or a malformed hover: the rename's new-name rule then
   * judges without it. The transport failing, or the caller giving up, still fails the rename.
   */
  private async displayAt(textDocument: { uri: string }, position: LspPosition, bound: Bound): Promise<string | undefined> {
    try {
      const { payload } = await this.askWhenQuiet('textDocument/hover', { textDocument, position }, bound)
      return firstCodeLine(toHover(payload)?.contents)
    } catch (error) {
      if (error instanceof LspError && (error.code === 'LSP_SERVER_ERROR' || error.code === 'LSP_MALFORMED_RESPONSE')) return undefined
      throw error
    }
  }

  /**
   * The calls into (`incoming`) or out of (`outgoing`) what is at `position`, level by level (the
   * direct calls first) down to `depth`, at most `maxCalls` in all. Each function is expanded once:
   * a recursion or a function reached twice is listed again without its calls.
   */
  callHierarchy(
    source: ContainedText,
    languageId: string,
    request: { readonly position: LspPosition; readonly direction: LspCallDirection; readonly depth: number; readonly maxCalls: number },
    bound: Bound,
  ): Promise<{ roots: { item: LspCall['item']; calls: LspCall[] }[]; truncated: boolean; complete: boolean }> {
    const method = request.direction === 'incoming' ? 'callHierarchy/incomingCalls' : 'callHierarchy/outgoingCalls'
    return this.use(bound, () =>
      this.opened(source, languageId, bound, { supported: (capabilities) => offered(capabilities.callHierarchyProvider) || 'callHierarchy' }, async (document) => {
        const { payload, complete } = await this.askWhenQuiet('textDocument/prepareCallHierarchy', { textDocument: { uri: document.uri }, position: request.position }, bound)
        type Node = { item: LspCall['item']; fromRanges: LspRange[]; calls: Node[] }
        const roots = toCallHierarchyItems(payload).map((raw, index) => ({ raw, node: { item: toCallHierarchyItem(raw, `call hierarchy item ${index}`), fromRanges: [], calls: [] } as Node }))
        const expanded = new Set<string>()
        let left = request.maxCalls
        let truncated = false
        let level = roots.map(({ raw, node }) => ({ raw, node }))
        for (let depth = 1; depth <= request.depth && level.length && !truncated; depth++) {
          const next: typeof level = []
          for (const { raw, node } of level) {
            const key = `${node.item.uri}#${node.item.selectionRange.start.line}:${node.item.selectionRange.start.character}`
            if (expanded.has(key)) continue
            expanded.add(key)
            const calls = toCalls(await this.request(method, { item: raw }, bound), request.direction)
            for (const [index, call] of calls.entries()) {
              if (left === 0) {
                truncated = true
                break
              }
              left--
              const child: Node = { item: toCallHierarchyItem(call.raw, `${request.direction} call ${index}`), fromRanges: call.fromRanges, calls: [] }
              node.calls.push(child)
              next.push({ raw: call.raw, node: child })
            }
            if (truncated) break
          }
          level = next
        }
        return { roots: roots.map(({ node }) => ({ item: node.item, calls: node.calls })), truncated, complete }
      }),
    )
  }

  /**
   * Tells a running server that files changed on disk (`workspace/didChangeWatchedFiles`): servers
   * that leave watching to their client (TypeScript 7's, pyright) see nothing otherwise. Written
   * in order before anything sent later (a server still in its handshake is told once it is done,
   * before the requests waiting for it). A failed write ends the instance (the stream is suspect).
   */
  filesChanged(changes: readonly { readonly url: string; readonly kind: LspFileChangeKind }[]): void {
    if (this.dead || !changes.length) return
    if (!this.initialized) {
      void this.ready.then(() => this.filesChanged(changes), () => {})
      return
    }
    const params = { changes: changes.map((change) => ({ uri: change.url, type: FILE_CHANGE_TYPES[change.kind] })) }
    void this.connection.notify('workspace/didChangeWatchedFiles', params).catch(() => this.dispose())
  }

  /**
   * What the server's log says. Work announced only there (`logProgress`) begins and ends like
   * `$/progress`. A server whose log says its backend died (`fatalLogPatterns`) is broken though its
   * process lives: the failure is recorded as the transport's (requests in flight and every query
   * waiting for its indexing reject with it, and are replayed on a new server) and the process is ended.
   */
  private readLog(method: string, params: unknown): void {
    const { type, message } = (params ?? {}) as { type?: unknown; message?: unknown }
    if (typeof message !== 'string') return
    const work = this.logProgress
    if (work && method === 'window/logMessage') {
      if (work.begin.test(message)) this.onProgress(LOG_PROGRESS_TOKEN, { kind: 'begin', title: work.title })
      else if (work.end.test(message)) this.onProgress(LOG_PROGRESS_TOKEN, { kind: 'end' })
    }
    if (type !== MessageType.Error || !this.fatalLog.some((pattern) => pattern.test(message))) return
    this.connection.fail(new LspError(`${this.options.serverId}: the language server reported a fatal error: ${oneLine(message).slice(0, 300)}`, 'LSP_SERVER_FAILED'))
    void this.end(false)
  }

  /** Work-done progress, from `$/progress` or the log: followed, and its title reported. */
  private onProgress(token: string | number, value: unknown): void {
    const wasBusy = this.progress.busy
    this.progress.update(token, value)
    const title = this.progress.title
    if (title) this.options.report(title)
    else if (wasBusy && !this.progress.busy) this.options.report('ready')
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

  /**
   * A call starts using this instance (the provider's attempt, before any of its work): it counts
   * as running here, for idle eviction and the cap, until `unclaim()`. The attempt's own settlement
   * handlers end it: no promise of the instance's for the count.
   */
  claim(): void {
    this.busy++
    this.lastUsed = Date.now()
  }

  /** The call that `claim()`ed this instance settled (before its caller resumes). */
  unclaim(): void {
    this.busy--
    this.lastUsed = Date.now()
  }

  /** `work` unless the instance is disposed or the call's bound ended. Not an async function: one promise fewer per layer on every request. */
  private use<R>(bound: Bound, work: () => Promise<R>): Promise<R> {
    if (this.disposed) return Promise.reject(new LspError(`${this.options.serverId}: the server instance was disposed`, 'LSP_DISPOSED'))
    if (bound.aborted) return Promise.reject(errorFromReason(bound.reason, queryAborted))
    return settling(work)
  }

  /**
   * The frame of every file request: checks that the server can do the work (`supported` returns true
   * or the name of what is missing), makes the server hold the file's text, runs `work`, and lets
   * go. A server that keeps documents (see `keepsDocuments`) keeps this one open afterwards, among
   * the `maxOpenDocuments` most recently used: a later request on the unchanged file sends nothing
   * before its own message, and one whose text changed sends `didChange` under a fresh version. Any
   * other server gets the file opened under a fresh version and closed again afterwards (transient open).
   */
  private opened<R>(
    source: ContainedText,
    languageId: string,
    bound: Bound,
    how: Support,
    work: (document: OpenDocument, capabilities: ServerCapabilities) => Promise<R>,
  ): Promise<R> {
    // Once the handshake is done there is nothing to wait for (most queries: no promise here).
    const capabilities = this.capabilities
    if (!capabilities) return this.handshake(bound).then((ready) => this.openedOn(ready, source, languageId, how, work))
    return settling(() => this.openedOn(capabilities, source, languageId, how, work))
  }

  /** The handshake's answer, waited for under `bound`. A server that failed it (or whose handshake we gave up on) is never pooled. */
  private async handshake(bound: Bound): Promise<ServerCapabilities> {
    try {
      return await bound.race(this.ready, queryAborted)
    } catch (error) {
      await this.dispose()
      throw error
    }
  }

  /** `opened` once the server's capabilities are known. */
  private openedOn<R>(
    capabilities: ServerCapabilities,
    source: ContainedText,
    languageId: string,
    how: Support,
    work: (document: OpenDocument, capabilities: ServerCapabilities) => Promise<R>,
  ): Promise<R> {
    const { serverId } = this.options
    const support = how.supported(capabilities)
    if (support !== true) throw new LspError(`${serverId}: the language server does not support ${support}`, 'LSP_UNSUPPORTED_OPERATION')
    if (!supportsTransientOpen(capabilities)) {
      throw new LspError(`${serverId}: the language server does not support transient textDocument/didOpen and didClose`, 'LSP_UNSUPPORTED_OPERATION')
    }
    const uri = source.url
    const kept = this.kept.use(uri)
    if (kept) {
      // The very read the server's text came from (a reused read of the unchanged file): the server
      // has this text, nothing to send (as documentChanged would find, through a promise).
      if (kept.read?.deref() === source) this.changed.delete(uri)
      // documentChanged clears the document's fileChanged mark, and takes a new version, before its first await.
      else this.sendAhead(this.documentChanged(uri, source.text, undefined, source))
      return work({ uri, version: kept.version }, capabilities)
    }
    const document: OpenDocument = { uri, version: this.nextVersion++ }
    this.sendAhead(this.connection.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: document.version, text: source.text } }))
    const keep = keepsDocuments(capabilities)
    if (keep) {
      for (const evicted of this.kept.add(uri, document.version, source.text, source)) {
        this.changed.delete(evicted)
        this.close(evicted)
      }
    }
    // Closed before the caller resumes, as a `finally` would.
    return settling(() => work(document, capabilities), keep ? undefined : () => this.close(uri))
  }

  /** True when the server keeps `uri` open between requests (its text must then be kept current). */
  keeps(uri: string): boolean {
    return this.kept.has(uri)
  }

  /**
   * Brings a kept document's text up to date (`didChange` with the whole text, under a fresh
   * version) when it differs from what the server has. Written in order before anything sent later.
   * `read` is the read `text` came from: the one the server's text came from has that text (no hash).
   */
  documentChanged(uri: string, text: string, signal?: AbortSignal, read?: object): Promise<void> {
    // Not an async function: the writer's answer as it is (without a signal, the shared settled
    // HANDED), not an async body's promise and an await's on top of it, on every change a writer makes.
    this.changed.delete(uri)
    const kept = this.kept.use(uri)
    if (!kept || this.dead) return HANDED
    if (read && kept.read?.deref() === read) return HANDED
    const digest = digestOf(text)
    kept.read = read && new WeakRef(read)
    if (digest === kept.digest) return HANDED
    kept.version = this.nextVersion++
    kept.digest = digest
    const didChange = ['textDocument/didChange', { textDocument: { uri, version: kept.version }, contentChanges: [{ text }] }] as const
    // The new text is what the disk holds (a writer's change, or the file read at the request): saved, for servers that act on saves.
    const save = this.capabilities && wantsSave(this.capabilities)
    // Both handed to the writer at once, so nothing sent later comes between them.
    return this.connection.notifyInOrder(save ? [didChange, ['textDocument/didSave', { textDocument: { uri }, ...(save.includeText ? { text } : {}) }]] : [didChange], signal)
  }

  /** Stops keeping a document open (the server goes back to the file on disk). */
  forget(uri: string): void {
    this.changed.delete(uri)
    if (this.kept.delete(uri)) this.close(uri)
  }

  /**
   * A writer changed the file of a kept document. Its text is not read now: the next request on
   * this server reads it first (`changedOnDisk`), and a request on that very file reads it anyway,
   * so an edit followed by a question about the file reads it once.
   */
  changedOnDisk(uri: string, path: string): void {
    if (this.kept.has(uri)) this.changed.set(uri, path)
  }

  /**
   * True when a kept document other than `except` (the request's own file) changed on disk since its
   * text was sent: asked before every request, so it builds nothing (`changedDocuments` lists them).
   */
  hasChangedDocuments(except?: string): boolean {
    const { size } = this.changed
    return size > 1 || (size === 1 && (except === undefined || !this.changed.has(except)))
  }

  /** Kept documents changed on disk since their text was sent, but `except` (the request's own file), as URI and path. */
  changedDocuments(except?: string): [string, string][] {
    return [...this.changed].filter(([uri]) => uri !== except)
  }

  /**
   * `didClose`, not awaited: the writer keeps message order, so a later didOpen still follows it;
   * a failed write makes the stream untrustworthy, so the instance goes.
   */
  private close(uri: string): void {
    if (!this.dead) void this.connection.notify('textDocument/didClose', { textDocument: { uri } }).catch(() => this.dispose())
  }

  /**
   * A notification the request after it depends on (the document's text), handed to the writer
   * without waiting for its bytes: the writer keeps message order, so the request follows it on the
   * wire, and the request's own deadline and lifetime bound any wait for a full pipe (one waiter per
   * query instead of two). A write that fails may have left half a frame behind: the stream cannot
   * be trusted any more, so the instance goes; the request fails with the transport's cause.
   */
  private sendAhead(written: Promise<void>): void {
    // The shared settled promise of a notification handed to the writer never rejects (its write
    // failure reaches the connection's fatal cause instead): no handler, and no promise, for it.
    if (written !== HANDED) written.catch(() => this.dispose())
  }

  /**
   * Asks once the server is quiet. If the server started new work while we asked (a cold project
   * loading), the answer came from a half-loaded project: wait for the work to end and ask again.
   */
  private askWhenQuiet(method: string, params: unknown, bound: Bound): Promise<{ payload: unknown; complete: boolean }> {
    return this.answerWhenQuiet(method, params, bound, answered)
  }

  /**
   * `askWhenQuiet`, its answer read by `read`. A quiet server (the common case) is asked at once,
   * and the answer read where it settles: one promise over the request's, its retry after a
   * ContentModified (see `request`) and the second ask in the same place.
   */
  private answerWhenQuiet<T>(method: string, params: unknown, bound: Bound, read: (payload: unknown, complete: boolean) => T): Promise<T> {
    if (!this.progress.quiet) return this.answerAfterWork(method, params, bound, read)
    const epoch = this.progress.epoch
    let retried = false
    const answer = (payload: unknown): T | Promise<T> => {
      if (this.progress.epoch === epoch && !this.progress.busy) return read(payload, true)
      return this.askAgain(method, params, bound, payload, read)
    }
    const failed = (error: unknown): Promise<T> => {
      if (retried || !isRetryable(error)) throw error
      retried = true
      return this.send(method, params, bound).then(answer)
    }
    return this.send(method, params, bound).then(answer, failed)
  }

  /** `answerWhenQuiet` on a server at work: its end waited for first (bounded), and the answer asked again if it started more meanwhile. */
  private async answerAfterWork<T>(method: string, params: unknown, bound: Bound, read: (payload: unknown, complete: boolean) => T): Promise<T> {
    const complete = await this.progress.waitQuiet(bound.signal)
    const epoch = this.progress.epoch
    const payload = await this.request(method, params, bound)
    if (this.progress.epoch === epoch && !this.progress.busy) return read(payload, complete)
    return this.askAgain(method, params, bound, payload, read)
  }

  /** The server started work while it answered: asked again once it is quiet, else (gave up waiting) the first answer, incomplete. */
  private async askAgain<T>(method: string, params: unknown, bound: Bound, first: unknown, read: (payload: unknown, complete: boolean) => T): Promise<T> {
    const complete = await this.progress.waitQuiet(bound.signal)
    return read(complete ? await this.request(method, params, bound) : first, complete)
  }

  private ask(request: LspProviderQuery, textDocument: { uri: string }, bound: Bound, workspaceUri: string): Promise<LspQueryResult> {
    const params = {
      textDocument: { uri: textDocument.uri },
      position: { line: request.position.line, character: request.position.character },
      ...(request.operation === 'findReferences' ? { context: { includeDeclaration: true } } : {}),
    }
    return this.answerWhenQuiet(methodOf(request.operation), params, bound, (payload, complete): LspQueryResult => {
      switch (request.operation) {
        case 'hover':
          return { kind: 'hover', hover: toHover(payload), complete }
        case 'goToDefinition':
        case 'findReferences':
        case 'goToImplementation':
          return { kind: 'locations', locations: toLocations(payload), resolvedWorkspaceUri: workspaceUri, complete }
        default:
          return assertNever(request.operation, 'LSP operation')
      }
    })
  }

  /** `textDocument/diagnostic`, once the server is quiet (asked again if it started work meanwhile). */
  private pulledDiagnostics(document: OpenDocument, bound: Bound): Promise<{ items: LspDiagnostic[]; complete: boolean }> {
    return this.answerWhenQuiet('textDocument/diagnostic', { textDocument: { uri: document.uri } }, bound, (payload, complete) => ({ items: toPulledDiagnostics(payload), complete }))
  }

  /**
   * typescript-language-server: tsserver's own diagnostics of the open document, asked once the
   * server is quiet (see tsserver-diagnostics.ts), all three kinds; asked again if it started work meanwhile.
   */
  private async tsserverDiagnostics(document: OpenDocument, lifetime: Lifetime): Promise<{ items: LspDiagnostic[]; complete: boolean }> {
    const ask = async () => {
      const items: LspDiagnostic[] = []
      for (const command of TSSERVER_DIAGNOSTIC_REQUESTS) {
        const response = await this.request('workspace/executeCommand', { command: TSSERVER_REQUEST, arguments: [command, { file: document.uri }] }, lifetime)
        items.push(...toTsserverDiagnostics(response))
      }
      return items
    }
    let complete = await this.progress.waitQuiet(lifetime.signal)
    const epoch = this.progress.epoch
    let items = await ask()
    if (this.progress.epoch !== epoch || this.progress.busy) {
      complete = await this.progress.waitQuiet(lifetime.signal)
      if (complete) items = await ask()
    }
    return { items, complete }
  }

  /**
   * The publication that answers the open: waited for once the server is quiet, for at most
   * `diagnosticsWaitMs`. A barrier request (a `$/` request every server refuses at once) tells
   * publications about this open from those about an earlier one, for servers that send no version.
   */
  private async pushedDiagnostics(document: OpenDocument, watch: DiagnosticsWatch, lifetime: Lifetime): Promise<{ items: LspDiagnostic[]; complete: boolean }> {
    const { config } = this.options
    if (this.answersBarrier) void this.barrier().finally(() => watch.barrierPassed())
    else watch.barrierPassed()
    const quiet = await this.progress.waitQuiet(lifetime.signal)
    const budget = lifetime.child({ timeoutMs: config.diagnosticsWaitMs, code: 'LSP_DIAGNOSTICS_WAIT' })
    try {
      const answer = await watch.settle({ version: document.version, since: Date.now(), settleMs: config.diagnosticsSettleMs, signal: budget.signal })
      lifetime.throwIfAborted(queryAborted)
      return { items: toDiagnostics(answer.diagnostics), complete: quiet && answer.settled }
    } finally {
      budget.dispose()
    }
  }

  /** Settles once the server has read everything sent before it (its refusal of a `$/` request), or after `handshakeSettleMs`. */
  private async barrier(): Promise<void> {
    try {
      await this.connection.request('$/dsh/barrier', null, { timeoutMs: this.options.config.handshakeSettleMs })
    } catch {
      // The refusal is the expected answer.
    }
  }

  /** One request, retried once when the server says its content was modified (or it cancelled the request) meanwhile. */
  private async request(method: string, params: unknown, bound: Bound): Promise<unknown> {
    try {
      return await this.send(method, params, bound)
    } catch (error) {
      if (!isRetryable(error)) throw error
      return this.send(method, params, bound)
    }
  }

  /**
   * Sends a request under the request deadline. On abort it sends `$/cancelRequest` and gives the
   * server `killGraceMs` to settle; a server that does not is ended at once (it has shown it is not
   * listening, so a polite `shutdown` would only make the caller wait `shutdownTimeoutMs` more), so
   * a runaway request can never overlap the next query.
   */
  private send(method: string, params: unknown, bound: Bound): Promise<unknown> {
    const timeoutMs = this.options.config.requestTimeoutMs
    const { ignoredCancel } = this
    // The options spelled out, not spread from the scope's bounds: V8 (Node 20–24) builds a spread
    // followed by more properties on a slow path, microseconds on every request.
    if (!(bound instanceof CallScope)) return this.connection.request(method, params, { lifetime: bound, owner: undefined, timeoutMs, ignoredCancel })
    return this.connection.request(method, params, { lifetime: bound.requestLifetime, owner: bound.requestOwner, timeoutMs, ignoredCancel })
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
    try {
      await this.connection.request('$/dsh/settle', null, { timeoutMs: handshakeSettleMs })
      this.answersBarrier = true
    } catch (error) {
      // The refusal is the expected answer; only a dead connection matters, and it surfaces on the next write.
      if (this.connection.isFatal(error)) throw error
      if (!isTimeout(error)) this.answersBarrier = true
    }
  }

  private async initialize(): Promise<ServerCapabilities> {
    const { config, serverId, workspace } = this.options
    this.options.report('starting')
    const params: InitializeParams = {
      processId: config.processId === 'host' ? process.pid : null,
      clientInfo: { name: 'dsh-lsp-stdio' },
      rootUri: workspace.url,
      workspaceFolders: [{ uri: workspace.url, name: 'workspace' }],
      initializationOptions: this.options.launch.initializationOptions,
      capabilities: CLIENT_CAPABILITIES,
    }
    let result: InitializeResult
    try {
      result = await this.connection.request<InitializeResult>('initialize', params, { timeoutMs: config.initializeTimeoutMs })
    } catch (error) {
      if (!isTimeout(error)) throw error
      throw new LspError(`${serverId}: the language server did not answer initialize within ${config.initializeTimeoutMs} ms`, 'LSP_SERVER_START_FAILED', { cause: error })
    }
    this.answered = true
    if (typeof result?.capabilities !== 'object' || result.capabilities === null) {
      throw new LspError(`${serverId}: the initialize result has no capabilities`, 'LSP_MALFORMED_RESPONSE')
    }
    checkPositionEncoding(result.capabilities)
    if (result.serverInfo && typeof result.serverInfo.name === 'string') this.serverInfo = result.serverInfo
    // Work the server starts on `initialized` and tells of only in its log counts from now: its first line may come after the first query.
    if (config.logProgress?.fromInitialized) this.onProgress(LOG_PROGRESS_TOKEN, { kind: 'begin', title: config.logProgress.title })
    await this.connection.notify('initialized', {})
    for (const notification of config.initializedNotifications) await this.connection.notify(notification.method, notification.params ?? null)
    await this.settleAfterInitialized()
    this.initialized = true
    this.capabilities = result.capabilities
    this.options.report('initialized')
    return result.capabilities
  }

  private async stop(graceful: boolean): Promise<void> {
    const { config } = this.options
    if (graceful && this.answered && !this.connection.failure && this.child.running) {
      const budget = Lifetime.following(undefined, { timeoutMs: config.shutdownTimeoutMs, code: 'LSP_SHUTDOWN' })
      try {
        await this.connection.request('shutdown', null, { lifetime: budget })
        await this.connection.notify('exit', null, budget.signal)
        await budget.race(this.child.exited)
      } catch {
        // Whatever went wrong, the process group is ended below.
      } finally {
        budget.dispose()
      }
    }
    await this.child.terminate()
    this.connection.fail(new LspError(`${this.options.serverId}: the server instance was disposed`, 'LSP_DISPOSED'))
  }
}

/**
 * Whether requests leave their documents open on this server: one that answers pulled diagnostics
 * (`textDocument/diagnostic`) and takes whole-text changes. Reopening a document makes TypeScript 7's
 * server build it anew (a query cost it about twice the CPU of one on a document left open), and a
 * pulled answer does not depend on an open. A server whose diagnostics we take from its publications
 * is not one: a fresh open is what makes it publish (typescript-language-server stays silent for an
 * open document that did not change), and typescript-language-server asks tsserver for diagnostics of
 * every open document after each change, so documents left open there cost work on every edit.
 */
function keepsDocuments(capabilities: ServerCapabilities): boolean {
  return Boolean(capabilities.diagnosticProvider) && acceptsWholeChanges(capabilities)
}

/** What a request on this instance is bound by: a lifetime, or a provider call's scope (see CallScope). */
type Bound = Lifetime | CallScope

/** An answer as `askWhenQuiet` gives it. */
function answered(payload: unknown, complete: boolean): { payload: unknown; complete: boolean } {
  return { payload, complete }
}

/** The server says its content was modified (or it cancelled the request) meanwhile: asked once more. */
function isRetryable(error: unknown): boolean {
  return error instanceof LspError && (error.rpcCode === LSPErrorCodes.ContentModified || error.rpcCode === LSPErrorCodes.ServerCancelled)
}

/** A server capability given as `true` or an options object. */
function offered(provider: unknown): boolean {
  return provider === true || (typeof provider === 'object' && provider !== null)
}

/** The request deadline LspConnection.request gave up on (not the server's answer). */
function isTimeout(error: unknown): boolean {
  return error instanceof LspError && error.code === 'LSP_TIMEOUT'
}

/** The first line of a hover that says what the symbol is (a code fence's first line, `(property) Circle.radius: number`), at most 200 characters. */
function firstCodeLine(contents: string | undefined): string | undefined {
  if (!contents) return undefined
  for (const line of contents.split('\n', 8)) {
    const text = line.trim()
    if (text && !text.startsWith('```')) return text.slice(0, 200)
  }
  return undefined
}
