import { describe, expect, it } from 'vitest'
import { boundText, cutCodeUnits, ellipsize } from '../src/text-bound.ts'

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
    for (let max = 1; max < 80; max++) expect(boundText('😀'.repeat(100), max, 'hover').length).toBeLessThanOrEqual(max)
  })
})
