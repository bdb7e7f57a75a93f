import { serveStdio } from '@modelcontextprotocol/server/stdio'
import type { Host, SessionService, ToolResult, ToolRuntime } from 'dsh-core'
import type {} from 'dsh-skill'
import { ServedComposition } from './serve-composition.ts'
import { RpcCode } from './serve-rpc.ts'
import { LineTransport } from './serve-transport.ts'

export { toCallToolResult } from './serve-composition.ts'

export interface ServeOptions {
  /** The workspace of the one long-lived session every call runs in. */
  readonly cwd: string
  /** Aborts on SIGINT/SIGTERM: the server closes and `serve` resolves. */
  readonly signal: AbortSignal
  readonly stdin: NodeJS.ReadableStream
  readonly stdout: NodeJS.WritableStream
  /** An incoming message larger than this is refused (answered with an error when it has an id, and logged). */
  readonly maxMessageBytes: number
  /** `tools/call` requests running at once; one more is answered with `SERVER_BUSY`. */
  readonly maxConcurrentCalls: number
  /** Answers written and not read yet; past it the client has stopped reading and the connection is closed. */
  readonly maxOutputBytes: number
  /** A `tools/call` still running after this is aborted and answered `SERVE_REQUEST_TIMEOUT`. */
  readonly requestTimeoutMs: number
  /** The largest content one `resources/read` sends; a larger one is refused with `SERVE_READ_TOO_LARGE`. */
  readonly maxReadBytes: number
  /** A question relayed to the client is cancelled when no answer came in this long. */
  readonly answerTimeoutMs: number
  /** A better answer than UNKNOWN_TOOL for a call that found no tool, when there is one (CompositionOptions). */
  readonly explainUnknownTool?: (name: string) => Promise<ToolResult | undefined>
}

/**
 * `dsh serve`: the composition as an MCP server on stdio, through the SDK v2's `serveStdio`, which
 * pins the connection to the revision its first message speaks (2026-07-28 after `server/discover`
 * or any request carrying the per-request envelope, 2025-11-25 after `initialize`). What is served
 * is `ServedComposition`'s; the transport is ours (serve-transport.ts: the size limit and the bound
 * on unread output). Resolves when the client closes stdin or the signal aborts; the caller then
 * stops the host (every child process with it).
 */
export async function serve(host: Host, tools: ToolRuntime, sessions: SessionService, options: ServeOptions): Promise<void> {
  const composition = new ServedComposition(host, tools, sessions, { ...options, catalog: 'session', elicitApproval: true })
  const logger = host.app.logger('serve')
  const transport = new LineTransport(options.stdin, options.stdout, { maxMessageBytes: options.maxMessageBytes, maxOutputBytes: options.maxOutputBytes, log: (line) => logger.warn(line) })
  // The connection's instances (a discarded `server/discover` probe, then the pinned one): list
  // changes go to each, which sends them as the revision it speaks wants them.
  const instances = new Set<ReturnType<ServedComposition['server']>>()
  const handle = serveStdio(
    (context) => {
      const server = composition.server(context)
      instances.add(server)
      const closed = server.onclose
      server.onclose = () => {
        instances.delete(server)
        closed?.()
      }
      return server
    },
    { transport, onerror: (error) => logger.debug(error.message) },
  )
  const stopNotifying = composition.onListChanged((change) => {
    for (const server of instances) void (change === 'tools' ? server.sendToolListChanged() : server.sendPromptListChanged()).catch(() => {})
  })
  let inputEnded = false
  const closed = new Promise<void>((resolve) => {
    void transport.whenClosed.then(resolve)
    const ended = () => {
      inputEnded = true
      resolve()
    }
    options.stdin.once('end', ended)
    options.stdin.once('close', ended)
    if (options.signal.aborted) resolve()
    else options.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  try {
    await closed
  } finally {
    stopNotifying()
    // Told to stop: every request still running is answered now (a coded error), before the
    // connection closes, so the client does not just see it end.
    // A client that only closed its writing end (a script piping its requests in) may still read:
    // its calls still running are cancelled (closing stdin is how MCP asks a server to stop) and it
    // hears so, as on a signal, instead of those answers never coming.
    if (options.signal.aborted) transport.refuseUnanswered(RpcCode.SHUTTING_DOWN, 'dsh serve is shutting down (it was sent SIGTERM or SIGINT): this request was cancelled')
    else if (inputEnded) transport.refuseUnanswered(RpcCode.SHUTTING_DOWN, 'dsh serve is shutting down (its stdin closed): this request was cancelled')
    await handle.close().catch(() => {})
    composition.close()
  }
}
