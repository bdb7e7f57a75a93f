import { describe, expect, it } from 'vitest'
import { capText, characterEnd, clusterBoundary, fitsWithin, type CutNote } from '../src/index.ts'

const NOTE: CutNote = { what: 'result', setting: 'maxResultChars', rest: "is in the tool's value" }
const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe('capText', () => {
  it('keeps a text within the cap whole, and counts characters (code points), not UTF-16 units', () => {
    expect(capText('short', 5, NOTE)).toBe('short')
    expect(capText('😀'.repeat(500), 500, NOTE)).toBe('😀'.repeat(500))
  })

  it('says shown characters and lines of the total lines, without counting the whole text', () => {
    const text = Array.from({ length: 2000 }, (_, index) => `${'😀'.repeat(30)} line ${index + 1}`).join('\n')
    const capped = capText(text, 1000, NOTE)
    const [shown, note] = capped.split('\n\n[')
    expect([...capped].length).toBeLessThanOrEqual(1000)
    const lines = shown!.split('\n').length
    // The note had "N of 81,999 characters": counting them took 77–123 ms on 17 MB of such lines.
    expect(note).toBe(`Cut at maxResultChars 1000: ${[...shown!].length} characters (${lines} of 2000 lines) of the result shown; the rest, from line ${lines + 1}, is in the tool's value.]`)
    expect(shown!.endsWith(`line ${lines}`)).toBe(true)
  })

  it('cuts inside a long last line rather than show only the lines before it', () => {
    // A short first line, then one long one (a JSON result, a minified page): the cut at the first
    // line end showed 4 characters of a 1000-character budget.
    const capped = capText(`head\n${'x'.repeat(10_000)}`, 1000, NOTE)
    const [shown, note] = capped.split('\n\n[')
    expect(shown!.length).toBeGreaterThan(800)
    expect(note).toContain('characters (1 of 2 lines) of the result shown; the rest, from line 2,')
  })

  it('keeps a line end near the cut', () => {
    const text = Array.from({ length: 100 }, (_, index) => `line ${index + 1} ${'y'.repeat(40)}`).join('\n')
    const [shown] = capText(text, 1000, NOTE).split('\n\n[')
    expect(shown).toMatch(/y{40}$/)
  })

  it('never parts a letter from its accent or a surrogate pair, whatever the cap', () => {
    for (const unit of ['e\u0301', '😀', '👍🏽']) {
      for (let max = 1; max < 200; max += 7) {
        const capped = capText(unit.repeat(300), max, '\n(cut)')
        expect([...capped].length, `${unit} ${max}`).toBeLessThanOrEqual(max)
        expect(lone.test(capped)).toBe(false)
        expect(capped.replace('\n(cut)', '').split(unit).join(''), `${unit} ${max}`).toMatch(/^(?:|\(cut\)|\(c?u?t?)$/)
      }
    }
  })

  it('keeps the tail whole after a surface\'s own note, and notes a text cut before though it fits', () => {
    const tail = '\n(the server was still indexing)'
    const capped = capText('z'.repeat(500), 100, '\n… cut', { tail })
    expect(capped).toBe(`${'z'.repeat(100 - 6 - tail.length)}\n… cut${tail}`)
    expect(capText('fits', 100, '\n… cut', { tail })).toBe(`fits${tail}`)
    expect(capText('fits\n\n', 100, '\n… cut', { tail, cutBefore: true })).toBe(`fits\n… cut${tail}`)
  })
})

describe('fitsWithin and characterEnd', () => {
  it('count characters only as far as they need', () => {
    expect(fitsWithin('😀'.repeat(10), 10)).toBe(true)
    expect(fitsWithin('😀'.repeat(11), 10)).toBe(false)
    expect(characterEnd('a😀b', 2)).toBe(3)
    expect(characterEnd('a😀b', 9)).toBe(4)
  })
})

describe('clusterBoundary', () => {
  // It segments only a window before the cut: opened at a flag's second half, it paired every
  // flag in the window wrongly and cut between 🇫 and 🇷 (found by tool-lsp's ellipsize tests).
  it('never parts a flag, wherever the window opens in a run of them', () => {
    for (const text of ['🇫🇷🇩🇪'.repeat(40), `a${'🇫🇷'.repeat(40)}`, `🇫${'🇫🇷'.repeat(40)}`]) {
      const ends = new Set([0, ...[...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map(({ index, segment }) => index + segment.length)])
      for (let at = 0; at <= text.length; at++) {
        const boundary = clusterBoundary(text, at)
        expect(ends.has(boundary), `${at} -> ${boundary}`).toBe(true)
        expect(boundary).toBeLessThanOrEqual(at)
        expect(at - boundary).toBeLessThan(4)
      }
    }
  })
})
