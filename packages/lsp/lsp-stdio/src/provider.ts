import { errorFromReason, errorMessage, FsError, HarnessError, Lifetime, quote, thenOrNow, type CapabilityStatus, type ContainedText, type FileSystem, type ProbeContext, type SubprocessService, type Workspace } from 'dsh-core'
import {
  askedAtNote,
  LspError,
  type LspPosition,
  ProvenTextCache,
  type CallProofs,
  type ProvenStat,
  type LspCallHierarchyResult,
  type LspProviderCallHierarchyRequest,
  type LspProviderRenameRequest,
  type LspRenameResult,
  type LspDiagnosticsResult,
  type LspDocumentSymbolsResult,
  type LspFileChange,
  type LspBound,
  type LspProvider,
  type LspProviderDiagnosticsRequest,
  type LspProviderDocumentSymbolsRequest,
  type LspProviderQuery,
  type LspQueryResult,
  type LspWorkspaceSymbolsRequest,
  type LspWorkspaceSymbolsResult,
  type LspCappedProvider,
  type LspUnansweredProvider,
  type LspWorkspaceSymbol,
  type TextLookup,
} from 'dsh-lsp'
import { relative } from 'node:path'
import { queryAborted } from './aborted.ts'
import { AnchorFiles } from './anchor-file.ts'
import { CallScope } from './call-scope.ts'
import type { ServerConfig } from './config.ts'
import type { ServerInstance } from './instance.ts'
import type { Launch, Launcher } from './launch.ts'
import { ServerPool } from './pool.ts'
import { Preflight } from './preflight.ts'
import { RootFinder, type ServerRoot } from './roots.ts'
import { WorkQueue, type TurnEnd } from './queue.ts'
import { settling } from './settling.ts'
import { withinLine } from './source-text.ts'
import { checkNewNameFor, describesSymbol } from './new-name-rules.ts'
import { missingIndexNote } from './workspace-index.ts'
import { ReportWaits } from './report-waits.ts'
import { probeFailureStatus, providerStatus, withRoutes } from './status.ts'
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
  /**
   * A line for the host's log when the server is given up on for a while (its crash budget spent):
   * a long-running host (`dsh serve`) showed nothing of a server crashing on every start.
   */
  readonly warn?: (message: string) => void
}

/** The owner of a failure that happened before any server existed. */
const NO_SERVER: TransportOwner = { isTransportFailure: () => false }

/**
 * One configured language server, as an LSP provider. A query runs through the pipeline here:
 * canonical workspace, that workspace's queue, the source read at its turn, a pooled server
 * (ServerPool), one replay on a fresh server when the transport fails (Supervision says what a
 * crash is), and every wait bound to a lifetime of the call that ends with the caller's (its
 * `Lifetime`, or its signal) and with the provider's.
 */
export class StdioLspProvider implements LspProvider {
  readonly id: string
  readonly extensionToLanguage: Readonly<Record<string, string>>
  readonly filenameToLanguage: Readonly<Record<string, string>>
  private readonly pool: ServerPool
  private readonly queue = new WorkQueue()
  private readonly supervision: Supervision
  private readonly preflight: Preflight | undefined
  private readonly roots: RootFinder
  /** File changes being resolved and queued (tracked): requests wait for them, so they queue up behind the notices. */
  private readonly queuing = new Lifetime()
  private readonly anchors: AnchorFiles
  /** Source texts read before, reused while their files are unchanged. */
  private readonly texts: ProvenTextCache
  /**
   * The provider's: every call runs on a child of it (with the caller's signal), and it tracks the
   * work disposal waits for (workspace lookups, file changes told).
   */
  private readonly lifetime = new Lifetime()
  private disposed = false
  /** The servers' reports (work begun or ended), waited on by the status probe. */
  private readonly reports = new ReportWaits()

  constructor(private readonly options: ProviderOptions) {
    const { id, config, subprocess, report } = options
    this.id = id
    this.extensionToLanguage = { ...config.extensionToLanguage }
    this.filenameToLanguage = { ...config.filenameToLanguage }
    this.supervision = new Supervision(id, config.crashes, options.warn)
    this.pool = new ServerPool({ serverId: id, config, subprocess, report: this.reports.wrap(report), assertMayStart: (workspace) => this.supervision.assertMayStart(workspace) })
    this.anchors = new AnchorFiles(options.fs, this.extensionToLanguage)
    this.texts = new ProvenTextCache(options.fs)
    const { preflight } = config
    this.preflight = preflight ? new Preflight({ serverId: id, config: { ...config, preflight }, subprocess, lifetime: this.lifetime.signal }) : undefined
    this.roots = new RootFinder(options.fs, config.rootMarkers.map((marker) => (typeof marker === 'string' ? [marker] : marker)))
  }

  /**
   * On the caller's `Lifetime` (the `lsp` tool's call) the call is followed without an
   * AbortController or a listener, so a warm query makes none unless someone aborts; on a signal,
   * by a child of the provider's lifetime following it (see `onFileIn`).
   */
  query(request: LspProviderQuery, bound?: LspBound): Promise<LspQueryResult> {
    // The caller names files relative to its workspace, whichever root's server answered.
    return this.onFileIn(request, bound, (instance, source, workspace, scope) =>
      atPosition(source, request, (position) => instance.query(position === request.position ? request : { ...request, position }, source, scope, workspace.url)),
    )
  }

