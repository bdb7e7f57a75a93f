import { serializeMessage, type JSONRPCMessage, type Transport, type TransportSendOptions } from '@modelcontextprotocol/client'
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core'
import { errorMessage, jsonRpcEnvelope, Lifetime, LineReader, oneLine, type ChildHandle, type Exit, type SpawnSpec, type SubprocessService } from 'dsh-core'
import { McpError } from './errors.ts'
import { answerId, answerProblem, deliverInOrder, faultAnswer, fromPeer, PendingRequests } from './wire.ts'

export interface StdioTransportOptions {
  readonly subprocess: Pick<SubprocessService, 'spawn'>
  readonly spawn: Omit<SpawnSpec, 'stdin' | 'stdout'>
  /** After stdin is closed, how long the server may take to exit before its group is terminated. */
  readonly shutdownGraceMs: number
  /** The largest message read from the server; a longer line is skipped (see `LineReader`). */
  readonly maxMessageBytes: number
}

/** The transport could not send: the server is gone or the transport is closing. */
export class TransportClosedError extends Error {}

/**
 * An MCP client transport over a child started through `ctx.subprocess`, so the server gets the
 * shared environment scrub, its own process group and a stderr tail. Newline-delimited JSON-RPC,
 * read with a per-message cap; an answer too large to read or not valid JSON-RPC still answers its
 * request (with a `TransportFault`), so the caller hears about it at once and the connection stays.
 *
 * `onclose` fires exactly once, and only when the child's whole process group is gone: a
 * replacement started after it can never overlap the old server.
 */
