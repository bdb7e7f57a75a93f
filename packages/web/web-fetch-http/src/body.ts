import type { Readable } from 'node:stream'
import { characterCount, characterEnd, clusterBoundary, fitsWithin } from 'dsh-core'
import { WebError } from 'dsh-web'
import { bomEncoding, hasPdfHeader, isBinary, isBinaryUtf16, metaCharset, readContentType, sniff, type BodyKind } from './content.ts'
import { decoderFor, hintedDecoder, type StreamDecoder } from './decoder.ts'
import { contentCodings, inflateFailed, isInflateError, undoCodings, type Undone } from './codings.ts'
import { Utf8Watch } from './utf8-watch.ts'
import { cdataAsText } from './xhtml.ts'

export interface BodyLimits {
  /** Decoded bytes read at most. */
  readonly maxBytes: number
  /**
   * Characters kept at most of a text body. An HTML body is kept whole up to `maxBytes`: its
   * reader (dsh-tool-web) finds the article in the whole document and caps what it renders; a cut
   * here would leave it the page's `<head>` and scripts.
   */
  readonly maxChars: number
  /** Bytes of a PDF read at most; a larger one is refused (WEB_FETCH_TOO_LARGE): a PDF cannot be read in part. */
  readonly maxPdfBytes: number
  /** Content codings undone at most (`gzip, gzip` is two); a body with more is refused. */
  readonly maxCodings: number
}

export interface DecodedBody {
  readonly kind: 'html' | 'text'
  readonly content: string
  /** True when bytes or characters were dropped. Never splits a character. */
  readonly truncated: boolean
}

/** A PDF's bytes, whole (never truncated). */
export interface PdfBytes {
  readonly kind: 'pdf'
  readonly bytes: Uint8Array
}

/** Bytes looked at before deciding the kind and the charset (BOM, `<meta charset>`, sniffing). */
const HEAD_BYTES = 1024

/**
 * Reads a response body into text: undoes Content-Encoding, decides html/text (sniffing when the
 * type is missing), picks the charset (BOM, header, `<meta>`, else UTF-8), and decodes as it
 * streams. It stops reading at either cap and drops any partial character at the cut.
 * The body is always destroyed when this returns or throws.
 */
export async function readBody(body: Readable, headers: { contentType: string | undefined; contentEncoding: string | undefined; contentLength?: string | undefined }, limits: BodyLimits): Promise<DecodedBody | PdfBytes> {
  const { declared, charset: headerCharset, xhtml } = readContentType(headers.contentType)
  if (declared.kind === 'unsupported') {
    discard(body)
    throw new WebError(`unsupported content type "${declared.type}"`, 'WEB_UNSUPPORTED_CONTENT_TYPE')
  }
  // A PDF that says it is too large is refused before a byte is read (an encoded body's length is not its size).
  const length = Number(headers.contentLength)
  if (declared.kind === 'pdf' && !headers.contentEncoding && length > limits.maxPdfBytes) {
    discard(body)
    throw pdfTooLarge(limits.maxPdfBytes, `its Content-Length is ${length}`)
  }
  let headerDecoder: StreamDecoder | undefined
  let codings: readonly string[]
  // Every decompressor made, destroyed with the body when it is done with.
  const stages: Readable[] = []
  let undone: Undone
  try {
    // An unknown charset or coding is refused before any byte is read.
    if (headerCharset) headerDecoder = decoderFor(headerCharset)
    codings = contentCodings(headers.contentEncoding, limits.maxCodings)
    undone = await undoCodings(body, codings, stages)
  } catch (error) {
    stages.forEach(discard)
    discard(body)
    // A layer found corrupt while waiting for its first bytes (`gzip, gzip` whose inner gzip is not).
    if (stages.length && isInflateError(error)) throw inflateFailed(error, codings!)
    throw error
  }
  const { source, empty } = undone
  const reader = new BodyReader(limits, declared.kind === 'sniff' ? undefined : declared.kind, headers.contentType, headerCharset, headerDecoder)
  try {
    if (!empty) await drain(source, reader)
    const read = reader.finish()
    return xhtml && read.kind === 'html' ? { ...read, content: cdataAsText(read.content) } : read
  } catch (error) {
    if (stages.length && isInflateError(error)) throw inflateFailed(error, codings)
    if (error instanceof WebError) throw error
    // The body stopped before its end (a deadline's abort, a cut connection): the text that had
    // arrived goes with the error, for the provider to return or not (it knows which bound ended it).
    const partial = reader.partial()
    if (!partial) throw error
    throw new IncompleteBody(error, xhtml && partial.kind === 'html' ? { ...partial, content: cdataAsText(partial.content) } : partial, reader.bytesRead)
  } finally {
    stages.forEach(discard)
    discard(body)
  }
}

