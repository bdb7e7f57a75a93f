/**
 * `dsh serve` inside the test worker: the CLI's own `main(['serve', …])` on two in-memory streams,
 * and an MCP client transport over them. A `dsh serve` child costs about a second of CPU before it
 * answers (node, the bundles, the boot); here the modules are loaded once per worker and the boot is
 * the only cost. Parsing, the boot, the served composition, the framing and the stop on end of input
 * are the command's own code. What only a process shows (exit codes and signals, stdout holding
 * protocol lines only, orphans, the bundled build) stays with the tests that start a real
 * `dsh serve`.
 *
 * Unlike test-support/dsh-in-process.ts, nothing of the process is swapped while a serve is open, so
 * serves may overlap each other and in-process commands: the command's directory and environment are
 * passed to `main` (`env` is laid over the test process's, so a serve may have its own `DSH_HOME` or
 * `HOME` without touching `process.env`). Child processes the served host starts inherit the test
 * process's environment. The one process-wide thing `main` sets, cordis's log targets, is put back
 * when the last run in the worker, serve or command, has returned (log-config.ts).
 */
import { PassThrough } from 'node:stream'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'
import { Lifetime } from 'dsh-core'
import { main } from '../packages/cli/cli/src/main.ts'
import { collector } from './dsh-in-process.ts'
import { holdLogConfig } from './log-config.ts'

export interface ServedInProcess {
  /** The client's end. Closing it ends the serve's input, and resolves once `dsh serve` has returned. */
  readonly transport: ServeClientTransport
  /** `dsh serve`'s exit code, once it has returned. */
  readonly exited: Promise<number>
  /** What the serve wrote to its stderr so far (its logs). */
  readonly stderr: () => string
}

/** Starts `dsh serve …args` in this worker, in `cwd` (the directory relative arguments mean), with `env` over the process's environment. */
export function serveInProcess(args: readonly string[], options: ServeInProcessOptions): ServedInProcess {
  const served = serveStreamsInProcess(args, options)
  return { transport: new ServeClientTransport(served.input, served.output, served.exited), exited: served.exited, stderr: served.stderr }
}

export interface ServeInProcessOptions {
  readonly cwd: string
  readonly env?: Readonly<Record<string, string>>
  /** Called with everything written to stderr so far, on each write. */
  readonly onStderr?: (text: string) => void
}

/** The serve's raw streams, for tests that write bytes no MCP client would (garbage, over-size lines). */
export interface ServedStreams {
  /** The serve's input; ending it ends the serve. */
  readonly input: PassThrough
  /** What the serve writes to its stdout; ends when the serve has returned. */
  readonly output: PassThrough
  readonly exited: Promise<number>
  readonly stderr: () => string
}

/** `serveInProcess` without a client: the test reads and writes the lines itself. */
export function serveStreamsInProcess(args: readonly string[], options: ServeInProcessOptions): ServedStreams {
  const input = new PassThrough()
  const output = new PassThrough()
  const stderr = collector(options.onStderr)
  const releaseLogConfig = holdLogConfig()
  const exited = main(['serve', ...args], { stdin: input, stdout: output, stderr: stderr.stream, cwd: options.cwd, ...(options.env ? { env: { ...process.env, ...options.env } } : {}) }, new Lifetime().signal).finally(() => {
    output.end()
    releaseLogConfig()
  })
  return { input, output, exited, stderr: stderr.text }
}

/** Newline-delimited JSON-RPC over the serve's input and output, as the SDK's stdio client speaks it. */
export class ServeClientTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private pending = ''
  private closed = false

  constructor(
    private readonly input: PassThrough,
    private readonly output: PassThrough,
    private readonly exited: Promise<number>,
  ) {}

  async start(): Promise<void> {
    this.output.setEncoding('utf8')
    this.output.on('data', (text: string) => {
      this.pending += text
      let end: number
      while ((end = this.pending.indexOf('\n')) >= 0) {
        const line = this.pending.slice(0, end)
        this.pending = this.pending.slice(end + 1)
        if (!line.trim()) continue
        let message: JSONRPCMessage
        try {
          message = JSON.parse(line) as JSONRPCMessage
        } catch (error) {
          this.onerror?.(error as Error)
          continue
        }
        this.onmessage?.(message)
      }
    })
    // The serve returned on its own (a closed connection, a failed boot): the client hears it closed.
    this.output.once('end', () => void this.close())
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the in-process dsh serve is closed')
    this.input.write(`${JSON.stringify(message)}\n`)
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true
      this.input.end()
    }
    await this.exited.catch(() => {})
    this.onclose?.()
    this.onclose = undefined
  }
}
