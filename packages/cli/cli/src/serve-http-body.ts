import type { IncomingMessage } from 'node:http'
import type { NodeIncomingMessageLike } from '@modelcontextprotocol/node'

/** A POST body as `dsh serve --http` received it: parsed once, or handed on for the SDK to answer. */
export type ReceivedBody =
  /** Valid JSON within the cap: every later step reads this value, and nothing parses the bytes again. */
  | { readonly kind: 'parsed'; readonly value: unknown }
  /**
   * Not JSON, empty, or over the cap: the bytes read so far, replayed to the SDK's adapter so that it
   * answers as it would have (its parse error, its 413), with no answer of ours to keep in step.
   */
  | { readonly kind: 'replay'; readonly request: NodeIncomingMessageLike }

/**
 * How much past `maxBytes` a body is still read (and dropped) to its end before the 413 goes out,
 * as a multiple of the cap. The SDK closes the connection with its 413; a body still arriving then
 * meets a closed socket, the kernel resets the connection, and the client reports a broken pipe
 * instead of the answer. A body this far over is read out so the client finishes sending and reads
 * the 413; a body farther over is answered at once, since reading it costs more than the reset.
 */
const DRAINED_PAST_CAP = 8

/**
 * Reads a POST body once, stopping at `maxBytes`: past it, the body is dropped as it arrives until
 * its end (up to `DRAINED_PAST_CAP` caps more, and within node's request timeout), and a declared
 * length beyond that is not read at all.
 *
 * Why not let the SDK's Node adapter read it: the adapter turns the body into a web `Request`
 * stream, and routing (era, session, stream or call) then needs a clone of that stream parsed a
 * second time: about 0.1 ms of a 2026-07-28 call's hop. With the parsed value handed to the adapter,
 * the SDK classifies and dispatches from the value.
 */
export async function receiveBody(request: IncomingMessage, maxBytes: number): Promise<ReceivedBody> {
  const declared = Number(request.headers['content-length'])
  const drainBytes = maxBytes * DRAINED_PAST_CAP
  if (declared > maxBytes + drainBytes) return { kind: 'replay', request: replaying(request, []) }
  const { chunks, received } = await readUpTo(request, maxBytes, drainBytes)
  if (received > 0 && received <= maxBytes) {
    try {
      return { kind: 'parsed', value: JSON.parse(Buffer.concat(chunks, received).toString('utf8')) }
    } catch {
      // Not JSON: the SDK answers it (a parse error in the era the request belongs to).
    }
  }
  return { kind: 'replay', request: replaying(request, chunks) }
}

/**
 * The body's chunks until its end, or until more than `keepBytes` arrived; after that, chunks are
 * counted and dropped until the end or until `drainBytes` more arrived, and then, should the body go
 * on, dropped by node as a body nobody reads. Events rather than `for await`: a stream's async
 * iterator costs more than the rest of this read for a body of one chunk.
 */
function readUpTo(request: IncomingMessage, keepBytes: number, drainBytes: number): Promise<{ chunks: Buffer[]; received: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    let dropped = 0
    const settle = (error?: Error) => {
      request.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', settle)
      if (error) reject(error)
      else resolve({ chunks, received })
    }
    const onData = (chunk: Buffer) => {
      if (received <= keepBytes) {
        chunks.push(chunk)
        received += chunk.byteLength
      } else dropped += chunk.byteLength
      if (dropped > drainBytes) {
        settle()
        request.resume()
      }
    }
    const onEnd = () => settle()
    request.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', settle)
  })
}

/** `request` with its body replaced by the chunks already read from it. */
function replaying(request: IncomingMessage, chunks: readonly Buffer[]): NodeIncomingMessageLike {
  return {
    ...(request.method === undefined ? {} : { method: request.method }),
    ...(request.url === undefined ? {} : { url: request.url }),
    headers: request.headers,
    async *[Symbol.asyncIterator]() {
      yield* chunks
    },
  }
}
