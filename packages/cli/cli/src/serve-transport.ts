import { JSONRPCMessageSchema } from '@modelcontextprotocol/core'
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server'
import { asJsonRpcId, describeIssues, errorMessage, jsonRpcEnvelope, LineReader, oneLine, quote } from 'dsh-core'
import { RpcCode } from './serve-rpc.ts'
import { isPlainMessage } from './serve-shapes.ts'

export interface LineTransportOptions {
  /** The largest message read whole; a longer one is skipped, answered with an error when it has an id, and logged. */
  readonly maxMessageBytes: number
  /**
   * Bytes written to stdout that the client has not read yet. A send that finds more than this
   * closes the connection: the client stopped reading, and the answers must not pile up forever.
   */
  readonly maxOutputBytes: number
  /** One line about input that was dropped or refused. */
  readonly log: (line: string) => void
}

/**
 * `dsh serve`'s stdio transport: newline-delimited JSON-RPC, like the SDK's, but it owns the size
 * limit. The SDK's transport closes the connection (and so ends `dsh serve`) on the first message
 * over 10 MB, silently; here an over-size message is skipped as it streams in (never buffered
 * whole), answered with a JSON-RPC error when its id can be read, and logged, and the next message
 * is read as usual. A line that is not JSON, or not JSON-RPC, is logged and skipped too.
 */
export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly reader: LineReader
  private readonly onData = (chunk: Buffer | string) => this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  private readonly onReadError = (error: Error) => this.onerror?.(error)
  private closed = false
  /** The client's requests not answered yet, by id (what `refuseUnanswered` answers at shutdown). */
  private readonly unanswered = new Set<RequestId>()
  private markClosed!: () => void
  /**
   * Settles once the connection is closed, by either side. The serving entry owns `onclose`
   * (`serveStdio` sets it), so `dsh serve` waits on this instead.
   */
  readonly whenClosed = new Promise<void>((resolve) => (this.markClosed = resolve))
  /** One wait for 'drain' shared by every send that found stdout full; a close settles it too. */
  private drained: { readonly promise: Promise<void>; readonly fail: (error: Error) => void } | undefined

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream & { readonly writableLength?: number },
    private readonly options: LineTransportOptions,
  ) {
    this.reader = new LineReader({ maxBytes: options.maxMessageBytes }, {
      line: (text) => this.deliver(text),
      oversized: (bytes, head, tail) => this.refuse(bytes, head, tail),
    })
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onReadError)
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('dsh serve: the connection is closed'))
    const unread = this.stdout.writableLength ?? 0
    if (unread > this.options.maxOutputBytes) {
      const why = `the client stopped reading: ${unread} bytes of answers are unread, over --max-output-bytes ${this.options.maxOutputBytes}; closing the connection`
      this.options.log(why)
      void this.close()
      return Promise.reject(new Error(`dsh serve: ${why}`))
    }
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.unanswered.delete(message.id)
    if (this.stdout.write(`${JSON.stringify(message)}\n`)) return Promise.resolve()
    return this.drain()
  }

  /**
   * Answers every request of the client still unanswered with this error (the server is stopping:
   * the client hears so now rather than seeing the connection just end). Call before `close`.
   */
  refuseUnanswered(code: number, message: string): void {
    for (const id of [...this.unanswered]) this.answerError(id, code, message)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onReadError)
    this.reader.clear()
    this.drained?.fail(new Error('dsh serve: the connection closed before the client read this answer'))
    this.markClosed()
    this.onclose?.()
  }

  private drain(): Promise<void> {
    if (this.drained) return this.drained.promise
    let fail!: (error: Error) => void
    const promise = new Promise<void>((resolve, reject) => {
      fail = reject
      this.stdout.once('drain', () => {
        this.drained = undefined
        resolve()
      })
    })
    // A send the SDK does not await (a notification) must not become an unhandled rejection.
    promise.catch(() => {})
    this.drained = { promise, fail }
    return promise
  }

  private deliver(line: string): void {
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (error) {
      this.options.log(`ignored a line that is not JSON (${Buffer.byteLength(line)} bytes, ${oneLine(errorMessage(error))}): ${quote(line, 80)}`)
      return
    }
    if (isPlainMessage(json)) {
      this.receive(json)
      return
    }
    const message = JSONRPCMessageSchema.safeParse(json)
    if (message.success) {
      this.receive(message.data)
      return
    }
    const id = requestIdOf(json)
    // A bad id is the problem to name: the schema's own words for it (every message kind refused,
    // the last one's "Unrecognized key: id") read as if the id were not allowed at all.
    const problem =
      id === null
        ? 'its id is no string or integer'
        : typeof id === 'number' && !Number.isInteger(id)
          ? `its id ${id} is not an integer (MCP request ids are strings or integers)`
          : describeIssues(message.error, '(message)')
    this.options.log(`ignored a message that is not JSON-RPC 2.0 (${id === undefined ? 'no id' : id === null ? 'an id that is no string or finite number' : `id ${quote(id)}`}): ${problem}`)
    if (id !== undefined) this.answerError(id, RpcCode.INVALID_REQUEST, `invalid JSON-RPC request: ${problem}`)
  }

  private receive(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message && message.id !== undefined) this.unanswered.add(message.id)
      // A request the client cancelled gets no answer from the SDK: it is no longer waiting for one.
      else if (message.method === 'notifications/cancelled') this.unanswered.delete((message.params as { requestId?: RequestId } | undefined)?.requestId as RequestId)
    }
    this.onmessage?.(message)
  }

  private refuse(bytes: number, head: string, tail: string): void {
    const { id, idUnreadable, method, response } = jsonRpcEnvelope(head, tail)
    const limit = this.options.maxMessageBytes
    const what = `${method === undefined ? 'method unknown' : quote(method, 80)}, ${id !== undefined ? `id ${quote(id, 80)}` : idUnreadable ? 'an id that could not be read' : 'no id could be read'}`
    this.options.log(`refused a message of ${bytes} bytes (${what}): over --max-message-bytes ${limit}`)
    // An id that is there but unreadable is answered with id null (JSON-RPC 2.0), never with a guess.
    if ((id !== undefined || idUnreadable) && !response) this.answerError(id ?? null, RpcCode.INVALID_REQUEST, `request of ${bytes} bytes is over this server's limit of ${limit} bytes (--max-message-bytes)`)
  }

  /** `id` null: the request's id could not be read (JSON-RPC 2.0's answer to an invalid request). */
  private answerError(id: RequestId | null, code: number, message: string): void {
    // The SDK's message type has no null id; JSON-RPC 2.0 asks for one here.
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
  }
}

/**
 * The id to answer a refused message with: undefined for a notification or a response (never
 * answered), null for a request whose id is there but no string or finite number (an object,
 * null, a number too long for a double: `JSON.parse` makes 400 digits Infinity).
 */
function requestIdOf(json: unknown): RequestId | null | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !('method' in json) || !('id' in json)) return undefined
  return asJsonRpcId(json.id) ?? null
}
