import { describe, expect, it } from 'vitest'
import { findSymbol, lineIdentifiers, symbolColumns, symbolUses, type SymbolSearch } from '../src/symbol-search.ts'

function lines(...texts: string[]): Map<number, string> {
  return new Map(texts.map((text, index) => [index, text]))
}

function search(symbol: string, line: number, extra: Partial<SymbolSearch> = {}): SymbolSearch {
  return { symbol, line, window: 3, ...extra }
}

describe('symbolColumns', () => {
  it('finds a name only where it stands alone, not inside a longer identifier', () => {
    const text = 'const areaSum = area + _area + area2 + $area + area'
    expect(symbolColumns(text, 'area')).toEqual([16, 47])
    expect(symbolColumns(text, 'areaSum')).toEqual([6])
    expect(symbolColumns(text, '$area')).toEqual([39])
  })

  it('counts columns in UTF-16 code units after astral characters', () => {
    const text = "const s = '😀😀'; f(area)"
    expect(text.indexOf('area')).toBe(20)
    expect(symbolColumns(text, 'area')).toEqual([20])
  })

  it('reads an astral letter next to the name as part of an identifier', () => {
    // 𝑥 (U+1D465) is a letter outside the BMP: `𝑥area` is one identifier.
    expect(symbolColumns('𝑥area + area𝑥 + area', 'area')).toEqual([18])
    expect(symbolColumns('let 𝑥 = 𝑥1 + 𝑥', '𝑥')).toEqual([4, 15])
  })

  it('treats a combining mark as part of the identifier', () => {
    expect(symbolColumns('cafe\u0301 + cafe', 'cafe')).toEqual([8])
  })

  it('finds CJK identifiers', () => {
    expect(symbolColumns('const 面积 = 面积合计 - 面积', '面积')).toEqual([6, 18])
  })

  it('checks only the edges of the symbol that are identifier characters', () => {
    expect(symbolColumns('x.empty? && empty?', 'empty?')).toEqual([2, 12])
    expect(symbolColumns('a+b', '+')).toEqual([1])
  })

  it('finds overlapping candidates where an earlier one was refused', () => {
    expect(symbolColumns('aaa aa', 'aa')).toEqual([4])
  })
})

describe('findSymbol', () => {
  it('takes the first occurrence on the named line', () => {
    expect(findSymbol(lines('x', 'return radius * radius'), search('radius', 1))).toEqual({ line: 1, character: 7, occurrence: 1 })
  })

  it('takes the occurrence asked for, over the column', () => {
    const found = findSymbol(lines('return radius * radius'), search('radius', 0, { occurrence: 2, character: 7 }))
    expect(found).toEqual({ line: 0, character: 16, occurrence: 2 })
  })

  it('takes the occurrence starting nearest the column; a tie goes to the later one', () => {
    const text = 'return radius * radius'
    expect(findSymbol(lines(text), search('radius', 0, { character: 12 }))?.character).toBe(16)
    expect(findSymbol(lines(text), search('radius', 0, { character: 11 }))?.character).toBe(7)
    expect(findSymbol(lines(text), search('radius', 0, { character: 0 }))?.character).toBe(7)
    expect(findSymbol(lines(text), search('radius', 0, { character: 200 }))?.character).toBe(16)
    // `const width = rect.width`, asked five columns short of the property.
    expect(findSymbol(lines('const width = rect.width'), search('width', 0, { character: 14 }))?.character).toBe(19)
  })

  it('looks at nearby lines, nearest first and below before above, and says which line', () => {
    const source = lines('alpha', 'beta', 'gamma', 'delta', 'beta')
    expect(findSymbol(source, search('beta', 2))).toEqual({ line: 1, character: 0, occurrence: 1 })
    expect(findSymbol(source, search('beta', 3))).toEqual({ line: 4, character: 0, occurrence: 1 })
    expect(findSymbol(source, search('alpha', 3, { window: 2 }))).toBeUndefined()
    expect(findSymbol(source, search('alpha', 3, { window: 3 }))?.line).toBe(0)
    expect(findSymbol(source, search('beta', 2, { window: 0 }))).toBeUndefined()
  })

  it('needs a line with at least `occurrence` uses', () => {
    const source = lines('f(x)', 'g(x, x)')
    expect(findSymbol(source, search('x', 0, { occurrence: 2 }))).toEqual({ line: 1, character: 5, occurrence: 2 })
    expect(findSymbol(source, search('x', 0, { occurrence: 3 }))).toBeUndefined()
  })

  it('searches past a missing named line (past the end of the file)', () => {
    expect(findSymbol(lines('one', 'two'), search('two', 3))).toEqual({ line: 1, character: 0, occurrence: 1 })
  })
})

describe('symbolUses', () => {
  it('leaves out uses inside string literals when there are others', () => {
    expect(symbolUses('    "banner": banner,', 'banner')).toEqual([14])
    expect(symbolUses("const label = 'area'", 'area')).toEqual([15])
    expect(symbolUses("export const 标签 = '📐 面积'; export const 总面积 = 面积(2, 3) + 面积(4, 5)", '面积')).toEqual([46, 57])
  })

  it('counts an interpolation as code', () => {
    expect(symbolUses('  return `area ${shape.area().toFixed(2)}`', 'area')).toEqual([23])
    expect(symbolUses('    return f"area {shape.area():.2f}"', 'area')).toEqual([25])
  })

  it('counts occurrences with the string ones left out', () => {
    const source = lines('    "width": width, "w": width,')
    expect(findSymbol(source, search('width', 0, { occurrence: 2 }))).toEqual({ line: 0, character: 25, occurrence: 2 })
    expect(findSymbol(source, search('width', 0))).toEqual({ line: 0, character: 13, occurrence: 1 })
  })
})

describe('lineIdentifiers', () => {
  it('lists each identifier once, in order, Unicode included', () => {
    expect(lineIdentifiers("const 面积 = area(r) + area(面积) + $el // '😀' 42")).toEqual(['const', '面积', 'area', 'r', '$el'])
    expect(lineIdentifiers('   ')).toEqual([])
  })

  it('leaves out words inside strings and comments, by the file\'s comment syntax', () => {
    expect(lineIdentifiers('const msg = "area of the circle" + radius /* the radius */ + `at ${x} units` // width here', 'a.ts')).toEqual(['const', 'msg', 'radius', 'x'])
    expect(lineIdentifiers("label = f'{name} has no area'  # the width", 'a.py')).toEqual(['label', 'name'])
    expect(lineIdentifiers('url = "http://a" // b', 'a.go')).toEqual(['url'])
    expect(lineIdentifiers('x = 1 # y', 'a.c')).toEqual(['x', 'y'])
    expect(lineIdentifiers('"only words in a string"', 'a.ts')).toEqual([])
  })

  // The string scan took 100 s on 400 KB of unclosed quotes (one rescan per quote); a quadratic scan
  // runs out the test's timeout. symbolUses scans a line for strings when the name stands twice on it.
  it('stays linear on hostile lines (400 KB of unclosed quotes, template holes, comment openers)', () => {
    for (const run of ['"\\'.repeat(200_000), '`${'.repeat(133_000), '/*'.repeat(200_000), 'a "b" /* c */ '.repeat(30_000)]) {
      expect(symbolUses(`x ${run} x`, 'x').length, run.slice(0, 4)).toBeGreaterThan(0)
      lineIdentifiers(run, 'a.ts')
    }
  }, 60_000)
})
