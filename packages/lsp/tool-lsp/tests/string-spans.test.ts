import { describe, expect, it } from 'vitest'
import { stringSpans } from '../src/string-spans.ts'

/** The literal text of each span, for reading the expectations. */
function literals(text: string): string[] {
  return stringSpans(text).map(([start, end]) => text.slice(start, end))
}

describe('stringSpans', () => {
  it('finds closed strings of each quote, with escapes', () => {
    expect(literals(`a = "x \\" y"; b = 'z'; c = \`w\``)).toEqual(['"x \\" y"', "'z'", '`w`'])
  })

  it('leaves interpolations out of the literal text', () => {
    expect(literals('`area ${shape.area().toFixed(2)} cm`')).toEqual(['`area ', ' cm`'])
    expect(literals('f"area {shape.area():.2f}"')).toEqual(['f"area '.slice(1), '"'])
    expect(literals('rf"{a}{{b}}"')).toEqual(['"', '{{b}}"'])
    expect(literals('$"total {sum}"')).toEqual(['"total ', '"'])
  })

  it('treats braces as text in a string without an interpolating prefix', () => {
    expect(literals('if"{x}" + elif"{y}"')).toEqual(['"{x}"', '"{y}"'])
  })

  it('opens nothing with an unclosed quote or an apostrophe after a letter', () => {
    expect(literals('// it is the shape’s area, don\'t')).toEqual([])
    expect(literals("let x' = x + 'a'")).toEqual(["'a'"])
    expect(literals('"unclosed area')).toEqual([])
  })

  it('handles a string that is all interpolation', () => {
    expect(literals('`${a}${b}`')).toEqual(['`', '', '`'])
  })
})
