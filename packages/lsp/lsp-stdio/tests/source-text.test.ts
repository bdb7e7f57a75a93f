import { describe, expect, it } from 'vitest'
import { nameAt, offsetOf, textIn, withinLine } from '../src/source-text.ts'

// One line model (LSP's: `\r\n`, `\n` and a lone `\r` end a line) for the positions a caller gives
// and the ranges a server gives. offsetOf once split at `\n` only, so on line 2+ of a CR-only file,
// or after a lone `\r`, nameAt and textIn read another line than withinLine and the server meant.
describe('source text positions', () => {
  const files = {
    lf: 'let a = 1\nlet foo = a\n',
    crlf: 'let a = 1\r\nlet foo = a\r\n',
    cr: 'let a = 1\rlet foo = a\r',
    loneCr: '/* x\ry */\nlet a = 1\nlet foo = a\n',
  }
  const fooLine = { lf: 1, crlf: 1, cr: 1, loneCr: 3 }

  it('finds a name and a range on the line LSP counts, whatever the line breaks', () => {
    for (const [kind, text] of Object.entries(files) as [keyof typeof files, string][]) {
      const line = fooLine[kind]
      expect(nameAt(text, { line, character: 5 }), kind).toBe('foo')
      expect(textIn(text, { start: { line, character: 4 }, end: { line, character: 7 } }), kind).toBe('foo')
      // A character past the line's end is its end, for both.
      expect(text.slice(offsetOf(text, { line, character: 99 })).startsWith('\n') || text[offsetOf(text, { line, character: 99 })] === '\r', kind).toBe(true)
      expect(withinLine(text, { line, character: 99 }, 'f'), kind).toEqual({ line, character: 11 })
    }
  })

  it('counts the lines the same way when refusing a line past the end', () => {
    expect(() => withinLine(files.cr, { line: 5, character: 0 }, 'f')).toThrow('line 6 is past the end of "f", which has 3 lines')
    expect(() => withinLine(files.loneCr, { line: 9, character: 0 }, 'f')).toThrow('which has 5 lines')
    expect(() => withinLine('x', { line: 1, character: 0 }, 'f')).toThrow('which has 1 line')
    expect(offsetOf(files.cr, { line: 5, character: 0 })).toBe(files.cr.length)
  })
})