/** A body that stopped arriving before its end, with the text that had arrived (`cause`: why it stopped). */
export class IncompleteBody extends Error {
  constructor(
    cause: unknown,
    readonly body: DecodedBody,
    /** Bytes of the body read (decoded bytes, for a compressed one). */
    readonly bytes: number,
  ) {
    super('the response body stopped before its end', { cause })
    this.name = 'IncompleteBody'
  }
}

/**
 * One body's decoding: the first bytes are held until the kind and the charset are decided (BOM,
 * `<meta charset>`, sniffing), then every chunk is decoded as it arrives, under both caps.
 */
class BodyReader {
  private readonly text: CappedReader
  private decoder: StreamDecoder | undefined
  /** A PDF's raw bytes, kept whole up to maxPdfBytes. */
  private pdf: { readonly chunks: Buffer[]; length: number } | undefined
  private readonly maxPdfBytes: number
  private head: Buffer[] = []
  private headLength = 0
  /**
   * An unlabelled body read as UTF-8: its bytes so far, kept to be read again as windows-1252 if a
   * later byte is not UTF-8 (`unlabelled`), and the watch that checks them as they come.
   */
  private unlabelled: { readonly watch: Utf8Watch; readonly bytes: Buffer[] } | undefined

  constructor(
    limits: BodyLimits,
    private kind: BodyKind | undefined,
    private readonly contentType: string | undefined,
    private readonly headerCharset: string | undefined,
    private readonly headerDecoder: StreamDecoder | undefined,
  ) {
    this.text = new CappedReader(limits)
    this.maxPdfBytes = limits.maxPdfBytes
  }

  /** Takes one chunk; false once a cap is reached (stop reading). */
  push(chunk: Buffer): boolean {
    if (this.unlabelled) return this.pushUnlabelled(chunk)
    if (this.decoder) return this.text.push(this.decoder, chunk)
    if (this.pdf) return this.pushPdf(chunk)
    this.head.push(chunk)
    this.headLength += chunk.byteLength
    return this.headLength >= HEAD_BYTES ? this.start() : true
  }

  finish(): DecodedBody | PdfBytes {
    if (!this.decoder && !this.pdf) this.start()
    // A body that ends inside a character (not cut by a cap, which drops a partial one) was not UTF-8.
    if (this.unlabelled && !this.text.cut && !this.unlabelled.watch.ended()) this.rereadAsWindows1252()
    if (this.pdf) return { kind: 'pdf', bytes: Buffer.concat(this.pdf.chunks, this.pdf.length) }
    return { kind: this.kind as 'html' | 'text', ...this.text.finish(this.decoder!) }
  }

  /** Bytes taken into the text so far. */
  get bytesRead(): number {
    return this.text.bytesTaken
  }

  /**
   * The text read before the body stopped short; undefined when there is none to give (nothing
   * decoded, a PDF, a body found not to be text). A character the stop cut is dropped, as at a cap.
   */
  partial(): DecodedBody | undefined {
    if (!this.decoder && !this.pdf) {
      if (!this.headLength) return undefined
      try {
        this.start()
      } catch {
        return undefined
      }
    }
    if (this.pdf || !this.decoder) return undefined
    this.text.stop()
    const { content } = this.text.finish(this.decoder)
    return content ? { kind: this.kind as 'html' | 'text', content, truncated: true } : undefined
  }

  private pushUnlabelled(chunk: Buffer): boolean {
    const { watch, bytes } = this.unlabelled!
    bytes.push(chunk)
    if (watch.push(chunk)) return this.text.push(this.decoder!, chunk)
    return this.rereadAsWindows1252()
  }

  /**
   * An unlabelled body read as UTF-8 turned out not to be: all of it is read again as windows-1252
   * (what the first bytes would have chosen, had they shown it) and the rest of it streams so.
   */
  private rereadAsWindows1252(): boolean {
    const { bytes } = this.unlabelled!
    this.unlabelled = undefined
    this.decoder = decoderFor('windows-1252')
    this.text.reset()
    for (const chunk of bytes) if (!this.text.push(this.decoder, chunk)) return false
    return true
  }

