import { AsyncLocalStorage } from 'node:async_hooks'
import { extractWWWAuthenticateParams, type FetchLike, type RequestId } from '@modelcontextprotocol/client'
import { fetchResendingOnce } from './resend.ts'
import { maskedUrl, maskedUrlsIn } from './url-secrets.ts'

/** Nothing answered at the HTTP level: refused, reset, unresolvable. `cause` is fetch's own error. */
export class ServerUnreachableError extends Error {}

/**
 * An answer over `maxMessageBytes`: a JSON body (refused by its declared length before a byte is
 * read, else at the first chunk past the cap) or one event of a stream. `bytes` is the declared
 * length, or undefined when only "more than the cap" is known.
 */
export class OversizedBodyError extends Error {
  constructor(
    readonly limit: number,
    readonly bytes: number | undefined,
  ) {
    super(`the server sent ${bytes === undefined ? `a message of more than ${limit} bytes` : `a message of ${bytes} bytes`}, over maxMessageBytes (${limit})`)
  }
}

/** The message a transport is sending: a request's id, and the method of a request or notification. */
export interface SendingMessage {
  readonly id: RequestId | undefined
  readonly method: string | undefined
}

/**
 * The message a transport is sending. The POST's fetch and the SDK's reading of the answer stream
 * run inside it, so what the SDK reports about that stream (`onerror`) names its request, and the
 * fetch knows whether the request may be sent again, without our parsing anything the SDK already
 * parsed.
 */
export const sendingMessage = new AsyncLocalStorage<SendingMessage>()

export interface WireOptions {
  readonly maxMessageBytes: number
  /** The long-lived GET event stream ended or broke (the server may be gone). */
  readonly onStreamEnd: (reason: Error) => void
  /** A request carrying our session id was answered 400 or 404: the server no longer knows the session. */
  readonly onSessionRefused: (status: number, method: string) => void
  /** An event over the cap was cut off, with the stream; `request` is the POST's request (undefined on the GET stream). */
  readonly onOversizedEvent: (request: RequestId | undefined, error: OversizedBodyError) => void
  /**
   * A POST was answered with an event stream: what the SDK cannot parse on it belongs to this
   * request, and `stop` ends it (the connection to the server is closed; the SDK reads its end).
   */
  readonly onEventStream: (request: RequestId, stop: () => void) => void
  /**
   * Nothing answered a request (the error it rejects with): seen here too, because a caller may
   * flatten it into words of its own (the SDK's EventSource does, for the SSE stream's GET).
   */
  readonly onUnreachable?: (error: ServerUnreachableError) => void
  /**
   * A request was answered 401, with this `WWW-Authenticate` (null: none), so OAuth can tell a
   * login is wanted. `sent` is the request's `Authorization` (null: none); `again` says the request
   * was already sent once more with what an earlier call returned. The hook may return another
   * `Authorization` (a refreshed token) to send the request once more with, or throw (the request
   * then fails with that); undefined leaves the 401 to the SDK.
   */
  readonly onUnauthorized?: (challenge: string | null, sent: string | null, again: boolean) => string | undefined | Promise<string | undefined>
  /**
   * A request was answered 403 `insufficient_scope` (RFC 6750 §3.1) asking for `scope`: as
   * `onUnauthorized`, the hook may return another `Authorization` (a token refreshed for a scope the
   * login holds) to send the request once more with, or throw; undefined leaves the 403 to the SDK.
   */
  readonly onInsufficientScope?: (scope: string | undefined, sent: string | null, again: boolean) => string | undefined | Promise<string | undefined>
}

/** The hook that answers `response`'s refusal (a 401, or a 403 insufficient_scope), with the credential the request was sent with. */
function refusalHook(response: Response, options: WireOptions): ((sent: string | null, again: boolean) => string | undefined | Promise<string | undefined>) | undefined {
  if (response.status === 401 && options.onUnauthorized) {
    const challenge = response.headers.get('www-authenticate')
    return (sent, again) => options.onUnauthorized!(challenge, sent, again)
  }
  if (response.status !== 403 || !options.onInsufficientScope) return undefined
  const { error, scope } = extractWWWAuthenticateParams(response)
  return error === 'insufficient_scope' ? (sent, again) => options.onInsufficientScope!(scope, sent, again) : undefined
}

/**
 * The fetch the SDK's HTTP transports run on, so that what they report is typed instead of worded:
 * a request nothing answered rejects with `ServerUnreachableError` (a repeatable request lost on a
 * connection the server closed as it was reused is first sent once more, resend.ts); a refused session is reported
 * by status code; a JSON answer is held to `maxMessageBytes` at the Response (its declared length,
 * else the bytes as they arrive, never read past the cap); an event stream is passed through as it
 * is, counting only the bytes of its current event (found with native byte searches), and cut off
 * when one event passes the cap; the GET stream's end is reported.
 */
