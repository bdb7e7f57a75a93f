import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { errorMessage, sleep, type ChildHandle, type Exit, type SpawnSpec, type SubprocessService } from 'dsh-core'
import { McpError } from './errors.ts'

export interface StdioTransportOptions {
  readonly subprocess: Pick<SubprocessService, 'spawn'>
  readonly spawn: Omit<SpawnSpec, 'stdin' | 'stdout'>
  /** After stdin is closed, how long the server may take to exit before its group is terminated. */
  readonly shutdownGraceMs: number
}

/**
 * An MCP client transport over a child started through `ctx.subprocess`, so the server gets the
 * shared environment scrub, its own process group and a stderr tail. Newline-delimited JSON-RPC
 * framing comes from the SDK (`ReadBuffer`, `serializeMessage`).
 *
 * `onclose` fires exactly once, and only when the child's whole process group is gone: a
 * replacement started after it can never overlap the old server.
 */
export class StdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private child: ChildHandle | undefined
  private readonly buffer = new ReadBuffer()
  private exit: Exit | undefined
  private closing: Promise<void> | undefined
  private finished = false
  private drain: Promise<void> | undefined
  private readonly gone: Promise<void>
  private markGone!: () => void

  constructor(private readonly options: StdioTransportOptions) {
    this.gone = new Promise((resolve) => (this.markGone = resolve))
  }

  get pid(): number | undefined {
    return this.child && this.child.pid > 0 ? this.child.pid : undefined
  }

  /** The last bytes the server wrote to stderr. */
  stderrTail(): string {
    return this.child?.stderrTail() ?? ''
  }

  /** How the process ended, once it has: `exited with code 3`, `was killed by SIGKILL`. */
  exitDescription(): string | undefined {
    if (!this.exit) return undefined
    if (this.exit.error) return `could not be started: ${this.exit.error.message}`
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
    child.stdout.on('data', (chunk: Buffer) => this.receive(chunk))
    child.stdin.on('error', (error) => this.onerror?.(error))
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin || this.closing || this.exit || stdin.writableEnded || stdin.destroyed) return Promise.reject(new Error('Not connected'))
    return new Promise((resolve, reject) => {
      const written = stdin.write(serializeMessage(message), (error) => {
        if (error) reject(error)
      })
      if (written) resolve()
      else void this.drained(stdin).then(resolve)
    })
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

  private async shutDown(): Promise<void> {
    const child = this.child
    if (!child) return this.finish()
    try {
      child.stdin?.end()
    } catch {
      // a broken pipe: the process is going anyway
    }
    const exited = await Promise.race([child.exited.then(() => true), sleep(this.options.shutdownGraceMs).then(() => false)])
    if (!exited) await child.terminate()
    await this.gone
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk)
    } catch (error) {
      // One message larger than the SDK's buffer limit: the stream cannot be resynchronised.
      this.onerror?.(new McpError(`the server sent an oversized message: ${errorMessage(error)}`, 'MCP_MALFORMED_RESPONSE', { cause: error }))
      void this.close()
      return
    }
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        // The bad line is consumed; later lines are still readable.
        this.onerror?.(new McpError(`the server wrote a line that is not JSON-RPC: ${errorMessage(error).slice(0, 300)}`, 'MCP_MALFORMED_RESPONSE', { cause: error }))
        continue
      }
      if (message === null) return
      this.onmessage?.(message)
    }
  }

  private finish(): void {
    if (this.finished) return
    this.finished = true
    this.markGone()
    this.buffer.clear()
    this.onclose?.()
  }
}
