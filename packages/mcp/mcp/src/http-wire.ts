import { randomUUID } from 'node:crypto'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'
import { answerId, answerProblem, deliverInOrder, fromPeer, idAtEdges, PendingRequests, TransportFault, type Fault } from './wire.ts'

/** Nothing answered at the HTTP level: refused, reset, unresolvable. `cause` is fetch's own error. */
export class ServerUnreachableError extends Error {}

/** A JSON answer body longer than `maxMessageBytes`; its request fails with this (the body is dropped). */
export class OversizedBodyError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the server sent a message of ${bytes} bytes, over maxMessageBytes (${limit})`)
  }
}

export interface WireOptions {
  readonly maxMessageBytes: number
  /**
   * Marks the events this wire makes up, so the transport can tell them from the server's: the
   * SDK parses every event, so the marker has to be JSON, and only this process knows its value.
   */
  readonly marker: string
  /** The long-lived GET event stream ended or broke (the server may be gone). */
  readonly onStreamEnd: (reason: Error) => void
  /** A request carrying our session id was answered 400 or 404: the server no longer knows the session. */
  readonly onSessionRefused: (status: number, method: string) => void
  /** Something was dropped or replaced (logged by the owner). */
  readonly onProblem: (error: Error) => void
  /** Whether a request with this id was sent and not answered yet. */
  readonly isPending: (id: RequestId) => boolean
  /** A request was answered 401, with this `WWW-Authenticate` (null: none), so OAuth can tell a login is wanted. */
  readonly onUnauthorized?: (challenge: string | null) => void
}

/** The `data` of an answer the wire made up, as it travels through the SDK. */
export interface MarkedFault {
  readonly dshFault: string
  readonly fault: Fault
}

/**
 * The message side of an HTTP-based transport on `wireFetch`: the marker of the answers its wire
 * makes up, the requests still waiting for an answer, and delivery to the SDK client, where an
 * answer the wire made up becomes a `TransportFault` and every other error answer is the server's.
 */
export class WireInbox {
  readonly marker = randomUUID()
  private readonly pending = new PendingRequests()

  readonly isPending = (id: RequestId): boolean => this.pending.has(id)

  /** Call for every message sent. */
  sent(message: JSONRPCMessage): void {
    this.pending.sent(message)
  }

  /** Hands a message the SDK transport read to `deliver` (the client), in order (see `deliverInOrder`). */
  receive(message: JSONRPCMessage, deliver: ((message: JSONRPCMessage) => void) | undefined): void {
    this.pending.answered(message)
    deliverInOrder(deliver, this.fromWire(message))
  }

  private fromWire(message: JSONRPCMessage): JSONRPCMessage {
    if ('error' in message) {
      const data = message.error.data as Partial<MarkedFault> | undefined
      if (data?.dshFault === this.marker && data.fault) return { ...message, error: { ...message.error, data: new TransportFault(data.fault) } }
    }
    return fromPeer(message)
  }
}

/**
 * The fetch the SDK's Streamable HTTP transport runs on, so that what it reports is typed instead
 * of worded: a request nothing answered rejects with `ServerUnreachableError`; a refused session
 * is reported by status code; every answer is held to `maxMessageBytes` per message (a JSON body as
 * a whole, an event stream per event); an event stream that answers its POST's request with
 * something unusable (a result that is not an object, an event over the cap) has that event
 * replaced by a marked error answer for the request; the GET stream's end is reported.
 */
export function wireFetch(options: WireOptions, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const method = init?.method ?? 'GET'
    let response: Response
    try {
      response = await base(url, init)
    } catch (error) {
      if (init?.signal?.aborted) throw error
      throw new ServerUnreachableError(`the server cannot be reached: ${describeFetchFailure(error)}`, { cause: error })
    }
    if (response.status === 401) options.onUnauthorized?.(response.headers.get('www-authenticate'))
    const hadSession = new Headers(init?.headers).has('mcp-session-id')
    if (hadSession && (response.status === 400 || response.status === 404) && method !== 'DELETE') options.onSessionRefused(response.status, method)
    if (!response.ok || !response.body) return response
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
    if (type === 'text/event-stream') {
      const stream = new EventStreamGuard(options, method === 'POST' ? requestIdOf(init?.body) : undefined, method === 'GET')
      return rebuild(response, stream.guard(response.body, init?.signal ?? undefined))
    }
    if (type === 'application/json') return rebuild(response, capBody(response.body, options.maxMessageBytes))
    return response
  }
}

function rebuild(response: Response, body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause
  const code = (cause as { code?: unknown })?.code
  const text = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error)
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text
}

/** The id of the one request a POST body carries (the SDK posts one message at a time). */
function requestIdOf(body: unknown): RequestId | undefined {
  if (typeof body !== 'string') return undefined
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown }
    return typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined
  } catch {
    return undefined
  }
}

/** A JSON body of at most `limit` bytes; a longer one is read to its end (to name its size) and fails. */
function capBody(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let bytes = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) return controller.close()
      bytes += value.byteLength
      if (bytes <= limit) return controller.enqueue(value)
      for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength
      controller.error(new OversizedBodyError(bytes, limit))
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

const EVENT_END = /\r\n\r\n|\n\n|\r\r/g
/** Characters kept from each end of a skipped event: enough for its `id`. */
const EDGE_CHARS = 256

/**
 * Re-frames one event stream: each event is passed on whole, as it came, unless it is over the cap
 * or it answers a pending request with something unusable. Such an event is replaced by an error
 * answer to that request (the POST's own, or the one the event names), or dropped when it answers
 * none. An answer can come on any stream: the SDK's own server sends one that is not a valid
 * response on the standalone GET stream.
 */
class EventStreamGuard {
  private readonly decoder = new TextDecoder()
  private readonly encoder = new TextEncoder()
  private pending = ''
  /** The event being skipped, while one is: its size so far and its first and last characters. */
  private skipping: { bytes: number; head: string; tail: string } | undefined

  constructor(
    private readonly options: WireOptions,
    private readonly requestId: RequestId | undefined,
    private readonly standalone: boolean,
  ) {}

  guard(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
    const reader = body.getReader()
    const ended = (reason: Error) => {
      if (this.standalone && !signal?.aborted) this.options.onStreamEnd(reason)
    }
    return new ReadableStream<Uint8Array>({
      // Reads until it has a whole event to pass on: a pull that enqueues nothing is not called again.
      pull: async (controller) => {
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>
          try {
            next = await reader.read()
          } catch (error) {
            ended(error instanceof Error ? error : new Error(String(error)))
            throw error
          }
          if (next.done) {
            ended(new Error('the server ended the event stream'))
            return controller.close()
          }
          const out = this.take(this.decoder.decode(next.value, { stream: true }))
          if (out) return controller.enqueue(this.encoder.encode(out))
        }
      },
      cancel: (reason) => reader.cancel(reason),
    })
  }

  /** Adds decoded text; returns the complete events it finished, ready to pass on. */
  private take(text: string): string {
    let out = ''
    // Search only the new text (and the three characters before it, for a boundary split in two).
    let from = Math.max(0, this.pending.length - 3)
    this.pending += text
    for (;;) {
      EVENT_END.lastIndex = from
      const match = EVENT_END.exec(this.pending)
      if (!match) break
      out += this.finish(this.pending.slice(0, match.index))
      this.pending = this.pending.slice(match.index + match[0].length)
      from = 0
    }
    // Characters are never more than bytes: past the cap in characters is past it in bytes.
    if (this.pending.length > this.options.maxMessageBytes) {
      const skipping = (this.skipping ??= { bytes: 0, head: this.pending.slice(0, EDGE_CHARS), tail: '' })
      skipping.bytes += Buffer.byteLength(this.pending)
      skipping.tail = this.pending.slice(-EDGE_CHARS)
      this.pending = ''
    }
    return out
  }

  private finish(event: string): string {
    const skipped = this.skipping
    this.skipping = undefined
    const bytes = (skipped?.bytes ?? 0) + Buffer.byteLength(event)
    if (skipped || bytes > this.options.maxMessageBytes) {
      const head = skipped?.head ?? event.slice(0, EDGE_CHARS)
      const tail = (skipped ? skipped.tail + event : event).slice(-EDGE_CHARS)
      return this.replace(this.requestId ?? idAtEdges(dataStart(head), tail), { kind: 'oversized', bytes, limit: this.options.maxMessageBytes })
    }
    const unusable = this.unusableAnswer(event)
    return unusable ? this.replace(unusable.id, { kind: 'malformed', problem: unusable.problem }) : `${event}\n\n`
  }

  /** The pending request this event answers with something unusable, and what is wrong with it. */
  private unusableAnswer(event: string): { id: RequestId; problem: string } | undefined {
    const data = dataOf(event)
    if (data === undefined) return undefined
    let message: unknown
    try {
      message = JSON.parse(data)
    } catch {
      return undefined
    }
    const id = answerId(message)
    if (id === undefined || !(id === this.requestId || this.options.isPending(id))) return undefined
    const answer = message as object
    if ('result' in answer) {
      const result = (answer as { result: unknown }).result
      return typeof result === 'object' && result !== null && !Array.isArray(result) ? undefined : { id, problem: answerProblem(answer) }
    }
    return 'error' in answer ? undefined : { id, problem: answerProblem(answer) }
  }

  private replace(id: RequestId | undefined, fault: Fault): string {
    const answers = id !== undefined && (id === this.requestId || this.options.isPending(id))
    const what = fault.kind === 'oversized' ? `an event of ${fault.bytes} bytes, over maxMessageBytes (${fault.limit})` : `an answer with ${fault.problem}`
    this.options.onProblem(new Error(`the server sent ${what}; ${answers ? 'its request is answered with this error' : 'it was dropped'}`))
    if (!answers) return ''
    const data: MarkedFault = { dshFault: this.options.marker, fault }
    return `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'unusable answer', data } })}\n\n`
  }
}

/** The event text from its first `data:` value on, where a JSON message's `id` may come first. */
function dataStart(head: string): string {
  const at = head.indexOf('data:')
  return at === -1 ? head : head.slice(at + (head[at + 5] === ' ' ? 6 : 5))
}

/** The data of one event: its `data:` lines joined with newlines (undefined without any). */
function dataOf(event: string): string | undefined {
  let data: string | undefined
  for (const line of event.split(/\r\n|\n|\r/)) {
    if (!line.startsWith('data:')) continue
    const value = line.slice(line[5] === ' ' ? 6 : 5)
    data = data === undefined ? value : `${data}\n${value}`
  }
  return data
}
