import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node'

/**
 * The baseline: a bare vscode-jsonrpc client doing what a careful hand-written client does per
 * query — read the file, didOpen, request, didClose — with no host, queue, validation or rendering.
 */
export class BareLspClient {
  private readonly child: ChildProcess
  private readonly connection: MessageConnection
  private readonly outstanding = new Set<string | number>()
  private quiet: (() => void) | undefined

  constructor(
    executable: string,
    args: readonly string[],
    private readonly workspace: string,
  ) {
    this.child = spawn(executable, args, { cwd: workspace, stdio: ['pipe', 'pipe', 'ignore'] })
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
      initializationOptions: null,
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        window: { workDoneProgress: true },
        workspace: { workspaceFolders: true, configuration: true },
        textDocument: { hover: { contentFormat: ['markdown', 'plaintext'] }, definition: { linkSupport: true }, implementation: { linkSupport: true }, references: {} },
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
    const text = await readFile(path, 'utf8')
    const uri = pathToFileURL(path).href
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } })
    try {
      const context = method === 'textDocument/references' ? { context: { includeDeclaration: true } } : {}
      return await this.connection.sendRequest(method, { textDocument: { uri }, position: { line, character }, ...context })
    } finally {
      await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } })
    }
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((resolve) => setTimeout(resolve, 2000))])
      await this.connection.sendNotification('exit')
    } catch {
      // fall through to the kill
    }
    this.connection.dispose()
    this.child.kill('SIGKILL')
  }
}