  private pushPdf(chunk: Buffer): boolean {
    const pdf = this.pdf!
    pdf.length += chunk.byteLength
    if (pdf.length > this.maxPdfBytes) throw pdfTooLarge(this.maxPdfBytes, 'its bytes went past it')
    pdf.chunks.push(chunk)
    return true
  }

  private start(): boolean {
    const head = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head)
    this.head = []
    const declared = this.kind !== undefined
    this.kind ??= sniff(head)
    // Served as a PDF but none: an HTML error or login page under the PDF's type reads as what it is
    // (pdf.js said only "Invalid PDF structure"); binary without the header stays a PDF for the reader to refuse.
    if (declared && this.kind === 'pdf' && !hasPdfHeader(head)) this.kind = sniff(head) ?? 'pdf'
    if (!this.kind) throw notText(this.contentType)
    if (this.kind === 'pdf') {
      this.pdf = { chunks: [], length: 0 }
      return this.pushPdf(head)
    }
    if (this.kind === 'html') this.text.uncapChars()
    this.decoder = labelledDecoder(head, this.kind, this.headerCharset, this.headerDecoder)
    if (!this.decoder) {
      // Unlabelled: UTF-8 while its bytes are (all of them, not only these first ones), else windows-1252.
      const watch = new Utf8Watch()
      const utf8 = watch.push(head)
      this.decoder = decoderFor(utf8 ? 'utf-8' : 'windows-1252')
      if (utf8) this.unlabelled = { watch, bytes: [head] }
    }
    // Declared text or HTML whose first bytes are binary (an image or an archive served as
    // text/html): decoded, it was a page of mojibake for the model. A few control bytes (a BEL in a
    // log) do not make it binary (content.ts). UTF-16 text has NUL bytes of its own. Read as
    // windows-1252, a sniffed body is judged again, with that charset's own signs (short random
    // bytes); so is one labelled UTF-8 whose first bytes are not: it is text only as a Latin-1 text
    // its server mislabelled (read as UTF-8, its accents U+FFFD), and 16 random bytes labelled
    // `charset=utf-8` passed as text about half the time.
    const windows1252 = encodingOf(this.decoder) === 'windows-1252'
    const latin1 = windows1252 || (!this.unlabelled && encodingOf(this.decoder) === undefined && !new Utf8Watch().push(head))
    const utf16 = isUtf16(this.decoder) ? encodingOf(this.decoder) : undefined
    if (declared ? (utf16 ? isBinaryUtf16(head, utf16) : isBinary(head, latin1)) : latin1 && isBinary(head, true)) {
      throw declared ? new WebError(`the body is not text, though its Content-Type says "${this.contentType?.trim()}" (binary bytes in its first 1024)`, 'WEB_UNSUPPORTED_CONTENT_TYPE') : notText(this.contentType)
    }
    return this.text.push(this.decoder, head)
  }
}

/** A body without a usable type that is not text. */
function notText(contentType: string | undefined): WebError {
  return new WebError(`unsupported content type "${contentType?.trim() || 'unknown'}": the body is not text`, 'WEB_UNSUPPORTED_CONTENT_TYPE')
}

function isUtf16(decoder: StreamDecoder): boolean {
  return encodingOf(decoder)?.startsWith('utf-16') === true
}

/** A TextDecoder's encoding; undefined for our UTF-8 decoder. */
function encodingOf(decoder: StreamDecoder): string | undefined {
  return 'encoding' in decoder && typeof decoder.encoding === 'string' ? decoder.encoding : undefined
}

function pdfTooLarge(maxBytes: number, why: string): WebError {
  return new WebError(`the PDF is larger than ${maxBytes} bytes (maxPdfBytes; ${why}); a PDF cannot be read in part, so it is not read`, 'WEB_FETCH_TOO_LARGE')
}

/**
 * Stops a stream we no longer read. A body read to its end is left alone, so its connection goes
 * back to the pool; destroying undici's body mid-way emits an abort error nobody needs.
 */
export function discard(stream: Readable): void {
  if (stream.readableEnded || stream.destroyed) return
  stream.on('error', () => {})
  stream.destroy()
}

