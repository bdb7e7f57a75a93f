// The text a reader sees (readable-text.ts), on inputs a hostile page or MCP server can hold in any number.
import { describe, expect, it } from 'vitest'
import { readableText } from '../src/readable-text.ts'

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
  ])('many unterminated introducers (%s) are read once, not once each', (_name, unit) => {
    const text = unit.repeat(Math.ceil(400_000 / unit.length))
    const readable = readableText(text)
    expect(readable).not.toMatch(/[\u001b\u0090-\u009f]/)
    expect(readable.length).toBeGreaterThan(0)
  }, 60_000)

  it('a terminated control string still goes whole, an unterminated one keeps its text', () => {
    expect(readableText('a\u001b]0;title\u0007b \u001b]8;;https://x.test/\u001b\\link\u001b]8;;\u001b\\ c\u001b]no end')).toBe('ab link cno end')
  })

  it('C1 controls of text decoded twice (a “quote” in UTF-8 read as Latin-1) go alone, taking no text with them', () => {
    // “ is E2 80 9C, ” E2 80 9D: read as Latin-1, U+009D would open an 8-bit OSC and U+009C end it.
    expect(readableText('\u00e2\u0080\u009cone\u00e2\u0080\u009d and two \u00e2\u0080\u009cthree\u00e2\u0080\u009d')).toBe('\u00e2one\u00e2 and two \u00e2three\u00e2')
    expect(readableText('a\u009d0;title\u0007b')).toBe('a0;titleb')
  })
})