  /** Bound as `query` is (the `lsp_diagnostics` tool's call, after every edit a writer makes, passes its lifetime). */
  diagnostics(request: LspProviderDiagnosticsRequest, bound?: LspBound): Promise<LspDiagnosticsResult> {
    return this.onFileIn(request, bound, (instance, source, workspace, scope) =>
      instance.diagnostics(source, request.languageId, scope).then(({ items, complete }): LspDiagnosticsResult => ({ kind: 'diagnostics', uri: source.url, resolvedWorkspaceUri: workspace.url, items, complete })),
    )
  }

  /** Bound as `query` is (the `lsp_symbols` tool's call passes its lifetime). */
  documentSymbols(request: LspProviderDocumentSymbolsRequest, bound?: LspBound): Promise<LspDocumentSymbolsResult> {
    return this.onFileIn(request, bound, (instance, source, workspace, scope) =>
      instance.documentSymbols(source, request.languageId, scope).then(({ symbols, complete }): LspDocumentSymbolsResult => ({ kind: 'documentSymbols', uri: source.url, resolvedWorkspaceUri: workspace.url, symbols, complete })),
    )
  }

  /** The edit renaming the symbol takes, as the server computed it; the provider applies nothing. Bound as `query` is. */
  rename(request: LspProviderRenameRequest, bound?: LspBound): Promise<LspRenameResult> {
    const { newNames } = this.options.config
    return this.onFileIn(request, bound, (instance, source, workspace, scope) =>
      atPosition(source, request, (position) =>
        instance.rename(source, request.languageId, position, request.newName, scope, describesSymbol(newNames, request.newName)).then(({ oldName, files, fileOperations, complete, display }): LspRenameResult => {
          if (newNames) checkNewNameFor(newNames, this.id, oldName, request.newName, display)
          return { kind: 'rename', resolvedWorkspaceUri: workspace.url, oldName, files, fileOperations, complete }
        }),
      ),
    )
  }

  /** Incoming or outgoing calls of what is at the position, to the request's depth and count. Bound as `query` is. */
  callHierarchy(request: LspProviderCallHierarchyRequest, bound?: LspBound): Promise<LspCallHierarchyResult> {
    return this.onFileIn(request, bound, (instance, source, workspace, scope) =>
      atPosition(source, request, (position) =>
        instance
          .callHierarchy(source, request.languageId, { ...request, position }, scope)
          .then(({ roots, truncated, complete }): LspCallHierarchyResult | Promise<LspCallHierarchyResult> => {
            const result: LspCallHierarchyResult = { kind: 'callHierarchy', direction: request.direction, resolvedWorkspaceUri: workspace.url, roots, truncated, complete }
            // No calls found: say why when the server lacks what it needs to know the workspace (a row without workspaceIndex adds no promise).
            if (!this.options.config.workspaceIndex || roots.some((root) => root.calls.length)) return result
            return this.indexNote(instance.workspace, scope).then((note) => (note ? { ...result, notes: [note] } : result))
          }),
      ),
    )
  }

  /**
   * A workspace query, asked with one of the workspace's files of this server's languages open (see
   * AnchorFiles); a workspace without any answers empty at once, and no server starts for it. A row
   * without root markers asks the server of the session workspace. A row with them asks the server
   * of every project root that a file near the top of the workspace belongs to (two Go modules side
   * by side: both gopls), each in its root's queue with one of its files open, at most `maxServers`
   * of them; a root past that, or whose server failed, is listed in `unanswered` (so the answer is
   * incomplete) and the others' symbols still count.
   */
  workspaceSymbols(request: LspWorkspaceSymbolsRequest, bound?: LspBound): Promise<LspWorkspaceSymbolsResult> {
    if (this.roots.enabled) return this.symbolsOfEveryRoot(request, bound)
    return this.inWorkspace(request.workspaceRoot, bound, async (workspace, scope) => {
      const anchor = await this.anchors.find(workspace, (path) => this.readSource(workspace, path, scope.signal), scope.signal)
      this.guard(scope)
      if (!anchor) return { kind: 'workspaceSymbols', resolvedWorkspaceUri: workspace.url, symbols: [], complete: true }
      return this.runWithReplay(workspace, scope, async (instance) => {
        const { symbols, complete, notes } = await this.rootSymbols(instance, request.query, anchor, scope)
        const capped = this.cappedAt(symbols.length, this.id)
        return { kind: 'workspaceSymbols', resolvedWorkspaceUri: workspace.url, symbols, complete, ...(capped ? { capped: [capped] } : {}), ...(notes.length ? { notes } : {}) }
      })
    })
  }

