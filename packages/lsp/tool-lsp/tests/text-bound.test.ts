import { describe, expect, it } from 'vitest'
import { renderSymbols } from '../src/symbols-render.ts'
import type { WorkspaceMatchesValue } from '../src/symbols-value.ts'
import { boundLines, boundText, cutCharacters, ellipsize } from '../src/text-bound.ts'

/** Characters as the limits count them: code points. */
const chars = (text: string): number => [...text].length
/** Whether `text` is whole grapheme clusters: a cut parted none, and left no half of a surrogate pair. */
const wholeClusters = (text: string, of: string): boolean => {
  const ends = new Set([0, ...[...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(of)].map(({ index, segment }) => index + segment.length)])
  return ends.has(text.length) && of.startsWith(text)
}

describe('cutCharacters', () => {
  it('keeps short text whole', () => {
    expect(cutCharacters('abc', 3)).toBe('abc')
    expect(cutCharacters('abc', 10)).toBe('abc')
    expect(cutCharacters('😀'.repeat(10), 10)).toBe('😀'.repeat(10))
  })

  it('cuts to the limit in characters', () => {
    expect(cutCharacters('abcdef', 3)).toBe('abc')
    expect(cutCharacters('abcdef', 0)).toBe('')
    expect(cutCharacters('😀'.repeat(10), 4)).toBe('😀'.repeat(4))
  })

  it('steps back rather than part a surrogate pair or a cluster', () => {
    expect(cutCharacters('a😀b', 2)).toBe('a😀')
    expect(cutCharacters('a👍🏽b', 2)).toBe('a')
    expect(cutCharacters('a👍🏽b', 3)).toBe('a👍🏽')
  })
})

describe('ellipsize', () => {
  it('marks a cut with …, within the limit', () => {
    expect(ellipsize('abcdef', 4)).toBe('abc\u2026')
    expect(ellipsize('abcd', 4)).toBe('abcd')
    expect(ellipsize('ab cdef', 4)).toBe('ab\u2026')
  })

  // Counting UTF-16 units, 150 emoji (300 units) were cut at 199 units: half the name shown.
  it('counts characters (code points), not UTF-16 units', () => {
    expect(ellipsize('😀'.repeat(150), 200)).toBe('😀'.repeat(150))
    expect(ellipsize('😀'.repeat(201), 200)).toBe(`${'😀'.repeat(199)}\u2026`)
    expect(ellipsize('abc', 0)).toBe('')
  })

  // A cut in UTF-16 units kept pairs whole but parted clusters: `a👍…` without its skin tone, `x👨\u200d…`.
  it('cuts between characters a reader sees as one (grapheme clusters)', () => {
    const names = ['a' + '👍🏽'.repeat(30), 'x' + '👨‍👩‍👧'.repeat(20), 'e\u0301'.repeat(40), '🇫🇷🇩🇪'.repeat(20)]
    for (const name of names) {
      for (let max = 1; max < 40; max++) {
        const cut = ellipsize(name, max)
        expect(chars(cut), `${name} ${max}`).toBeLessThanOrEqual(max)
        expect(wholeClusters(cut.replace(/\u2026$/, ''), name), `${JSON.stringify(cut)} ${max}`).toBe(true)
      }
    }
    expect(ellipsize('a' + '👍🏽'.repeat(30), 4)).toBe('a👍🏽\u2026')
    expect(ellipsize('x' + '👨‍👩‍👧'.repeat(20), 5)).toBe('x\u2026')
  })
})

describe('boundText', () => {
  it('leaves text within the limit alone', () => {
    expect(boundText('hello', 5, 'x')).toBe('hello')
  })

  it('replaces the end with the notice', () => {
    const text = boundText('y'.repeat(100), 50, 'locations')
    expect(text).toHaveLength(50)
    expect(text.endsWith('\n\u2026 locations truncated (limit 50 characters).')).toBe(true)
  })

  it('is never longer than the limit, for any limit', () => {
    for (let max = 1; max < 80; max++) expect([...boundText('😀'.repeat(100), max, 'hover')].length).toBeLessThanOrEqual(max)
  })
})

