import { describe, expect, it } from 'vitest'
import { displayLine, exactLine, LineCollector, type LineBuffer } from '../src/line-collector.ts'
import type { ContainedText } from 'dsh-core'
import { lineAt, lineIndexOf, lineStarts } from '../src/line-index.ts'
import { scannedLines } from '../src/line-text.ts'

function collect(chunks: string[], wanted: number[], maxChars = 200, makeBuffer: () => LineBuffer = displayLine(maxChars)) {
  const collector = new LineCollector(new Set(wanted), makeBuffer)
  let pushed = 0
  for (const chunk of chunks) {
    if (collector.done) break
    collector.push(chunk)
    pushed += 1
  }
  return { lines: Object.fromEntries(collector.finish()), pushed, lineCount: collector.lineCount }
}

describe('LineCollector', () => {
  it('picks the wanted lines, trimmed', () => {
    expect(collect(['zero\n  one  \n\ttwo\nthree'], [1, 3]).lines).toEqual({ 1: 'one', 3: 'three' })
  })

  it('understands \\n, \\r\\n and \\r, including a \\r\\n split across chunks', () => {
    expect(collect(['a\r\nb\rc\nd'], [0, 1, 2, 3]).lines).toEqual({ 0: 'a', 1: 'b', 2: 'c', 3: 'd' })
    expect(collect(['a\r', '\nb\r', 'c'], [0, 1, 2]).lines).toEqual({ 0: 'a', 1: 'b', 2: 'c' })
  })

  it('joins a line split across chunks', () => {
    expect(collect(['  con', 'st x', ' = 1\nnext'], [0]).lines).toEqual({ 0: 'const x = 1' })
  })

  it('stops once the last wanted line has gone by', () => {
    const { lines, pushed } = collect(['a\nb\n', 'c\n', 'd\n', 'e\n'], [1])
    expect(lines).toEqual({ 1: 'b' })
    expect(pushed).toBe(1)
  })

  it('keeps blank lines as empty, leaves out lines past the end, and counts the lines it saw', () => {
    const { lines, lineCount } = collect(['a\n   \n'], [1, 2, 9])
    expect(lines).toEqual({ 1: '', 2: '' })
    expect(lineCount).toBe(3)
  })

  it('keeps exact lines untouched: whitespace, length and all', () => {
    const long = `\t  x = ${'y'.repeat(500)}  `
    expect(collect([`first\r\n${long.slice(0, 100)}`, `${long.slice(100)}\nlast`], [1], 10, exactLine).lines).toEqual({ 1: long })
  })

  it('cuts a long line with …, even when it streams in pieces', () => {
    const line = `    ${'x'.repeat(500)}`
    expect(collect([line], [0], 10).lines).toEqual({ 0: `${'x'.repeat(9)}\u2026` })
    expect(collect(line.match(/.{1,7}/g)!, [0], 10).lines).toEqual({ 0: `${'x'.repeat(9)}\u2026` })
  })

  it('trailing whitespace past the limit is not a cut', () => {
    expect(collect([`abc${' '.repeat(500)}`], [0], 10).lines).toEqual({ 0: 'abc' })
    expect(collect([`abc${' '.repeat(500)}z`], [0], 10).lines).toEqual({ 0: 'abc\u2026' })
  })

  it('never keeps half a surrogate pair, and counts characters (code points)', () => {
    const { lines } = collect([`${'a'.repeat(8)}😀😀😀`], [0], 10)
    expect(lines[0]).toBe(`${'a'.repeat(8)}😀\u2026`)
    // Counted in UTF-16 units, 10 emoji were cut to 4 and a … (and in chunks could end in half a pair).
    expect(collect(['😀'.repeat(10)], [0], 10).lines).toEqual({ 0: '😀'.repeat(10) })
    expect(collect(['😀'.repeat(5), '😀'.repeat(6)], [0], 10).lines).toEqual({ 0: `${'😀'.repeat(9)}\u2026` })
    expect(collect([`${'😀'.repeat(11)}   `], [0], 10).lines).toEqual({ 0: `${'😀'.repeat(9)}\u2026` })
  })
})

describe('the line index of a text used again (line-index.ts)', () => {
  const TEXTS = ['', 'one', 'one\n', 'a\nb\r\nc\rd', '\r\n\r\n', '\n\r', 'x\r', 'x\r\n', '\r', 'a\n\nb\n', '  lead\ttab  \r\nend', 'é\u2028x\ny']
  it('finds every line as LineCollector splits it (\\r\\n, \\r, \\n; the last line unterminated or empty)', () => {
    for (const text of TEXTS) {
      const starts = lineStarts(text)
      const wanted = new Set(Array.from({ length: starts.length + 2 }, (_, line) => line))
      const collector = new LineCollector(wanted, exactLine)
      collector.push(text)
      const expected = collector.finish()
      const found = new Map<number, string>()
      for (const line of wanted) {
        const at = lineAt(text, starts, line)
        if (at !== undefined) found.set(line, at)
      }
      expect(found, JSON.stringify(text)).toEqual(expected)
    }
  })

  it('indexes a text from its second use on, and a new text (a changed file) afresh', () => {
    const first: ContainedText = { path: '/ws/a.ts', url: 'file:///ws/a.ts', text: 'a\nb\n' }
    expect(lineIndexOf(first)).toBeUndefined()
    expect(Array.from(lineIndexOf(first)!)).toEqual([0, 2, 4])
    const changed: ContainedText = { ...first, text: 'a\r\nbb\nc' }
    expect(lineIndexOf(changed)).toBeUndefined()
    expect(Array.from(lineIndexOf(changed)!)).toEqual([0, 3, 6])
  })
})

// Issue 27 item 2: the file read for a call is scanned to its wanted lines by a plain loop
// (line-text.ts), which must answer exactly what the collector does for the whole text.
describe('scannedLines', () => {
  const collected = (text: string, wanted: ReadonlySet<number>, makeBuffer: () => LineBuffer) => {
    const collector = new LineCollector(wanted, makeBuffer)
    collector.push(text)
    const stoppedEarly = collector.done
    const lines = collector.finish()
    return { lines: new Map(lines), lineCount: stoppedEarly ? undefined : collector.lineCount }
  }

  it('answers as the collector fed the whole text, for every line ending, blank and missing line, and wanted set', () => {
    const texts = ['', 'a', 'a\n', 'a\r\n', 'a\r', '\n', '\r\n\r\n', 'a\nb', 'a\r\nb\r\n', 'a\rb\rc', '  x  \n\ty\t\r\n\n  \nlast', 'one\n\r\ntwo\r\r\nthree', `${'w'.repeat(300)}\n  ${'v'.repeat(300)}  `]
    const sets: ReadonlySet<number>[] = [new Set(), new Set([0]), new Set([1]), new Set([0, 2]), new Set([3]), new Set([5, 1]), new Set([0, 1, 2, 3, 4, 5]), new Set([40])]
    let compared = 0
    for (const text of texts) {
      for (const wanted of sets) {
        for (const makeBuffer of [exactLine, displayLine(20)]) {
          expect([text, [...wanted], scannedLines(text, wanted, makeBuffer)]).toEqual([text, [...wanted], collected(text, wanted, makeBuffer)])
          compared++
        }
      }
    }
    expect(compared).toBe(texts.length * sets.length * 2)
  })
})
