import { JSONRPCMessageSchema } from '@modelcontextprotocol/core'
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server'
import { describeIssues, errorMessage, oneLine, quote } from 'dsh-core'
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

/** How much of an over-size message is kept to find its id and method in: its start and its end. */
const HEAD_BYTES = 4096
const TAIL_BYTES = 256

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

  private parts: Buffer[] = []
  private size = 0
  private oversize: Oversize | undefined
  private readonly onData = (chunk: Buffer | string) => this.read(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  private readonly onReadError = (error: Error) => this.onerror?.(error)
  private closed = false
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
  ) {}

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
    if (this.stdout.write(`${JSON.stringify(message)}\n`)) return Promise.resolve()
    return this.drain()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onReadError)
    this.parts = []
    this.oversize = undefined
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

  private read(chunk: Buffer): void {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start)
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline))
      if (newline < 0) return
      this.endOfLine()
      start = newline + 1
    }
  }

  /** Adds a piece of the current line, switching to skipping once the line outgrows the limit. */
  private take(piece: Buffer): void {
    if (this.oversize) {
      this.oversize.skip(piece)
      return
    }
    if (this.size + piece.length <= this.options.maxMessageBytes) {
      this.parts.push(piece)
      this.size += piece.length
      return
    }
    this.oversize = new Oversize(Buffer.concat([...this.parts, piece]))
    this.parts = []
    this.size = 0
  }

  private endOfLine(): void {
    const { oversize } = this
    if (oversize) {
      this.oversize = undefined
      this.refuse(oversize)
      return
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '')
    this.parts = []
    this.size = 0
    if (line.trim()) this.deliver(line)
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
      this.onmessage?.(json)
      return
    }
    const message = JSONRPCMessageSchema.safeParse(json)
    if (message.success) {
      this.onmessage?.(message.data)
      return
    }
    const problem = describeIssues(message.error, '(message)')
    const id = requestIdOf(json)
    this.options.log(`ignored a message that is not JSON-RPC 2.0 (${id === undefined ? 'no id' : `id ${quote(id)}`}): ${problem}`)
    if (id !== undefined) this.answerError(id, RpcCode.INVALID_REQUEST, `invalid JSON-RPC request: ${problem}`)
  }

  private refuse(oversize: Oversize): void {
    const { id, method, response } = oversize.envelope()
    const limit = this.options.maxMessageBytes
    const what = `${method === undefined ? 'method unknown' : quote(method, 80)}, ${id === undefined ? 'no id could be read' : `id ${quote(id, 80)}`}`
    this.options.log(`refused a message of ${oversize.bytes} bytes (${what}): over --max-message-bytes ${limit}`)
    if (id !== undefined && !response) this.answerError(id, RpcCode.INVALID_REQUEST, `request of ${oversize.bytes} bytes is over this server's limit of ${limit} bytes (--max-message-bytes)`)
  }

  private answerError(id: RequestId, code: number, message: string): void {
    this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
  }
}

/** A message being skipped: its size so far, and its first and last bytes (where its id and method are). */
class Oversize {
  private readonly head: Buffer
  private tail: Buffer
  bytes: number

  constructor(start: Buffer) {
    this.head = Buffer.from(start.subarray(0, HEAD_BYTES))
    this.tail = Buffer.from(start.subarray(-TAIL_BYTES))
    this.bytes = start.length
  }

  skip(piece: Buffer): void {
    this.bytes += piece.length
    this.tail = Buffer.from(Buffer.concat([this.tail, piece]).subarray(-TAIL_BYTES))
  }

  /**
   * The request's id and method as far as they can be read. Clients that write the id first are
   * read from the start; the SDK's client writes method and params first and the id last, so the
   * end is read too. A start showing `result` or `error` means a response, which is never answered.
   */
  envelope(): { id: RequestId | undefined; method: string | undefined; response: boolean } {
    const top = topLevelScalars(this.head.toString('utf8').replace(/\r$/, ''))
    const method = typeof top.values.get('method') === 'string' ? (top.values.get('method') as string) : undefined
    const id = asRequestId(top.values.get('id')) ?? lastTopLevelId(this.tail.toString('utf8').replace(/\r$/, ''))
    return { id, method, response: top.keys.has('result') || top.keys.has('error') }
  }
}

function asRequestId(value: unknown): RequestId | undefined {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined
}

function requestIdOf(json: unknown): RequestId | undefined {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && 'method' in json ? asRequestId((json as { id?: unknown }).id) : undefined
}

/** `…,"id":7}` or `…,"id":"a"}` closing the whole message: the top-level id written last. */
function lastTopLevelId(tail: string): RequestId | undefined {
  const match = /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail)
  if (!match?.[1]) return undefined
  try {
    return asRequestId(JSON.parse(match[1]))
  } catch {
    return undefined
  }
}

/**
 * The keys of the outermost object in the (possibly cut-off) start of a JSON text, with the values of
 * those that are strings, numbers or null. Nested objects are stepped over, so a `params.id` is never
 * taken for the request's id.
 */
function topLevelScalars(text: string): { keys: Set<string>; values: Map<string, unknown> } {
  const keys = new Set<string>()
  const values = new Map<string, unknown>()
  let depth = 0
  for (let at = 0; at < text.length; ) {
    const char = text[at]
    if (char === '"') {
      const end = stringEnd(text, at)
      if (end < 0) break
      const colon = skipSpace(text, end)
      if (depth === 1 && text[colon] === ':') {
        const key = JSON.parse(text.slice(at, end)) as string
        keys.add(key)
        const start = skipSpace(text, colon + 1)
        const scalar = scalarAt(text, start)
        if (scalar) values.set(key, scalar.value)
        at = scalar ? scalar.end : start
        continue
      }
      at = end
      continue
    }
    if (char === '{' || char === '[') depth++
    else if (char === '}' || char === ']') depth--
    at++
  }
  return { keys, values }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++
  return at
}

/** The index just past the string starting at `start` (a quote), or -1 when the text ends inside it. */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === '\\') at++
    else if (text[at] === '"') return at + 1
  }
  return -1
}

function scalarAt(text: string, at: number): { value: unknown; end: number } | undefined {
  if (text[at] === '"') {
    const end = stringEnd(text, at)
    return end < 0 ? undefined : { value: JSON.parse(text.slice(at, end)) as string, end }
  }
  const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)(?=\s*[,}])/.exec(text.slice(at, at + 64))
  return literal ? { value: JSON.parse(literal[0]) as unknown, end: at + literal[0].length } : undefined
}