  private async symbolsOfEveryRoot(request: LspWorkspaceSymbolsRequest, caller: CallerBound): Promise<LspWorkspaceSymbolsResult> {
    this.guard(caller)
    const { scope, end } = this.callLifetime(caller)
    try {
      const workspace = await this.workspaceOf(request.workspaceRoot, scope)
      const roots = new Map<string, { root: ServerRoot; files: string[] }>()
      for (const files of await this.anchors.everyDirectory(workspace, scope.signal)) {
        // A directory's files share its root; a root's files are tried in the order found (nearest the top first).
        const root = await this.roots.rootOf(workspace, files[0]!, scope.signal)
        const known = roots.get(root.path)
        if (!known) roots.set(root.path, { root, files })
        else if (known.files.length < MAX_ANCHOR_CANDIDATES) known.files.push(...files.slice(0, MAX_ANCHOR_CANDIDATES - known.files.length))
      }
      this.guard(scope)
      const empty: LspWorkspaceSymbolsResult = { kind: 'workspaceSymbols', resolvedWorkspaceUri: workspace.url, symbols: [], complete: true }
      if (!roots.size) return empty
      if (this.queuing.pending) await scope.race(this.queuing.settled(), queryAborted)
      const { maxServers } = this.options.config
      const every = [...roots.values()]
      const asked = every.slice(0, maxServers)
      const settled = await Promise.allSettled(
        asked.map(({ root, files }) =>
          this.queue.run(root.path, scope, async () => {
            this.guard(scope)
            const { anchor } = await this.anchors.firstReadable(files, (path) => this.readSource(workspace, path, scope.signal), scope.signal)
            return this.runWithReplay(root, scope, (instance) => this.rootSymbols(instance, request.query, anchor, scope))
          }),
        ),
      )
      this.guard(scope)
      const named = (root: ServerRoot) => `${this.id} (${relative(workspace.path, root.path) || '.'})`
      const unanswered: LspUnansweredProvider[] = every.slice(maxServers).map(({ root }) => ({
        providerId: named(root),
        code: 'LSP_CAPACITY',
        message: `not asked: ${maxServers} project roots were asked already (maxServers); a query from a file there asks its own server`,
      }))
      const symbols: LspWorkspaceSymbol[] = []
      const capped: LspCappedProvider[] = []
      const notes: string[] = []
      let complete = true
      const failures: unknown[] = []
      settled.forEach((outcome, index) => {
        if (outcome.status === 'fulfilled') {
          symbols.push(...outcome.value.symbols)
          const { root } = asked[index]!
          const cap = this.cappedAt(outcome.value.symbols.length, root.path === workspace.path ? this.id : named(root))
          if (cap) capped.push(cap)
          notes.push(...outcome.value.notes)
          complete &&= outcome.value.complete
        } else {
          failures.push(outcome.reason)
          unanswered.push({ providerId: named(asked[index]!.root), code: outcome.reason instanceof HarnessError ? outcome.reason.code : 'LSP_PROVIDER_FAILED', message: errorMessage(outcome.reason) })
        }
      })
      if (failures.length === asked.length) throw failures[0]
      return { ...empty, symbols, complete: complete && !unanswered.length, ...(unanswered.length ? { unanswered } : {}), ...(capped.length ? { capped } : {}), ...(notes.length ? { notes } : {}) }
    } finally {
      end()
    }
  }

  /** One root's server's symbols for `query`, with why an empty answer may be empty (`indexNote`). */
  private async rootSymbols(instance: ServerInstance, query: string, anchor: Parameters<ServerInstance['workspaceSymbols']>[1], scope: Lifetime): Promise<{ symbols: LspWorkspaceSymbol[]; complete: boolean; notes: string[] }> {
    const answer = await instance.workspaceSymbols(query, anchor, scope)
    const note = answer.symbols.length ? undefined : await this.indexNote(instance.workspace, scope)
    return { ...answer, notes: note ? [note] : [] }
  }

  /** Why an empty answer of this root's server may be empty (`workspaceIndex`), if it may. */
  private async indexNote(root: Workspace, scope: { readonly signal: AbortSignal }): Promise<string | undefined> {
    const index = this.options.config.workspaceIndex
    // A row without one reads no signal: a caller's Lifetime makes its AbortController only when asked.
    return index ? missingIndexNote(this.options.fs, this.id, index, root, scope.signal) : undefined
  }

  /** A server's answer of exactly its known most matches (`workspaceSymbolLimit`) may be cut there; more past it is no cap we know. */
  private cappedAt(count: number, providerId: string): LspCappedProvider | undefined {
    const limit = this.options.config.workspaceSymbolLimit
    return limit !== undefined && count === limit ? { providerId, limit } : undefined
  }

  /**
   * Tells the live servers whose workspace holds the file, in that workspace's queue (in this call
   * when nothing is queued there, see `queueChange`). The path is
   * canonicalised first (a writer may name it through a symlink); requests that start meanwhile
   * wait until the notice is queued, so they come after it. With no live server there is nobody to
   * tell and nothing to resolve: a server spawned later reads the disk as it is then. (A host runs
   * a provider per language; every notice reaches all of them, and each idle one resolved the path
   * on the thread pool.) A changed file that every live server holding its path keeps open, named by
   * the path it was opened under, is marked without resolving the path at all (`keptByName`).
   */
  fileChanged(change: LspFileChange): void {
    if (this.disposed) return
    const live = this.pool.live()
    if (!live.length) return
    if (change.kind !== 'deleted' && this.keptByName(live, change.path)) return this.queueChange(live, change.path, change.kind)
    // Proven in this call on the warm path: queued at once, so no request has to wait for it.
    const path = this.canonicalNow(live, change.path)
    if (path !== undefined) return this.queueChange(live, path, change.kind)
    const queued = this.canonicalChange(change.path).then((resolved) => this.queueChange(this.pool.live(), resolved, change.kind))
    // A path that cannot be resolved names nothing a server could have read: there is nothing to tell.
    this.queuing.track(queued).catch(() => {})
  }