export function wireFetch(options: WireOptions, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const method = init?.method ?? 'GET'
    const send = async (init: RequestInit | undefined): Promise<Response> => {
      try {
        return await fetchResendingOnce(base, url, init, sendingMessage.getStore()?.method)
      } catch (error) {
        if (init?.signal?.aborted) throw error
        const unreachable = new ServerUnreachableError(`the server at ${maskedUrl(String(url))} cannot be reached (${describeFetchFailure(error)})`, { cause: error })
        options.onUnreachable?.(unreachable)
        throw unreachable
      }
    }
    let response = await send(init)
    const refused = refusalHook(response, options)
    if (refused) {
      const replacement = await refused(new Headers(init?.headers).get('authorization'), false)
      if (replacement !== undefined) {
        // The refused answer is not read; the request goes once more with the new credential
        // (its body is a string: the SDK's POSTs, or none for a GET).
        void response.body?.cancel().catch(() => {})
        const headers = new Headers(init?.headers)
        headers.set('authorization', replacement)
        response = await send({ ...init, headers })
        await refusalHook(response, options)?.(replacement, true)
      }
    }
    const hadSession = new Headers(init?.headers).has('mcp-session-id')
    if (hadSession && (response.status === 400 || response.status === 404) && method !== 'DELETE') options.onSessionRefused(response.status, method)
    if (!response.ok || !response.body) return response
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
    const limit = options.maxMessageBytes
    if (type === 'text/event-stream') {
      const request = method === 'POST' ? sendingMessage.getStore()?.id : undefined
      const standalone = method === 'GET'
      const ended = (reason: Error) => {
        if (standalone && !init?.signal?.aborted) options.onStreamEnd(reason)
      }
      const events = capEvents(response.body, limit, (error) => options.onOversizedEvent(request, error), ended)
      if (request !== undefined) options.onEventStream(request, events.stop)
      return rebuild(response, events.body)
    }
    if (type === 'application/json') {
      const declared = Number(response.headers.get('content-length') ?? NaN)
      if (declared > limit) {
        void response.body.cancel().catch(() => {})
        throw new OversizedBodyError(limit, declared)
      }
      return rebuild(response, capBytes(response.body, limit))
    }
    return response
  }
}

function rebuild(response: Response, body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** Why fetch failed, with any URL in it masked (fetch repeats a URL with credentials in its refusal). */
function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause
  const code = (cause as { code?: unknown })?.code
  const text = maskedUrlsIn(cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error))
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text
}

/** A body of at most `limit` bytes: the chunk that passes it fails the body and the rest is never read. */
function capBytes(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let bytes = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength
        if (bytes > limit) controller.error(new OversizedBodyError(limit, undefined))
        else controller.enqueue(chunk)
      },
    }),
  )
}

/** Event boundaries of an event stream (a blank line, in any of its three line endings). */
const BOUNDARIES = [Buffer.from('\n\n'), Buffer.from('\r\r'), Buffer.from('\r\n\r\n')]

/**
 * Passes an event stream through unchanged while no event is longer than `limit` bytes. Only the
 * bytes since the last blank line are counted; when they pass the cap, `oversized` is told and the
 * stream fails (what the SDK had buffered of the event is dropped with it). `ended` hears how the
 * stream ended, either way.
 */
function capEvents(body: ReadableStream<Uint8Array>, limit: number, oversized: (error: OversizedBodyError) => void, ended: (reason: Error) => void): { readonly body: ReadableStream<Uint8Array>; readonly stop: () => void } {
  const reader = body.getReader()
  let eventBytes = 0
  // The last bytes of the previous chunk: a boundary may be split across two chunks.
  let carry: Buffer = Buffer.alloc(0)
  let stopped = false
  const passed = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stopped) return controller.close()
      let next: Awaited<ReturnType<typeof reader.read>>
      try {
        next = await reader.read()
      } catch (error) {
        if (stopped) return controller.close()
        ended(error instanceof Error ? error : new Error(String(error)))
        throw error
      }
      if (next.done || stopped) {
        ended(new Error('the server ended the event stream'))
        return controller.close()
      }
      const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength)
      const joined = carry.length ? Buffer.concat([carry, chunk]) : chunk
      const lastEnd = Math.max(...BOUNDARIES.map((boundary) => {
        const at = joined.lastIndexOf(boundary)
        return at === -1 ? -1 : at + boundary.length
      }))
      eventBytes = lastEnd === -1 ? eventBytes + chunk.length : joined.length - lastEnd
      carry = joined.subarray(Math.max(0, joined.length - 3))
      if (eventBytes > limit) {
        const error = new OversizedBodyError(limit, undefined)
        void reader.cancel(error).catch(() => {})
        oversized(error)
        ended(error)
        return controller.error(error)
      }
      controller.enqueue(next.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
  // Cancelling the body closes the connection, which a 2026-07-28 server takes as the request's cancellation.
  const stop = () => {
    stopped = true
    void reader.cancel().catch(() => {})
  }
  return { body: passed, stop }
}