/**
 * Feeds every chunk to `reader` until it says stop or the stream ends. Plain listeners rather than
 * async iteration (a promise per chunk) or `finished()` (a dozen listeners per body): this runs for
 * every fetch, and on a small page its cost shows next to the request itself. The promise settles
 * once; later events (a close after the end, an error on a body we stopped reading) change nothing.
 */
function drain(source: Readable, reader: BodyReader): Promise<void> {
  return new Promise((resolve, reject) => {
    if (source.destroyed) return reject(source.errored ?? new Error('the response body closed before it was read'))
    source.on('data', (chunk: Buffer) => {
      try {
        if (reader.push(chunk)) return
      } catch (error) {
        source.pause()
        return reject(error)
      }
      // A cap is reached: no more chunks (the caller destroys the stream).
      source.pause()
      resolve()
    })
    source.on('end', resolve)
    source.on('error', reject)
    // Closed without an end: destroyed under us (an abort, the deadline) or a cut connection. After
    // an end there is nothing to do (and an Error, with its stack, is not cheap to make for nothing).
    source.on('close', () => {
      if (!source.readableEnded) reject(new Error('the response body closed before its end'))
    })
  })
}

/** Accumulates decoded text under both caps. */
class CappedReader {
  private readonly parts: string[] = []
  private bytes = 0
  private chars = 0
  private dropped = false
  private readonly maxBytes: number
  private maxChars: number

  constructor(limits: BodyLimits) {
    this.maxBytes = limits.maxBytes
    this.maxChars = limits.maxChars
  }

  /** True once a cap dropped bytes or characters. */
  get cut(): boolean {
    return this.dropped
  }

  get bytesTaken(): number {
    return this.bytes
  }

  /** The body stopped short: what was read is all there is, without the character it cut. */
  stop(): void {
    this.dropped = true
  }

  /** Only the byte cap applies (an HTML body). */
  uncapChars(): void {
    this.maxChars = Number.POSITIVE_INFINITY
  }

  /** Starts again from nothing (the body is read again with another decoder). */
  reset(): void {
    this.parts.length = 0
    this.bytes = 0
    this.chars = 0
    this.dropped = false
  }

  /** Decodes a chunk; false once a cap is reached (stop reading). */
  push(decoder: StreamDecoder, chunk: Buffer): boolean {
    const room = this.maxBytes - this.bytes
    // A body exactly at the cap is whole; one more byte is truncation.
    const fits = chunk.byteLength <= room ? chunk : chunk.subarray(0, room)
    this.bytes += fits.byteLength
    // stream: true keeps an incomplete trailing sequence inside the decoder; it is never flushed
    // when we stop early, so a cut never leaves a broken character behind.
    const text = decoder.decode(fits, { stream: true })
    this.parts.push(text)
    // Characters (code points), as maxBodyChars says: counted in UTF-16 units, a text of emoji
    // stopped at half of it.
    this.chars += characterCount(text)
    if (fits !== chunk) this.dropped = true
    if (this.chars > this.maxChars) this.dropped = true
    return !this.dropped
  }

  finish(decoder: StreamDecoder): { content: string; truncated: boolean } {
    if (!this.dropped) this.parts.push(decoder.decode())
    const text = this.parts.join('')
    if (fitsWithin(text, this.maxChars)) return { content: text, truncated: this.dropped }
    // Between two characters a reader sees (dsh-core's counting): the cut parted a letter from its accent.
    return { content: text.slice(0, clusterBoundary(text, characterEnd(text, this.maxChars))), truncated: true }
  }
}

/**
 * The decoder a label names, WHATWG's order: a BOM beats the header, the header beats the page's
 * own `<meta>`. Undefined for a body none labels: it is UTF-8 while its bytes are, else
 * windows-1252, the default browsers fall back to in most locales (WHATWG Encoding's legacy
 * default; Firefox reads an unlabelled body that is not UTF-8 so), judged on the whole body
 * (`Utf8Watch`), not its first bytes.
 */
function labelledDecoder(head: Buffer, kind: BodyKind, headerCharset: string | undefined, headerDecoder: StreamDecoder | undefined): StreamDecoder | undefined {
  const bom = bomEncoding(head)
  if (bom) return decoderFor(bom)
  if (headerDecoder) return headerDecoder
  const meta = kind === 'html' && !headerCharset ? metaCharset(head) : undefined
  // A <meta> is a hint from the page: one we cannot decode falls back as if there were none.
  return (meta && hintedDecoder(meta)) || undefined
}