  /**
   * The change told to every live server whose workspace holds `path` (canonical), in that
   * workspace's queue. Where nothing is queued, the queue would run the tell in this call anyway:
   * it is told here, with no turn, promise or tracking (a writer's notice after every edit, on a
   * server that is not working for anyone then).
   */
  private queueChange(live: readonly ServerInstance[], path: string, kind: LspFileChange['kind']): void {
    for (const instance of live) {
      const root = instance.workspace.path
      if (!this.options.fs.contains(root, path)) continue
      if (this.queue.idle(root)) this.tell(instance, path, kind)
      else this.lifetime.track(this.queue.run(root, this.lifetime, async () => this.tell(instance, path, kind)))
    }
  }

  /**
   * True when `path` (absolute, normalised) is, letter for letter, the canonical path of a document
   * every live server whose root holds it keeps open: the change then only marks that document, and
   * its text is read before the next request through a contained read (`sendChangedDocuments`), whose
   * proof is made on what it opens then. So the notice resolves nothing (a realpath, a readlink per
   * component, after every edit a writer makes). A path that is not canonical any more (a directory
   * on the way swapped for a symlink) is found by that read, which tells the server of both files.
   * Anything else (a file no server keeps, a deletion) is resolved as before, to name it canonically.
   */
  private keptByName(live: readonly ServerInstance[], path: string): boolean {
    const { fs } = this.options
    let url: string | undefined
    let holders = 0
    for (const instance of live) {
      if (!fs.contains(instance.workspace.path, path)) continue
      url ??= fs.fileUrl(path)
      if (!instance.keeps(url)) return false
      holders++
    }
    return holders > 0
  }

  /**
   * A changed path spelled inside a live server's canonical root, proven there in this call
   * (`ctx.fs.containedNow`: the proof `contained` makes on the event loop, without a promise).
   * Undefined when that proof is not made on the event loop, or the path's symlinks lead out of
   * that root (or it cannot be resolved there): `canonicalChange` then resolves it as before.
   */
  private canonicalNow(live: readonly ServerInstance[], path: string): string | undefined {
    const { fs } = this.options
    const root = live.find((instance) => fs.contains(instance.workspace.path, path))?.workspace
    if (!root) return undefined
    try {
      return fs.containedNow(root, path)
    } catch {
      return undefined
    }
  }

  /**
   * A changed path, canonical. One spelled inside a live server's canonical root is resolved there
   * as a containment proof is: the request that follows the notice waits for it. Any other path,
   * or one whose symlinks lead out of that root, is resolved as any path is.
   */
  private async canonicalChange(path: string): Promise<string> {
    const { fs } = this.options
    const signal = this.lifetime.signal
    const root = this.pool.live().find((instance) => fs.contains(instance.workspace.path, path))?.workspace
    if (root) {
      try {
        return await fs.contained(root, path, signal)
      } catch {
        // Led out of that root (or unresolvable there): resolved below, as any path.
      }
    }
    return fs.resolve(path, { signal })
  }

  /** The state `dsh status` shows, with the extensions this server answers for. */
  status(): CapabilityStatus {
    return withRoutes(this.bareStatus(), this)
  }

  private bareStatus(): CapabilityStatus {
    const view = { launcher: this.options.launcher, blocked: this.supervision.blockedReason(), newest: this.pool.newest(), live: this.pool.live(), lastCrash: this.supervision.lastCrash, unusable: this.preflight?.failure }
    return providerStatus(view)
  }

  /**
   * Starts (or reuses) the server for the probed workspace and reports how it came up. It waits
   * in the workspace's queue like a query and is bound to the provider's lifetime, so a probe
   * queued while the provider unloads starts nothing. Never throws.
   */
  async probe({ cwd, signal }: ProbeContext): Promise<CapabilityStatus> {
    const scope = this.lifetime.child({ signal })
    let failure: FailureKind = 'none'
    try {
      this.guard(scope)
      const workspace = await this.workspaceOf(cwd, scope)
      let probed: ServerInstance | undefined
      await this.queue.run(workspace.path, scope, async () => {
        this.guard(scope)
        let instance: ServerInstance | undefined
        try {
          instance = await this.pool.acquire(workspace, () => this.launch(workspace, scope.signal))
          await scope.race(instance.ready)
        } catch (error) {
          failure = this.supervision.settle(workspace.path, error, instance ?? NO_SERVER, scope)
          if (instance) await this.pool.retire(instance)
          throw error
        }
        probed = instance
        await this.pool.release(instance)
      })
      // Outside the queue: a query meanwhile waits for the same work itself.
      if (probed) await this.settleStartup(probed, scope)
      const status = this.bareStatus()
      // A server up without what it needs to know the workspace (clangd without compile_commands.json) says so before any empty answer does.
      const note = status.state === 'ready' && probed ? await this.indexNote(probed.workspace, scope) : undefined
      return withRoutes(note ? { state: status.state, detail: `${status.detail}; ${note}` } : status, this)
    } catch (error) {
      return withRoutes(probeFailureStatus(error, failure), this)
    } finally {
      scope.dispose()
    }
  }

  /**
   * Waits up to `probeSettleMs` for the work a server just started is at to end (pyright finds its
   * source files for about a second after its handshake), woken by each report rather than polling.
   * Returns early when the server stops or the probe's lifetime ends.
   */
  private async settleStartup(instance: ServerInstance, scope: Lifetime): Promise<void> {
    const until = Date.now() + this.options.config.probeSettleMs
    while (instance.state === 'indexing') {
      const left = until - Date.now()
      if (left <= 0) return
      const next = this.reports.next()
      const woke = await scope.within(next.promise, left)
      next.cancel()
      if (!woke) return
    }
  }

