import { TextDecoder } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decoderFor } from '../src/decoder.ts'

// UTF-8 goes through a faster decoder than TextDecoder's streaming mode; its output must be the same.

/** Decodes `bytes` in pieces cut at `cuts`, streaming, then flushes. */
function inPieces(label: string, bytes: Buffer, cuts: number[]): string {
  const decoder = decoderFor(label)
  let text = ''
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    text += decoder.decode(bytes.subarray(from, cut), { stream: true })
    from = cut
  }
  return text + decoder.decode()
}

describe('the UTF-8 decoder', () => {
  const samples: [string, Buffer][] = [
    ['ASCII', Buffer.from('plain text, the common case\n'.repeat(20))],
    ['multi-byte', Buffer.from('héllo wörld ✓ 日本語 😀 '.repeat(10))],
    ['a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('after the mark \ufeff stays')])],
    ['invalid bytes', Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28, 0xe2, 0x82, 0x61, 0xf0, 0x9f, 0x98, 0xed, 0xa0, 0x80, 0x63, 0xc0, 0xaf, 0xf8, 0x88, 0x80, 0x80, 0x80])],
    ['a truncated sequence at the end', Buffer.from([0x61, 0xe6, 0x97])],
  ]

  it('decodes whole, and split at every byte boundary, exactly as TextDecoder does', () => {
    for (const [name, bytes] of samples) {
      const expected = new TextDecoder('utf-8').decode(bytes)
      expect(inPieces('utf-8', bytes, []), name).toBe(expected)
      for (let cut = 1; cut < Math.min(bytes.length, 64); cut++) expect(inPieces('UTF8', bytes, [cut]), `${name} cut at ${cut}`).toBe(expected)
      expect(inPieces('unicode-1-1-utf-8', bytes, [...Array(bytes.length).keys()].slice(1)), `${name} byte by byte`).toBe(expected)
    }
  })

  it('a stream that stops inside a character (no flush) leaves no U+FFFD behind', () => {
    const decoder = decoderFor('utf-8')
    expect(decoder.decode(Buffer.from([0x61, 0xe6, 0x97]), { stream: true })).toBe('a')
  })

  it('other labels keep TextDecoder; an unknown one is WEB_UNSUPPORTED_CONTENT_TYPE', () => {
    expect(inPieces('latin1', Buffer.from([0x63, 0x61, 0x66, 0xe9]), [2])).toBe('café')
    expect(() => decoderFor('no-such-charset')).toThrow(expect.objectContaining({ code: 'WEB_UNSUPPORTED_CONTENT_TYPE' }))
  })
})
