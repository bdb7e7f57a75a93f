// The text a reader sees (readable-text.ts), on inputs a hostile page or MCP server can hold in any number.
import { describe, expect, it } from 'vitest'
import { MAX_CONTROL_STRING_CHARS, readableText } from '../src/readable-text.ts'

describe('readableText', () => {
  // Each case is read in milliseconds; a pattern that looks from every unterminated introducer to
  // the end of the text took ~10 s for 40,000 of them and grows with their square (this case's
  // 200,000 would take minutes, on the host's main thread). The time limit only ends such a run.
  it.each([
    ['8-bit OSC (0x9D, a windows-1252 byte)', '\u009dA'],
    ['8-bit DCS', '\u0090A'],
    ['8-bit SOS, PM and APC', '\u0098A\u009eA\u009fA'],
    ['7-bit OSC', '\u001b]A'],
    ['8-bit CSI without a final byte', '\u009b0;'],
    ['8-bit CSI of a mode without its h or l', '\u009b?1;'],
    ['7-bit OSC with a body just within the bound', `\u001b]${'x'.repeat(MAX_CONTROL_STRING_CHARS - 1)}`],
  ])('many unterminated introducers (%s) are read once, not once each', (_name, unit) => {
    const text = unit.repeat(Math.ceil(400_000 / unit.length))
    const readable = readableText(text)
    expect(readable).not.toMatch(/[\u001b\u0090-\u009f]/)
    expect(readable.length).toBeGreaterThan(0)
  }, 60_000)

  it('bidi controls go, the text they reordered stays in its logical order; 400 KB of them read at once', () => {
    expect(readableText('a \u202eevil\u202c b \u2066x\u2069 \u200f\u061c')).toBe('a evil b x ')
    expect(readableText('\u202e'.repeat(400_000))).toBe('')
  })

  it('a terminated control string still goes whole, an unterminated one keeps its text', () => {
    expect(readableText('a\u001b]0;title\u0007b \u001b]8;;https://x.test/\u001b\\link\u001b]8;;\u001b\\ c\u001b]no end')).toBe('ab link cno end')
  })

  it('C1 controls of text decoded twice (a “quote” in UTF-8 read as Latin-1) go alone, taking no text with them', () => {
    // “ is E2 80 9C, ” E2 80 9D: read as Latin-1, U+009D would open an 8-bit OSC and U+009C end it.
    expect(readableText('\u00e2\u0080\u009cone\u00e2\u0080\u009d and two \u00e2\u0080\u009cthree\u00e2\u0080\u009d')).toBe('\u00e2one\u00e2 and two \u00e2three\u00e2')
    expect(readableText('a\u009d0;title\u0007b')).toBe('a0;titleb')
  })

  it('an introducer whose terminator is past MAX_CONTROL_STRING_CHARS goes alone and the text between stays; one within goes whole', () => {
    const text = 'word '.repeat(1000)
    expect(readableText(`a\u001b]${text}\u0007b`)).toBe(`a${text}b`)
    expect(readableText(`a\u001b]${text}\u001b\\b`)).toBe(`a${text}\\b`)
    const within = 'x'.repeat(MAX_CONTROL_STRING_CHARS)
    expect(readableText(`a\u001b]8;;https://x.test/${within.slice(18)}\u001b\\link\u001b]8;;\u001b\\b`)).toBe('alinkb')
    expect(readableText(`a\u001b]${within}x\u0007b`)).toBe(`a${within}xb`)
  })

  it('one stray ESC ] and a BEL 400 KB later keep the 400 KB; many bounded strings are read once', () => {
    const body = 'line of a page\n'.repeat(27_000)
    expect(readableText(`\u001b]${body}\u0007`)).toBe(body)
    const unit = `\u001b]${'x'.repeat(MAX_CONTROL_STRING_CHARS)}`
    // Each body is cut by the next introducer; the last one's BEL is one character past the bound.
    const count = Math.ceil(400_000 / unit.length)
    expect(readableText(`${unit.repeat(count)}!\u0007`)).toBe(`${'x'.repeat(MAX_CONTROL_STRING_CHARS * count)}!`)
  }, 60_000)

  it('an 8-bit CSI as a log holds it (colours, erase, cursor, a mode) goes whole; U+009B of a `‛` decoded twice goes alone and keeps the letter after it', () => {
    expect(readableText('\u009b1;31mERROR\u009b0m disk \u009b2Kfull\u009b3Aup\u009b?25lhidden\u009b?25h')).toBe('ERROR disk fulluphidden')
    // ‛ is E2 80 9B: read as Latin-1, â U+0080 U+009B.
    expect(readableText('\u00e2\u0080\u009bsingle\u00e2\u0080\u0099 and the \u00e2\u0080\u009b90s, the \u00e2\u0080\u009b2nd\u00e2\u0080\u0099')).toBe('\u00e2single\u00e2 and the \u00e290s, the \u00e22nd\u00e2')
    expect(readableText('a\u009bm b\u009bK c')).toBe('am bK c')
  })
})