  /** Stops every server and waits for all in-flight work; later queries fail with LSP_DISPOSED. */
  /** After trusted.json changed: stops the servers a revoked decision no longer allows (pool.retireRevoked), saying so in the log. */
  async trustChanged(): Promise<void> {
    if (this.disposed) return
    for (const root of await this.pool.retireRevoked()) this.options.warn?.(`${this.id}: stopped its server for ${root}: the trust it was started under was revoked; the next query starts it as the workspace is trusted now`)
  }

  async disposeAll(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true
      this.lifetime.abort(new LspError(`${this.id}: lsp-stdio provider is disposed`, 'LSP_DISPOSED'))
    }
    const closing = this.pool.close()
    // Queue tails and lookups never reject; only a server's teardown can.
    await Promise.all([closing.catch(() => {}), this.queue.drained(), this.lifetime.settled(), this.queuing.settled(), this.preflight?.settled()])
    await closing
  }

  /**
   * One server learns of one change: a document it keeps open is marked changed, and its new text
   * goes to the server before the next request there (a server goes by the open text, not the disk;
   * see `sendChangedDocuments`); a deleted one is closed; for any other file `workspace/didChangeWatchedFiles`.
   */
  private tell(instance: ServerInstance, path: string, kind: LspFileChange['kind']): void {
    const url = this.options.fs.fileUrl(path)
    if (instance.keeps(url)) {
      if (kind !== 'deleted') return instance.changedOnDisk(url, path)
      instance.forget(url)
    }
    instance.filesChanged([{ url, kind }])
  }

  /**
   * Before a request: the current text of every kept document a writer changed since (but the
   * request's own file, which the request reads itself). Read as a source is, contained in the
   * server's root and proven by what is opened (a notice may have marked it by the name it was opened
   * under, unresolved: see `keptByName`). One that is gone, cannot be read or leads out of the root is
   * closed, and the server told of the change (it goes back to the disk); one whose path now leads to
   * another file inside the root (a directory swapped for a symlink) is closed too, and that other
   * file is the one changed.
   */
  private async sendChangedDocuments(instance: ServerInstance, except: string | undefined, signal: AbortSignal): Promise<void> {
    const { fs, config } = this.options
    const options = { maxBytes: config.maxDocumentBytes, signal }
    for (const [url, path] of instance.changedDocuments(except)) {
      let read: ContainedText
      try {
        read = fs.readContainedTextNow(instance.workspace, path, options) ?? (await fs.readContainedText(instance.workspace, path, { ...options, proven: true }))
      } catch {
        this.guard(signal)
        instance.forget(url)
        instance.filesChanged([{ url, kind: 'changed' }])
        continue
      }
      if (read.path !== path) {
        instance.forget(url)
        instance.filesChanged([{ url, kind: 'changed' }])
        if (instance.keeps(read.url)) await instance.documentChanged(read.url, read.text, signal)
        else instance.filesChanged([{ url: read.url, kind: 'changed' }])
        continue
      }
      await instance.documentChanged(url, read.text, signal)
    }
  }

  /**
   * The pipeline of every file request: canonical workspace, the file proven inside it (once), the
   * file's root (its own server and queue), pending file changes told, the source read at its turn
   * (so a request sees what was written while it waited), and `work` on that root's pooled server
   * with one replay. Each step answers at once when it can (a value, not a promise): a warm query
   * (the workspace and file proven on the event loop, the queue idle, the kept source unchanged,
   * the server running) goes from here to its request's write in this call. On a caller's
   * `Lifetime` the call's scope makes a lifetime of its own only when a step waits or asks for a
   * signal (a read of bytes, a server start, a wait for the queue or the server's work).
   */
  private onFileIn<R>(request: FileRequest, caller: CallerBound, work: (instance: ServerInstance, source: ContainedText, workspace: Workspace, scope: CallScope) => Promise<R>): Promise<R> {
    try {
      this.guard(caller)
    } catch (error) {
      return Promise.reject(error)
    }
    // The caller's proofs serve only the workspace root they were made for (the seam checks that too).
    const proofs = request.proofs?.workspaceRoot === request.workspaceRoot ? request.proofs : undefined
    // On a caller's lifetime: bound by it and by the provider's (its disposal), until the call is
    // over. On a signal: the provider's child following it.
    if (!(caller instanceof Lifetime)) {
      const own = this.lifetime.child({ signal: caller })
      const scope = new CallScope(own)
      const running = settling(
        () => this.fileSteps(request, proofs, scope, work),
        () => own.dispose(),
      )
      scope.firstPassOver()
      return running
    }
    const scope = new CallScope(caller, this.lifetime)
    const running = settling(() => this.fileSteps(request, proofs, scope, work))
    scope.firstPassOver()
    // The lifetime the call made (when a step waited) goes once it settles; a warm call made none.
    scope.endsWith(running)
    return running
  }

  /** `onFileIn` on its scope: the workspace proven, then the file. */
  private fileSteps<R>(request: FileRequest, proofs: CallProofs | undefined, scope: CallScope, work: FileWork<R>): Promise<R> {
    const workspace = this.workspaceOf(request.workspaceRoot, scope, proofs)
    return thenOrNow(workspace, (proven) => this.fileIn(proven, request, proofs, scope, work))
  }

  /**
   * `onFileIn` once the workspace is proven: the file proven inside it, then its root. A proof made
   * in the call's pass by a walk below the workspace took the lstats of the file and of the
   * directories above it: the root finder and the source's check use them while still in that
   * pass (`walk`, see `inFirstPassWithWalk`), and look again after any wait.
   */
  private fileIn<R>(workspace: Workspace, request: FileRequest, proofs: CallProofs | undefined, scope: CallScope, work: FileWork<R>): Promise<R> {
    this.guard(scope)
    const walk = proofs?.walks
    // A proof awaited has left the pass: `inFirstPassWithWalk` is false then, and the walk's lstats go unused.
    return thenOrNow(this.containedSource(workspace, request.filePath, scope, proofs), (path) => this.atRoot(workspace, path, request, proofs, scope, work, walk))
  }

  /** `onFileIn` once the file is proven: its root's queue, behind the file changes being told. */
  private atRoot<R>(workspace: Workspace, path: string, request: FileRequest, proofs: CallProofs | undefined, scope: CallScope, work: FileWork<R>, walk: number | undefined): Promise<R> {
    // A value, not a promise, on the warm path (see RootFinder.rootOf).
    const found = this.roots.enabled ? this.roots.rootOf(workspace, path, undefined, inFirstPassWithWalk(proofs, walk, scope) ? (dir) => proofs!.directoryOf(dir, walk!) : undefined) : workspace
    const queue = (root: ServerRoot): Promise<R> => {
      this.guard(scope)
      return this.queue.run(root.path, scope, (turn) => this.atTurn(workspace, root, path, request, proofs, scope, work, walk, turn))
    }
    const queued = (root: ServerRoot): Promise<R> => (this.queuing.pending ? scope.race(this.queuing.settled(), queryAborted).then(() => queue(root)) : queue(root))
    return thenOrNow(found, queued)
  }

  /**
   * `onFileIn` at the root's turn: the source read (the kept text while unchanged), then `work` with
   * one replay. The kept text is checked against the proof's lstat only when the turn came in the
   * pass that took it (`walk`); a call that waited (for its turn, its root, the changes being told)
   * stats the file again, so it sees a write made meanwhile.
   */
  private atTurn<R>(
    workspace: Workspace,
    root: ServerRoot,
    path: string,
    request: FileRequest,
    proofs: CallProofs | undefined,
    scope: CallScope,
    work: FileWork<R>,
    walk: number | undefined,
    turn: TurnEnd,
  ): Promise<R> {
    this.guard(scope)
    const run = (source: ContainedText): Promise<R> => {
      proofs?.noteRead(source)
      this.guard(scope)
      return this.runWithReplay(root, scope, (instance) => work(instance, source, workspace, scope), source.url, turn)
    }
    const taken = inFirstPassWithWalk(proofs, walk, scope) ? proofs!.statOf(path) : undefined
    const source = this.readProvenSource(workspace, request.filePath, path, scope, taken && taken.walk >= walk! ? taken : undefined)
    if (!(source instanceof Promise)) return run(source)
    // A read that waited: the turn ends once all of it settles, as a turn that ends itself would.
    const running = source.then(run)
    const ended = () => turn.end()
    running.then(ended, ended)
    return running
  }

  /**
   * The lifetime of a workspace-wide call, which ends with the provider and with the caller: a
   * child of the provider's following the caller's signal, or, on a caller's lifetime (the seam's
   * fan-out shares one among every provider it asks), a child of the provider's that the caller's
   * abort ends, with no listener on any signal. `end` releases it and what it follows.
   */
  private callLifetime(caller: CallerBound): { readonly scope: Lifetime; end(): void } {
    if (!(caller instanceof Lifetime)) {
      const scope = this.lifetime.child({ signal: caller })
      return { scope, end: () => scope.dispose() }
    }
    const scope = this.lifetime.child()
    const unfollow = caller.onAbort((reason) => scope.abort(reason))
    return {
      scope,
      end: () => {
        unfollow()
        scope.dispose()
      },
    }
  }

  /**
   * `work` at the workspace's turn in its queue, behind the file changes told so far; every wait
   * bound to the caller (its lifetime or signal) and the provider's lifetime.
   */
  private async inWorkspace<R>(workspaceRoot: string, caller: CallerBound, work: (workspace: Workspace, scope: Lifetime) => Promise<R>): Promise<R> {
    this.guard(caller)
    const { scope, end } = this.callLifetime(caller)
    try {
      const workspace = await this.workspaceOf(workspaceRoot, scope)
      this.guard(scope)
      if (this.queuing.pending) await scope.race(this.queuing.settled(), queryAborted)
      this.guard(scope)
      return await this.queue.run(workspace.path, scope, async () => {
        this.guard(scope)
        return work(workspace, scope)
      })
    } finally {
      end()
    }
  }

  /**
   * One attempt, and when the server's transport failed under it, one more on a fresh server with
   * the source already read. Kept documents changed on disk are sent first (but `file`, the
   * request's own). Whatever happens, the server used last is released to the pool. A running
   * server is taken without a promise (the warm path); a start, or a closed pool, goes through `start`.
   */
  private runWithReplay<R>(workspace: Workspace, scope: Bound, work: (instance: ServerInstance) => Promise<R>, file?: string, turn?: TurnEnd): Promise<R> {
    const serving = this.pool.serving(workspace)
    if (serving) return this.attempt(workspace, scope, work, file, serving, false, turn)
    return this.start(workspace, scope).then((started) => this.attempt(workspace, scope, work, file, started, false, turn))
  }

  /**
   * `work` on `instance` (see runWithReplay), settled once the server is released; a first attempt
   * the transport failed is replayed. The instance counts the attempt as running on it (`claim`)
   * until one of the two handlers here runs: they are the attempt's own, so the count costs no promise.
   */
  private attempt<R>(
    workspace: Workspace,
    scope: Bound,
    work: (instance: ServerInstance) => Promise<R>,
    file: string | undefined,
    instance: ServerInstance,
    replayed: boolean,
    turn: TurnEnd | undefined,
  ): Promise<R> {
    instance.claim()
    const running = instance.hasChangedDocuments(file) ? this.sendChangedDocuments(instance, file, scope.signal).then(() => work(instance)) : settling(() => work(instance))
    return running.then(
      (result) => {
        instance.unclaim()
        this.supervision.succeeded(workspace.path)
        return this.released(instance, () => result, turn)
      },
      (error: unknown) => {
        instance.unclaim()
        const fails = () => {
          throw error
        }
        if (this.supervision.settle(workspace.path, error, instance, scope) !== 'transport' || replayed) return this.released(instance, fails, turn)
        return this.pool
          .retire(instance)
          .then(() => {
            this.guard(scope)
            return this.start(workspace, scope)
          })
          .then(
            (fresh) => this.attempt(workspace, scope, work, file, fresh, true, turn),
            (failure: unknown) =>
              this.released(instance, () => {
                throw failure
              }),
          )
      },
    )
  }

  /**
   * `settle()` once the server is released to the pool (a promise only when the server is dead and
   * goes: its teardown). Released in this call, the attempt is the last step of its queue turn
   * (`turn`, when it runs in one): the turn ends here, with no promise of the queue's to learn it.
   */
  private released<R>(instance: ServerInstance, settle: () => R, turn?: TurnEnd): R | Promise<R> {
    const released = this.pool.release(instance)
    if (released) return released.then(settle)
    turn?.end()
    return settle()
  }

  /** A server for the workspace; a start that fails at once counts like any other failure. */
  private async start(workspace: Workspace, scope: Bound): Promise<ServerInstance> {
    try {
      return await this.pool.acquire(workspace, () => this.launch(workspace, scope.signal))
    } catch (error) {
      this.supervision.settle(workspace.path, error, NO_SERVER, scope)
      throw error
    }
  }

  /** How a new server starts for the workspace, once the row's preflight passed there. */
  private async launch(workspace: Workspace, signal: AbortSignal): Promise<Launch> {
    const launch = await this.options.launcher.launch(workspace, signal)
    await this.preflight?.assert(launch.executable, workspace.path, signal)
    return launch
  }

  /**
   * The canonical workspace; through the call's `proofs` (made for `root`) when there are some, so it
   * is resolved once per call. Answered in the call when `ctx.fs` proves it on the event loop (a
   * workspace resolved before: `workspaceNow`); a lookup that must be awaited is tracked by the
   * provider's lifetime (disposal waits for it). A moment's work: no signal, the call's lifetime
   * checked after it.
   */
  private workspaceOf(root: string, scope: CallerBound | CallScope, proofs?: CallProofs): Workspace | Promise<Workspace> {
    const invalid = (error: unknown): never => {
      this.guard(scope)
      const reason = error instanceof Error ? error.message : String(error)
      throw new LspError(`workspace ${quote(root)} cannot be used: ${reason}`, 'LSP_WORKSPACE_INVALID', { cause: error })
    }
    let lookup: Promise<Workspace>
    try {
      const now = proofs ? proofs.workspaceNow() : this.options.fs.workspaceNow(root)
      if (now) return now
      lookup = proofs ? proofs.workspace() : this.options.fs.workspace(root)
    } catch (error) {
      return invalid(error)
    }
    return this.lifetime.track(lookup).catch(invalid)
  }

  /**
   * `filePath` proven inside the workspace: its canonical path (the source read and the root finder
   * start from it). Answered in the call when the proof runs on the event loop; no signal, as `workspaceOf`.
   */
  private containedSource(workspace: Workspace, filePath: string, scope: CallScope, proofs?: CallProofs): string | Promise<string> {
    const { fs } = this.options
    const refused = (error: unknown): never => {
      throw sourceError(error, workspace, filePath, scope)
    }
    try {
      const now = proofs ? proofs.containedNow(workspace, filePath) : fs.containedNow(workspace, filePath)
      if (now !== undefined) return now
      return (proofs ? proofs.contained(workspace, filePath) : fs.contained(workspace, filePath)).catch(refused)
    } catch (error) {
      return refused(error)
    }
  }

  /**
   * The source at `path` (proven for `filePath`), reused while the file is unchanged (ProvenTextCache):
   * the kept text's stat without a signal (the kept text at once, when its stat answers in the
   * call; `stat`, the lstat the file's proof took in this same pass, stands for it), a read of bytes
   * under the call's.
   */
  private readProvenSource(workspace: Workspace, filePath: string, path: string, scope: CallScope, stat: ProvenStat | undefined): ContainedText | Promise<ContainedText> {
    const found = stat ? this.texts.lookupProven(path, stat) : this.texts.lookup(path, undefined)
    if (!(found instanceof Promise) && found.hit && found.info.size <= this.options.config.maxDocumentBytes) return found.hit
    return this.readChanged(workspace, filePath, path, found, scope)
  }

  /**
   * `readProvenSource` when the kept text cannot serve (or its stat must be awaited). A small file
   * is read in the call (`fillNow`): a value, not a promise, after every edit a writer makes.
   */
  private readChanged(workspace: Workspace, filePath: string, path: string, looked: TextLookup | Promise<TextLookup>, scope: CallScope): ContainedText | Promise<ContainedText> {
    const { maxDocumentBytes } = this.options.config
    const refused = (error: unknown): never => {
      throw sourceError(error, workspace, filePath, scope)
    }
    const read = (found: TextLookup): ContainedText | Promise<ContainedText> => {
      if (found.hit && found.info.size <= maxDocumentBytes) return found.hit
      this.guard(scope)
      // The scope itself as the read's abort check, not its signal: a signal would make the call a
      // lifetime of its own and an AbortController, on every change, for a read that ends in the call.
      const options = { maxBytes: maxDocumentBytes, signal: scope }
      return this.texts.fillNow(workspace, path, found, options) ?? this.texts.fill(workspace, path, found, options)
    }
    try {
      const text = looked instanceof Promise ? looked.then(read) : read(looked)
      return text instanceof Promise ? text.catch(refused) : text
    } catch (error) {
      return refused(error)
    }
  }

  private async readSource(workspace: Workspace, filePath: string, signal: AbortSignal): Promise<ContainedText> {
    try {
      return await this.options.fs.readContainedText(workspace, filePath, { maxBytes: this.options.config.maxDocumentBytes, signal })
    } catch (error) {
      throw sourceError(error, workspace, filePath, signal)
    }
  }

  /** LSP_DISPOSED once the provider is; the caller's abort reason (else LSP_ABORTED) once it gave up. */
  private guard(caller: CallerBound | CallScope): void {
    if (this.disposed) throw new LspError(`${this.id}: lsp-stdio provider is disposed`, 'LSP_DISPOSED')
    if (caller?.aborted) throw errorFromReason(caller.reason, queryAborted)
  }
}

