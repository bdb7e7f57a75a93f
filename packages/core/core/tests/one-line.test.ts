// dsh-core's oneLine, which MCP, LSP and the CLI apply to a peer's error text: the same answer as
// before, and linear in the worst input (400 KB of spaces with and without a newline).
import { describe, expect, it } from 'vitest'
import { oneLine } from '../src/errors.ts'

describe('oneLine', () => {
  it.each([
    ['a\nb', 'a b'],
    ['a  \n\t b', 'a b'],
    ['a \r\n\r\n b', 'a b'],
    ['a  b', 'a  b'],
    ['a  b\nc   d', 'a  b c   d'],
    ['\n lead and trail \n', ' lead and trail '],
    ['no newline at all', 'no newline at all'],
    // Every line terminator, not LF alone: a peer's name or message cannot start a line of ours.
    ['name\u2028Error: forged', 'name Error: forged'],
    ['name \u2029 Error: forged', 'name Error: forged'],
    ['name\u0085Error: forged', 'name Error: forged'],
    ['cr\ronly', 'cr only'],
    ['vt\u000bff\u000cend', 'vt ff end'],
    ['nbsp\u00a0kept', 'nbsp\u00a0kept'],
  ])('%j → %j', (text, expected) => {
    expect(oneLine(text)).toBe(expected)
  })

  it('reads 400 KB of spaces once, whether a newline ends them or not (the regex it replaces took minutes)', () => {
    const spaces = ' '.repeat(400_000)
    expect(oneLine(`start${spaces}\nend`)).toBe('start end')
    expect(oneLine(`start${spaces}end\n`)).toBe(`start${spaces}end `)
    expect(oneLine(`${'a '.repeat(200_000)}\n`)).toBe(`${'a '.repeat(199_999)}a `)
    expect(oneLine(`start${spaces}\u2028end`)).toBe('start end')
    expect(oneLine(`${'a\u00a0'.repeat(200_000)}\u2029`)).toBe(`${'a\u00a0'.repeat(199_999)}a `)
  })
})
