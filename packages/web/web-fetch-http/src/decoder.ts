import { StringDecoder } from 'node:string_decoder'
import { TextDecoder } from 'node:util'
import { WebError } from 'dsh-web'

/** What the body reader needs of a decoder: TextDecoder's `decode`, streaming or flushing. */
export interface StreamDecoder {
  /** With `stream: true` an incomplete trailing sequence is held for the next call, and lost if none comes. */
  decode(input?: Uint8Array, options?: { stream?: boolean }): string
}

/** A non-fatal decoder for a label; an unknown label is `WEB_UNSUPPORTED_CONTENT_TYPE`. */
export function decoderFor(label: string): StreamDecoder {
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder(label)
  } catch (error) {
    throw new WebError(`unsupported charset "${label}"`, 'WEB_UNSUPPORTED_CONTENT_TYPE', { cause: error })
  }
  return decoder.encoding === 'utf-8' ? new Utf8Decoder() : decoder
}

/** A decoder for a label the page itself gave, or undefined when it is unknown (a hint must not fail a fetch). */
export function hintedDecoder(label: string): StreamDecoder | undefined {
  try {
    return decoderFor(label)
  } catch {
    return undefined
  }
}

/**
 * UTF-8 with TextDecoder's output (a leading BOM dropped, U+FFFD for invalid bytes) through node's
 * StringDecoder: on Node 20, TextDecoder's streaming mode goes through ICU and decodes mostly-ASCII
 * text several times slower (measured: ~4× on 64 KiB chunks of a page).
 */
class Utf8Decoder implements StreamDecoder {
  private readonly inner = new StringDecoder('utf8')
  private started = false

  decode(input?: Uint8Array, options?: { stream?: boolean }): string {
    let text = input ? this.inner.write(input) : ''
    if (!options?.stream) text += this.inner.end()
    if (!this.started && text) {
      this.started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    return text
  }
}