/** Files of one root tried as a workspace search's open file when the first cannot be read (see AnchorFiles). */
const MAX_ANCHOR_CANDIDATES = 16

/** What a call is bound by: the caller's lifetime, its signal, or nothing (AbortSignal and Lifetime both tell `aborted` and `reason`). */
type CallerBound = LspBound | undefined

/** What the provider's own steps are bound by: a lifetime, or a file call's scope. */
type Bound = Lifetime | CallScope

/** A request about one file. */
interface FileRequest {
  readonly filePath: string
  readonly workspaceRoot: string
  readonly proofs?: CallProofs | undefined
}

/** What a file request does on its server, once its source is read. */
type FileWork<R> = (instance: ServerInstance, source: ContainedText, workspace: Workspace, scope: CallScope) => Promise<R>

/**
 * True when the call has proofs with a walk number and is still in its first pass (no wait, so no
 * write or change told can have come between). It checks the pass only: which walk took a lstat is
 * for the caller to compare (`directoryOf(dir, walk)`, `taken.walk >= walk`).
 */
function inFirstPassWithWalk(proofs: CallProofs | undefined, walk: number | undefined, scope: CallScope): boolean {
  return proofs !== undefined && walk !== undefined && scope.inFirstPass
}

/** A source file that cannot be used, as the LspError a caller routes on. */
function sourceError(error: unknown, workspace: Workspace, filePath: string, caller: { readonly aborted: boolean; readonly reason: unknown }): Error {
  if (caller.aborted) return errorFromReason(caller.reason, queryAborted)
  if (error instanceof FsError && error.code === 'FS_OUTSIDE_WORKSPACE') {
    return new LspError(`source ${quote(filePath)} resolves outside the workspace ${workspace.path}`, 'LSP_SOURCE_OUTSIDE_WORKSPACE', { cause: error })
  }
  const reason = error instanceof Error ? error.message : String(error)
  return new LspError(`source ${quote(filePath)} cannot be used: ${reason}`, 'LSP_SOURCE_INVALID', { cause: error })
}

