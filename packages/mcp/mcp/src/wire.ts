import type { JSONRPCMessage, RequestId, TransportSendOptions } from '@modelcontextprotocol/client'
import { assertNever } from 'dsh-core'

/**
 * Where an error answer came from, told by type rather than by code or text: the SDK builds its own
 * "connection closed" (-32000) and "request timed out" (-32001) errors with the same codes a server
 * may send. Every error answer read from the wire gets a `ServerErrorData` as its `data`, and every
 * answer a transport makes up for a request the server answered unusably gets a `TransportFault`;
 * the SDK passes `data` through to the `McpError` it rejects the request with.
 */
export class ServerErrorData {
  /**
   * The fields of the server's own `data` object, as it sent them: the SDK reads some where they
   * decide what it does (the revisions a -32022 names, which make the version probe ask again).
   */
  readonly [field: string]: unknown

  constructor(
    readonly rpcCode: number,
    readonly rpcMessage: string,
    /** The `data` the server sent, as it sent it. */
    readonly sent: unknown,
  ) {
    if (isPlainObject(sent)) for (const [field, value] of Object.entries(sent)) if (!(field in this)) Object.defineProperty(this, field, { value, enumerable: true })
  }
}

/** Why a transport answered a request itself. */
export type Fault =
  /** `bytes`: undefined when only "more than `limit`" is known (the rest was never read). */
  | { readonly kind: 'oversized'; readonly bytes: number | undefined; readonly limit: number }
  | { readonly kind: 'malformed'; readonly problem: string }

export class TransportFault {
  constructor(readonly fault: Fault) {}

  describe(): string {
    const fault = this.fault
    switch (fault.kind) {
      case 'oversized':
        return `sent a message of ${fault.bytes === undefined ? `more than ${fault.limit}` : fault.bytes} bytes, over maxMessageBytes (${fault.limit})`
      case 'malformed':
        return `answered with ${fault.problem}`
      default:
        return assertNever(fault, 'wire fault')
    }
  }
}

/** Marks an error answer read from the wire as the server's own (see `ServerErrorData`). */
export function fromPeer(message: JSONRPCMessage): JSONRPCMessage {
  // A result without `resultType` counts as complete (MCP 2026-07-28; an older server never sends one).
  if ('result' in message && isPlainObject(message.result) && !('resultType' in message.result)) return { ...message, result: { ...message.result, resultType: 'complete' } }
  if (!('error' in message) || typeof message.error !== 'object' || message.error === null) return message
  const { code, message: text, data } = message.error
  return { ...message, error: { code, message: text, data: new ServerErrorData(code, text, data) } }
}

/** The answer a transport delivers for request `id` instead of one it could not use. */
export function faultAnswer(id: RequestId, fault: Fault): JSONRPCMessage {
  const data = new TransportFault(fault)
  // -32603 (internal error) only satisfies the message schema; callers read `data`.
  return { jsonrpc: '2.0', id, error: { code: -32603, message: data.describe(), data } }
}

/**
 * Requests sent and not yet answered, so a transport can tell which request an unusable answer
 * belonged to. A request the SDK gives up on (`notifications/cancelled`) is forgotten too.
 */
export class PendingRequests {
  private readonly ids = new Set<RequestId>()
  /** The latest request sent with each `headers` object (see `latestWaiting`). */
  private readonly byHeaders = new WeakMap<object, RequestId>()

  sent(message: JSONRPCMessage, options?: TransportSendOptions): void {
    if ('method' in message && 'id' in message) {
      this.ids.add(message.id)
      if (options?.headers) this.byHeaders.set(options.headers, message.id)
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId
      if (id !== undefined) this.ids.delete(id)
    }
  }

  answered(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.ids.delete(message.id)
  }

  /** A request that will get no answer (its send failed, or its stream was ended): no longer waiting. */
  forget(id: RequestId): void {
    this.ids.delete(id)
  }

  has(id: RequestId): boolean {
    return this.ids.has(id)
  }

  /**
   * Why an answer read from the wire answers none of our requests, or undefined when it answers one.
   * Matched by the id as sent, type and value (JSON-RPC 2.0: the same id): the SDK matches by
   * `Number(id)`, so a string "5" settled request 5 with whatever it held. A stray answer is not
   * handed to the SDK; its owner logs the reason (one bounded line, as the SDK's own stray message).
   */
  stray(message: JSONRPCMessage): Error | undefined {
    if ('method' in message || !('id' in message)) return undefined
    const id: unknown = message.id
    if ((typeof id === 'string' || typeof id === 'number') && this.ids.has(id)) return undefined
    const twin = typeof id === 'string' ? Number(id) : typeof id === 'number' ? String(id) : undefined
    const why = twin !== undefined && this.ids.has(twin) ? `; request ${JSON.stringify(twin)} waits, and an id matches only in type and value` : ''
    return new Error(`the server answered id ${JSON.stringify(id)}, which no request of ours waits for${why}: the answer was dropped: ${JSON.stringify(message).slice(0, 2000)}`)
  }

  /**
   * The latest request the SDK handed over with this very `headers` object, if it still waits for
   * an answer. The SDK does not tell a caller its request's id, and a 2026-07-28 multi-round call
   * is several requests (each `input_required` round is retried on a fresh id), but it hands every
   * round the caller's `headers` object as it is (buildRetryLegRequestOptions, client 2.4.0): a
   * call that passes an object of its own finds the request it has in flight here (call.ts).
   */
  latestWaiting(headers: object): RequestId | undefined {
    const id = this.byHeaders.get(headers)
    return id !== undefined && this.ids.has(id) ? id : undefined
  }

  /** The one pending request, when exactly one is. */
  only(): RequestId | undefined {
    if (this.ids.size !== 1) return undefined
    const [id] = this.ids
    return id
  }
}

/** The id of something that looks like an answer (an `id` and no `method`), if it has a usable one. */
export function answerId(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || 'method' in value) return undefined
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : undefined
}

/** What is wrong with an answer the message schema refused, in words: "a result that is not an object (string)". */
export function answerProblem(value: object): string {
  if ('result' in value) {
    const result = (value as { result: unknown }).result
    if (typeof result !== 'object' || result === null || Array.isArray(result)) return `a result that is not an object (${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result})`
    return 'a result the MCP message schema refuses'
  }
  if ('error' in value) return 'an error that is not a JSON-RPC error object'
  return 'an answer with neither a result nor an error'
}

/**
 * Hands `message` to the SDK client so that it sees it after every notification read before it.
 * The client runs a notification's handler one microtask after receiving it but settles a request
 * at once, dropping the request's progress listener: without this, the progress a server sends
 * right before its answer (the last step) would arrive to no one.
 */
export function deliverInOrder(deliver: ((message: JSONRPCMessage) => void) | undefined, message: JSONRPCMessage): void {
  if (!deliver) return
  if ('method' in message) deliver(message)
  else queueMicrotask(() => deliver(message))
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
