import { describe, expect, it } from 'vitest'
import { boundLines, boundText, cutCodeUnits, ellipsize } from '../src/text-bound.ts'

describe('cutCodeUnits', () => {
  it('keeps short text whole', () => {
    expect(cutCodeUnits('abc', 3)).toBe('abc')
    expect(cutCodeUnits('abc', 10)).toBe('abc')
  })

  it('cuts to the limit', () => {
    expect(cutCodeUnits('abcdef', 3)).toBe('abc')
    expect(cutCodeUnits('abcdef', 0)).toBe('')
  })

  it('steps back rather than split a surrogate pair', () => {
    expect(cutCodeUnits('a😀b', 2)).toBe('a')
    expect(cutCodeUnits('a😀b', 3)).toBe('a😀')
  })
})

describe('ellipsize', () => {
  it('marks a cut with …, within the limit', () => {
    expect(ellipsize('abcdef', 4)).toBe('abc\u2026')
    expect(ellipsize('abcd', 4)).toBe('abcd')
    expect(ellipsize('ab cdef', 4)).toBe('ab\u2026')
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

  it('cuts the whole as boundText does when head, omission and tail alone do not fit', () => {
    const text = boundLines(answer(20), 30, 'x')
    expect(text.length).toBe(30)
    expect(text).toContain('x truncated')
  })
})
