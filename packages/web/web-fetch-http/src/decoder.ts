import { StringDecoder } from 'node:string_decoder'
import { WebError } from 'dsh-web'

/** What the body reader needs of a decoder: TextDecoder's `decode`, streaming or flushing. */
export interface StreamDecoder {
  /** With `stream: true` an incomplete trailing sequence is held for the next call, and lost if none comes. */
  decode(input?: Uint8Array, options?: { stream?: boolean }): string
}

/**
 * Labels already resolved to their encoding, a few dozen at most (servers send the labels): a
 * label is resolved by making a TextDecoder, which a UTF-8 body (most of them) never uses.
 */
const encodings = new Map<string, string>()
const MAX_KNOWN_LABELS = 64

/** A non-fatal decoder for a label; an unknown label is `WEB_UNSUPPORTED_CONTENT_TYPE`. */
export function decoderFor(label: string): StreamDecoder {
  const known = encodings.get(label)
  if (known === 'utf-8') return new Utf8Decoder()
  let decoder: InstanceType<typeof TextDecoder>
  try {
    decoder = new TextDecoder(known ?? label)
  } catch (error) {
    throw new WebError(`unsupported charset "${label}"`, 'WEB_UNSUPPORTED_CONTENT_TYPE', { cause: error })
  }
  if (known === undefined && encodings.size < MAX_KNOWN_LABELS) encodings.set(label, decoder.encoding)
  return decoder.encoding === 'utf-8' ? new Utf8Decoder() : decoder
}

/**
 * A decoder for a `<meta>` label the page itself gave, or undefined when it is unknown (a hint
 * must not fail a fetch). WHATWG's prescan reads a UTF-16 label as UTF-8 (bytes that an ASCII scan
 * could read are not UTF-16) and x-user-defined as windows-1252.
 */
export function hintedDecoder(label: string): StreamDecoder | undefined {
  // Node's TextDecoder does not know x-user-defined.
  if (label.trim().toLowerCase() === 'x-user-defined') return decoderFor('windows-1252')
  let encoding: string
  try {
    encoding = new TextDecoder(label).encoding
  } catch {
    return undefined
  }
  return decoderFor(encoding === 'utf-16le' || encoding === 'utf-16be' ? 'utf-8' : encoding)
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