describe('boundLines', () => {
  const answer = (body: number) => ({
    head: ['head'],
    body: Array.from({ length: body }, (_, index) => `line ${index}`),
    omitted: (dropped: number) => (dropped ? `… ${dropped} more` : undefined),
    tail: ['(a server did not answer)'],
  })

  it('keeps head and tail, whole body lines while they fit, and counts the rest', () => {
    expect(boundLines(answer(3), 1000, 'x')).toBe('head\nline 0\nline 1\nline 2\n(a server did not answer)')
    for (let max = 40; max < 120; max++) {
      const text = boundLines(answer(20), max, 'x')
      expect(text.length, String(max)).toBeLessThanOrEqual(max)
      const lines = text.split('\n')
      expect(lines[0]).toBe('head')
      expect(lines.at(-1)).toBe('(a server did not answer)')
      const kept = lines.filter((line) => line.startsWith('line ')).length
      expect(lines.at(-2)).toBe(`… ${20 - kept} more`)
    }
  })

  // Counting UTF-16 units, an answer of emoji lines that fit in characters lost half of them.
  it('counts characters (code points): emoji lines that fit are kept, and no more than fit', () => {
    const emoji = { ...answer(0), body: Array.from({ length: 20 }, (_, index) => `🎉🎉🎉 ${index}`) }
    const whole = boundLines(emoji, 1000, 'x')
    expect(whole.length).toBeGreaterThan(chars(whole))
    expect(boundLines(emoji, chars(whole), 'x')).toBe(whole)
    for (let max = 40; max < chars(whole); max++) {
      const text = boundLines(emoji, max, 'x')
      expect(chars(text), String(max)).toBeLessThanOrEqual(max)
      const kept = text.split('\n').filter((line) => line.startsWith('🎉')).length
      // One body line more would not have fit (each is at most 7 characters and a break).
      expect(chars(text) + 8 + 1, String(max)).toBeGreaterThan(max)
      expect(text.split('\n').at(-2)).toBe(`… ${20 - kept} more`)
    }
  })

  it('cuts the whole as boundText does when head, omission and tail alone do not fit', () => {
    const text = boundLines(answer(20), 30, 'x')
    expect(text.length).toBe(30)
    expect(text).toContain('x truncated')
  })
})

describe('renderSymbols within maxResultChars (boundLines)', () => {
  const value = (count: number): WorkspaceMatchesValue => ({
    kind: 'workspaceSymbols',
    query: 'party',
    complete: true,
    total: count,
    truncated: false,
    symbols: Array.from({ length: count }, (_, index) => ({
      name: `party🎉🎉🎉🎉🎉🎉🎉🎉${index}`,
      kind: 'function' as const,
      path: `src/🎉🎊🥳/👨‍👩‍👧‍👦/${index}.ts`,
      uri: `file:///w/src/${index}.ts`,
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    })),
    unanswered: [{ providerId: 'gopls', code: 'LSP_TIMEOUT', message: 'did not answer in time' }],
  })
  const limits = { maxSymbols: 100, maxSymbolDepth: 3, maxNameChars: 200 }

  // Emoji-named symbols in emoji paths filling maxResultChars: counted in UTF-16 units, the listing
  // that fits in characters was cut to about half, its lines counted as omitted.
  it('keeps every match whose characters fit, and the note of the server that did not answer', () => {
    const whole = renderSymbols(value(40), { ...limits, maxResultChars: 100_000 })
    const max = chars(whole)
    expect(whole.length).toBeGreaterThan(max + 40)
    expect(renderSymbols(value(40), { ...limits, maxResultChars: max })).toBe(whole)
    const cut = renderSymbols(value(40), { ...limits, maxResultChars: Math.floor(max / 2) })
    expect(chars(cut)).toBeLessThanOrEqual(Math.floor(max / 2))
    const shown = cut.split('\n').filter((line) => line.startsWith('function '))
    // No more would fit: the next match's line and its break pass the limit.
    expect(chars(cut) + chars(whole.split('\n')[1 + shown.length]!) + 1).toBeGreaterThan(Math.floor(max / 2))
    expect(cut).toContain(`… ${40 - shown.length} more symbols omitted (limit ${Math.floor(max / 2)} characters)`)
    expect(cut.endsWith('(gopls did not answer: LSP_TIMEOUT: did not answer in time)')).toBe(true)
  })
})
