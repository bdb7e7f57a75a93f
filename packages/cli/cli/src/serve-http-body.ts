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
 * Reads a POST body once, stopping at `maxBytes` (a declared length past it is not read at all).
 *
 * Why not let the SDK's Node adapter read it: the adapter turns the body into a web `Request`
 * stream, and routing (era, session, stream or call) then needs a clone of that stream parsed a
 * second time: about 0.1 ms of a 2026-07-28 call's hop. With the parsed value handed to the adapter,
 * the SDK classifies and dispatches from the value.
 */
export async function receiveBody(request: IncomingMessage, maxBytes: number): Promise<ReceivedBody> {
  const { chunks, received } = Number(request.headers['content-length']) > maxBytes ? { chunks: [], received: 0 } : await readUpTo(request, maxBytes)
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
 * The body's chunks until its end, or until more than `maxBytes` arrived. The rest is then discarded
 * as it arrives, as node does with a body nobody reads (bounded by the server's request timeout):
 * a client still sending reads the 413 instead of a connection reset under its writes. Events rather
 * than `for await`: a stream's async iterator costs more than the rest of this read for a body of
 * one chunk.
 */
function readUpTo(request: IncomingMessage, maxBytes: number): Promise<{ chunks: Buffer[]; received: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    const settle = (error?: Error) => {
      request.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', settle)
      if (error) reject(error)
      else resolve({ chunks, received })
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      received += chunk.byteLength
      if (received > maxBytes) {
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
