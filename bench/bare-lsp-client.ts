import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node'

/** One `textDocument/publishDiagnostics` the server sent. */
export interface Publication {
  readonly uri: string
  readonly version?: number
  readonly diagnostics: readonly { readonly severity?: number }[]
}

/**
 * The baseline: a bare vscode-jsonrpc client doing what a careful hand-written client does per
 * query — read the file, didOpen, request, didClose — with no host, queue, validation or rendering.
 * With `diagnostics`, it also advertises diagnostics (published, and pulled) as dsh-lsp-stdio does,
 * and can keep a document open and change it (the diagnostics baseline).
 */
export class BareLspClient {
  private readonly child: ChildProcess
  private readonly connection: MessageConnection
  private readonly outstanding = new Set<string | number>()
  private quiet: (() => void) | undefined
  private readonly versions = new Map<string, number>()
  private readonly publicationWaiters = new Set<(publication: Publication) => void>()

  constructor(
    executable: string,
    args: readonly string[],
    private readonly workspace: string,
    private readonly options: {
      readonly diagnostics?: boolean
      readonly refactor?: boolean
      /**
       * `query` opens each file once (its text as read then) and leaves it open, sending only the
       * request afterwards: what dsh-lsp-stdio does on a server that answers pulled diagnostics
       * (TypeScript 7's), so the server holds the same open documents for both clients.
       */
      readonly keepOpen?: boolean
      /** `initialize`'s `initializationOptions`: what dsh's row sends the same server (BenchServer). */
      readonly initializationOptions?: unknown
    } = {},
  ) {
    // Its own process group, so close() ends the server's children too (tsserver under
    // typescript-language-server), as dsh's subprocess service does for ours.
    this.child = spawn(executable, args, { cwd: workspace, stdio: ['pipe', 'pipe', 'ignore'], detached: true })
    this.connection = createMessageConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!))
    this.connection.onRequest((method, params: any) => {
      if (method === 'window/workDoneProgress/create') this.outstanding.add(params.token)
      if (method === 'workspace/configuration') return (params.items ?? []).map(() => null)
      return null
    })
    this.connection.onUnhandledProgress(({ token, value }: any) => {
      if (value?.kind === 'begin') this.outstanding.add(token)
      if (value?.kind === 'end') {
        this.outstanding.delete(token)
        if (!this.outstanding.size) this.quiet?.()
      }
    })
    this.connection.onNotification('textDocument/publishDiagnostics', (params: Publication) => {
      for (const waiter of [...this.publicationWaiters]) waiter(params)
    })
    this.connection.listen()
  }

  get pid(): number {
    return this.child.pid ?? -1
  }

  async initialize(): Promise<void> {
    const uri = pathToFileURL(this.workspace).href
    await this.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: 'workspace' }],
      initializationOptions: this.options.initializationOptions ?? null,
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        window: { workDoneProgress: true },
        workspace: {
          workspaceFolders: true,
          configuration: true,
          ...(this.options.refactor ? { workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], failureHandling: 'abort' } } : {}),
        },
        textDocument: {
          hover: { contentFormat: ['markdown', 'plaintext'] },
          definition: { linkSupport: true },
          implementation: { linkSupport: true },
          references: {},
          ...(this.options.refactor ? { rename: { dynamicRegistration: false, prepareSupport: true }, callHierarchy: { dynamicRegistration: false } } : {}),
          ...(this.options.diagnostics ? { publishDiagnostics: { relatedInformation: true, versionSupport: true }, diagnostic: { dynamicRegistration: false } } : {}),
        },
      },
    })
    await this.connection.sendNotification('initialized', {})
  }

  /** Resolves once no work-done progress is outstanding (or after `maxMs`). */
  waitQuiet(maxMs: number): Promise<void> {
    if (!this.outstanding.size) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs)
      this.quiet = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  async query(method: string, file: string, languageId: string, line: number, character: number): Promise<unknown> {
    const path = join(this.workspace, file)
    const uri = pathToFileURL(path).href
    const context = method === 'textDocument/references' ? { context: { includeDeclaration: true } } : {}
    const params = { textDocument: { uri }, position: { line, character }, ...context }
    if (this.options.keepOpen) {
      if (!this.versions.has(uri)) await this.open(file, languageId)
      return this.connection.sendRequest(method, params)
    }
    const text = await readFile(path, 'utf8')
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } })
    try {
      return await this.connection.sendRequest(method, params)
    } finally {
      await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } })
    }
  }

  /** didOpen, `work` with the document's URI, didClose: what a careful client does per request. */
  private async withOpen<T>(file: string, languageId: string, work: (uri: string) => Promise<T>): Promise<T> {
    const path = join(this.workspace, file)
    const text = await readFile(path, 'utf8')
    const uri = pathToFileURL(path).href
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } })
    try {
      return await work(uri)
    } finally {
      await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } })
    }
  }

  /** prepareRename (when `prepare`), then rename: the WorkspaceEdit as the server sends it. Needs `refactor`. */
  rename(file: string, languageId: string, line: number, character: number, newName: string, prepare: boolean): Promise<unknown> {
    return this.withOpen(file, languageId, async (uri) => {
      const textDocument = { uri }
      const position = { line, character }
      if (prepare) await this.connection.sendRequest('textDocument/prepareRename', { textDocument, position })
      return this.connection.sendRequest('textDocument/rename', { textDocument, position, newName })
    })
  }

  /** prepareCallHierarchy, then the direct incoming or outgoing calls of each item. Needs `refactor`. */
  calls(file: string, languageId: string, line: number, character: number, direction: 'incoming' | 'outgoing'): Promise<{ item: unknown; calls: unknown[] }[]> {
    return this.withOpen(file, languageId, async (uri) => {
      const items = ((await this.connection.sendRequest('textDocument/prepareCallHierarchy', { textDocument: { uri }, position: { line, character } })) ?? []) as unknown[]
      const method = direction === 'incoming' ? 'callHierarchy/incomingCalls' : 'callHierarchy/outgoingCalls'
      return Promise.all(items.map(async (item) => ({ item, calls: ((await this.connection.sendRequest(method, { item })) ?? []) as unknown[] })))
    })
  }

  /** Opens `file` (with its text on disk) and keeps it open. */
  async open(file: string, languageId: string): Promise<void> {
    const path = join(this.workspace, file)
    const uri = pathToFileURL(path).href
    this.versions.set(uri, 1)
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text: await readFile(path, 'utf8') } })
  }

  /** Replaces an open document's text (didChange, the whole text); returns its new version. */
  async change(file: string, text: string): Promise<number> {
    const uri = this.uriOf(file)
    const version = (this.versions.get(uri) ?? 1) + 1
    this.versions.set(uri, version)
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] })
    return version
  }

  /** The next publication for `file` that `accept` takes. Call it before the change it answers. */
  publication(file: string, accept: (publication: Publication) => boolean): Promise<Publication> {
    const uri = this.uriOf(file)
    return new Promise((resolve) => {
      const waiter = (publication: Publication) => {
        if (publication.uri !== uri || !accept(publication)) return
        this.publicationWaiters.delete(waiter)
        resolve(publication)
      }
      this.publicationWaiters.add(waiter)
    })
  }

  /** `textDocument/diagnostic` for an open document. */
  pull(file: string): Promise<{ items: readonly { readonly severity?: number }[] }> {
    return this.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri: this.uriOf(file) } })
  }

  private uriOf(file: string): string {
    return pathToFileURL(join(this.workspace, file)).href
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((resolve) => setTimeout(resolve, 2000))])
      await this.connection.sendNotification('exit')
    } catch {
      // fall through to the kill
    }
    this.connection.dispose()
    const exited = this.child.exitCode !== null || this.child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => this.child.once('exit', resolve))
    try {
      process.kill(-this.child.pid!, 'SIGKILL')
    } catch {
      // the group is gone already
    }
    await exited
  }
}