export class StdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private child: ChildHandle | undefined
  private readonly reader: LineReader
  /** Requests sent and not yet answered (read by a call that needs its request's id, call.ts). */
  readonly pending = new PendingRequests()
  private exit: Exit | undefined
  private closing: Promise<void> | undefined
  /** Set when dsh ended the server (before it exited on its own). */
  private stoppedByUs = false
  /**
   * Set when a write found the server's input closed (EPIPE): it stopped reading on its own, so
   * an exit that follows is its own, even when dsh's closing sees the exit first.
   */
  private stoppedReading = false
  private finished = false
  private drain: Promise<void> | undefined
  private readonly gone: Promise<void>
  private markGone!: () => void

  constructor(private readonly options: StdioTransportOptions) {
    this.gone = new Promise((resolve) => (this.markGone = resolve))
    this.reader = new LineReader({ maxBytes: options.maxMessageBytes }, {
      line: (text) => this.receive(text),
      oversized: (bytes, head, tail) => this.skipped(bytes, head, tail),
    })
  }

  /**
   * Always null: the server's stderr is ours (ctx.subprocess keeps its tail). Present so the SDK
   * sees a stdio transport, where a version probe that gets no answer means an older server.
   */
  readonly stderr = null

  get pid(): number | undefined {
    return this.child && this.child.pid > 0 ? this.child.pid : undefined
  }

  /** The last bytes the server wrote to stderr (for logs and status, never for the model). */
  stderrTail(): string {
    return this.child?.stderrTail() ?? ''
  }

  /** How the process ended, once it has: `exited with code 3`, `was stopped by dsh`. */
  exitDescription(): string | undefined {
    if (!this.exit) return undefined
    if (this.exit.error) return `could not be started: ${this.exit.error.message}`
    if (this.stoppedByUs) return 'was stopped by dsh'
    return this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('StdioTransport already started')
    const child = this.options.subprocess.spawn({ ...this.options.spawn, stdin: 'pipe', stdout: 'pipe' })
    this.child = child
    void child.exited
      .then((exit) => {
        this.exit = exit
        // The leader is gone; the group may not be. The close barrier is the whole group.
        return child.terminate()
      })
      .then(() => this.finish())
    if (child.pid <= 0 || !child.stdout || !child.stdin) {
      const exit = await child.exited
      throw new McpError(`the server ${this.exitDescription() ?? 'could not be started'}`, 'MCP_CONNECT_FAILED', { cause: exit.error })
    }
    child.stdout.on('data', (chunk: Buffer) => this.reader.push(chunk))
    // A write that fails (EPIPE: the server closed its input, or exited) is told here, not to its
    // send: the transport closes, which fails every pending request, and how the server ended (its
    // exit code and stderr) is what the row reports, once. The errno error is not a transport error
    // of its own: logging it as one said the same thing twice, the second time as a raw 'write
    // EPIPE'. Nothing more can reach a server that stopped reading: one that is exiting does so
    // within the grace (its own exit), one that keeps running is stopped, and the owner reconnects.
    child.stdin.on('error', () => {
      this.stoppedReading = true
      void this.close()
    })
  }

  /** `options`: only read to tell a call's requests apart (`PendingRequests.latestWaiting`); stdio has no headers. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin || this.closing || this.exit || stdin.writableEnded || stdin.destroyed) return Promise.reject(new TransportClosedError('the server is not running'))
    this.pending.sent(message, options)
    // No write callback: a write without one that the pipe takes at once schedules nothing, where a
    // callback costs a process.nextTick per message (the SDK's own stdio transport writes the same
    // way). A failed write (EPIPE: the server stopped reading) is the 'error' listener's in `start`.
    if (stdin.write(serializeMessage(message))) return Promise.resolve()
    return this.drained(stdin)
  }

  /** One wait for 'drain' shared by every blocked send; a server that dies meanwhile releases it too. */
  private drained(stdin: NodeJS.WritableStream): Promise<void> {
    this.drain ??= Promise.race([new Promise<void>((resolve) => stdin.once('drain', resolve)), this.gone]).finally(() => (this.drain = undefined))
    return this.drain
  }

  /** Ends stdin, gives the server `shutdownGraceMs` to exit, then terminates its group; resolves once it is gone. */
  close(): Promise<void> {
    this.closing ??= this.shutDown()
    return this.closing
  }

  /**
   * The close took longer than the row's `closeTimeoutMs`: SIGKILL the process group now, without
   * waiting (`onclose` still fires once the group is gone).
   */
  abandon(): void {
    if (!this.exit) this.stoppedByUs = true
    this.child?.killNow()
  }

  private async shutDown(): Promise<void> {
    const child = this.child
    if (!child) return this.finish()
    if (!this.exit && !this.stoppedReading) this.stoppedByUs = true
    try {
      child.stdin?.end()
    } catch {
      // a broken pipe: the process is going anyway
    }
    const exited = await Lifetime.run({}, (waiting) => waiting.within(child.exited, this.options.shutdownGraceMs))
    if (!exited) {
      this.stoppedByUs = true
      await child.terminate()
    }
    await this.gone
  }

  private receive(text: string): void {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      this.onerror?.(new McpError(`the server wrote a line that is not JSON: ${oneLine(errorMessage(error)).slice(0, 300)}`, 'MCP_MALFORMED_RESPONSE', { cause: error }))
      return
    }
    const checked = JSONRPCMessageSchema.safeParse(parsed)
    if (checked.success) {
      const stray = this.pending.stray(checked.data)
      if (stray) return this.onerror?.(stray)
      this.pending.answered(checked.data)
      deliverInOrder(this.onmessage, fromPeer(checked.data))
      return
    }
    const id = answerId(parsed)
    const problem = id !== undefined ? answerProblem(parsed as object) : 'a message that is not JSON-RPC'
    this.onerror?.(new McpError(`the server ${problem === 'a message that is not JSON-RPC' ? 'wrote' : 'answered with'} ${problem}`, 'MCP_MALFORMED_RESPONSE', { cause: checked.error }))
    if (id !== undefined && this.pending.has(id)) this.answerItself(id, { kind: 'malformed', problem })
  }

  private skipped(bytes: number, head: string, tail: string): void {
    const fault = { kind: 'oversized', bytes, limit: this.options.maxMessageBytes } as const
    const id = jsonRpcEnvelope(head, tail).id ?? this.pending.only()
    this.onerror?.(new McpError(`the server sent a message of ${bytes} bytes, over maxMessageBytes (${fault.limit}); it was skipped`, 'MCP_MALFORMED_RESPONSE'))
    if (id !== undefined && this.pending.has(id)) this.answerItself(id, fault)
  }

  private answerItself(id: Parameters<typeof faultAnswer>[0], fault: Parameters<typeof faultAnswer>[1]): void {
    const answer = faultAnswer(id, fault)
    this.pending.answered(answer)
    deliverInOrder(this.onmessage, answer)
  }

  private finish(): void {
    if (this.finished) return
    this.finished = true
    this.markGone()
    this.reader.clear()
    this.onclose?.()
  }
}
