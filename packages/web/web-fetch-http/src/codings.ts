import type { Readable } from 'node:stream'
import type { BrotliDecompress, Gunzip, Inflate, InflateRaw } from 'node:zlib'
import { WebError } from 'dsh-web'
import { isZlibHeader, peekFirstChunk } from './deflate.ts'

/** The content codings web_fetch undoes (`Accept-Encoding: gzip, deflate, br`); any other is refused. */
const CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br'])

/**
 * A Content-Encoding's codings in the order they were applied (RFC 9110 §8.4: `gzip, br` is gzip,
 * then brotli), lower-cased, `identity` and empty list members left out. A header sent twice reaches
 * us joined by `, ` (undici's list, as `provider.ts` reads it), which is the same list. More than
 * `max` codings, or one we cannot undo, is refused: each is a decompressor in the pipeline, and a
 * server has no reason to stack more than two (a proxy that gzips an already gzipped body).
 */
export function contentCodings(header: string | undefined, max: number): readonly string[] {
  const codings = (header ?? '').split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '' && coding !== 'identity')
  for (const coding of codings) {
    if (!CODINGS.has(coding)) throw new WebError(`unsupported content encoding "${coding}"`, 'WEB_UNSUPPORTED_CONTENT_TYPE')
  }
  if (codings.length > max) {
    throw new WebError(`the body has ${codings.length} content codings (Content-Encoding: ${codings.join(', ')}); web_fetch undoes at most ${max} (maxContentCodings)`, 'WEB_UNSUPPORTED_CONTENT_TYPE')
  }
  return codings
}

export interface Undone {
  /** The decoded body (the body itself when it has no coding). */
  readonly source: Readable
  /** The body, or one of its decoded layers, had no bytes: it is empty, not compressed data cut short. */
  readonly empty: boolean
}

/**
 * Undoes the codings, the last applied first. Each layer waits for its first bytes: raw or
 * zlib-wrapped deflate is told by them (deflate.ts), and an empty layer (a 200 or an error page
 * with no bytes under `gzip`) is an empty body, not zlib's "unexpected end of file".
 * `stages` gets every decompressor as it is made (outermost first), so a caller can destroy them
 * all, also when this throws.
 */
export async function undoCodings(body: Readable, codings: readonly string[], stages: Readable[]): Promise<Undone> {
  let source = body
  for (let index = codings.length - 1; index >= 0; index--) {
    const first = await peekFirstChunk(source)
    if (first === null) return { source, empty: true }
    const coding = codings[index]!
    source = decoded(source, coding, coding === 'deflate' && !isZlibHeader(first))
    stages.push(source)
  }
  return { source, empty: false }
}

/** The coding whose decompressor raised a zlib error (the error reaches the later layers too). */
const failedCoding = new WeakMap<object, string>()

function decoded(body: Readable, coding: string, rawDeflate: boolean): Readable {
  const inflater = inflaterFor(coding, rawDeflate)
  inflater.on('error', (error) => {
    if (!failedCoding.has(error)) failedCoding.set(error, coding)
  })
  // A body that errors (a cut connection, the deadline's abort) ends the layer once what it already
  // took in is inflated: zlib inflates on the threadpool, and destroying it at once dropped the text of
  // the bytes that had arrived, all of it when none was out yet (a cut page was an error, under load).
  body.on('error', (error) => settleThenDestroy(inflater, error))
  return body.pipe(inflater)
}

function settleThenDestroy(inflater: Inflater, error: Error): void {
  if (inflater.destroyed || inflater.writableEnded) return void inflater.destroy(error)
  // flush() runs after the queued writes; its output is pushed before its callback.
  inflater.flush(() => inflater.destroy(error))
}

type Inflater = Gunzip | Inflate | InflateRaw | BrotliDecompress

function inflaterFor(coding: string, rawDeflate: boolean): Inflater {
  // Loaded with the first compressed body: a process that fetches nothing (`dsh tools`) never needs it.
  const zlib = process.getBuiltinModule('node:zlib')
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip()
    case 'deflate':
      return rawDeflate ? zlib.createInflateRaw() : zlib.createInflate()
    case 'br':
      return zlib.createBrotliDecompress()
    default:
      throw new WebError(`unsupported content encoding "${coding}"`, 'WEB_UNSUPPORTED_CONTENT_TYPE')
  }
}

/** An error of zlib's own (a numeric errno; `Z_…` codes, brotli's `ERR__ERROR_…`), not one the body passed on to it. */
export function isInflateError(error: unknown): error is Error & { code: string } {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown }
  return error instanceof Error && typeof errno === 'number' && typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR'))
}

/**
 * zlib's words ("incorrect header check", "Decompression failed") name no body: said as the body's
 * compressed data that is corrupt, or cut short (Z_BUF_ERROR: it ended before its end), zlib's code
 * kept, naming the layer that failed and the whole Content-Encoding.
 */
export function inflateFailed(error: Error & { code: string }, codings: readonly string[]): WebError {
  const coding = failedCoding.get(error) ?? codings[codings.length - 1]
  const name = coding === 'br' ? 'brotli' : coding === 'deflate' ? 'deflate' : 'gzip'
  const what = error.code === 'Z_BUF_ERROR' ? 'ends before it is complete' : 'is corrupt'
  return new WebError(`web fetch failed: the body's ${name} data (Content-Encoding: ${codings.join(', ')}) ${what}: ${error.message} (${error.code})`, 'WEB_PROVIDER_ERROR', { cause: error })
}