/**
 * `work` at the request's position kept within its line (see `withinLine`); a line past the
 * file's end rejects (LSP_INVALID_REQUEST) and nothing is asked of the server. A moved position is
 * told: the result carries `askedAt`, and the server's refusal there (an error answer, a rename
 * refused) says where it was asked, so a model whose column ran past the line does not take an
 * answer about the line's end (often none) for one about the place it meant.
 */
function atPosition<R extends { readonly askedAt?: LspPosition }>(
  source: ContainedText,
  request: { readonly filePath: string; readonly position: LspPosition },
  work: (position: LspPosition) => Promise<R>,
): Promise<R> {
  let position: LspPosition
  try {
    position = withinLine(source.text, request.position, request.filePath)
  } catch (error) {
    return Promise.reject(error)
  }
  // The position as given: the answer as it is, no promise more.
  if (position === request.position) return work(position)
  const askedAt = position
  return work(position).then(
    (result) => ({ ...result, askedAt }),
    (error: unknown) => {
      throw movedError(error, request.position, askedAt)
    },
  )
}

/** The server's own refusals at a moved position, with the note; anything else (an abort, a timeout, a crash) as it is. */
function movedError(error: unknown, requested: LspPosition, askedAt: LspPosition): unknown {
  if (!(error instanceof LspError) || (error.code !== 'LSP_SERVER_ERROR' && error.code !== 'LSP_RENAME_REFUSED')) return error
  return error.reworded(`${error.message} (${askedAtNote(requested, askedAt)})`)
}
