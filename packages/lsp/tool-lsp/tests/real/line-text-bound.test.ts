import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { realSuite } from './harness.ts'

// Real typescript-language-server through the coding preset: a file read up to maxLineFileBytes.
// a.ts's lines 2 and 3 end within the 118-byte bound (multi-byte characters before it); line 4's
// break is byte 119, past it. One line past the bound must not drop the others' line text, nor
// refuse a symbol found on a line searched before it.

const A = '// 🚀🚀 日本\nexport const value = 1 // é\nexport const other = value + 1 // 日本語\nexport const third = value\n'

describe('a file read up to maxLineFileBytes (real typescript-language-server)', () => {
  const suite = realSuite('ts-rename', {
    overlay: '- id: tool-lsp\n  config:\n    maxLineFileBytes: 118\n',
    prepare: (dir) => {
      writeFileSync(join(dir, 'src', 'a.ts'), A)
      writeFileSync(join(dir, 'src', 'b.ts'), "import { value } from './a'\nexport const b = value\n")
    },
  })

  it('shows the lines that end within the bound and skips only the one past it', async () => {
    expect(Buffer.byteLength(A)).toBe(119)
    // Asked from b.ts, so a.ts is not the provider's source: its lines are read up to the bound.
    const result = await suite.call({ operation: 'findReferences', filePath: 'src/b.ts', line: 2, character: 18 })
    expect(result.isError).toBe(false)
    const text = result.isError ? '' : result.content.map((part) => ('text' in part ? part.text : '')).join('')
    expect(text.split('\n').filter((line) => line.startsWith('src/a.ts'))).toEqual([
      'src/a.ts:2:14  export const value = 1 // é',
      'src/a.ts:3:22  export const other = value + 1 // 日本語',
      'src/a.ts:4:22',
    ])
  })

  it('finds a symbol on the named line though its search window runs past the bound, and refuses one the search reaches past it', async () => {
    const found = await suite.call({ operation: 'findReferences', filePath: 'src/a.ts', line: 2, symbol: 'value' })
    expect(found.isError).toBe(false)
    expect(found.isError ? '' : found.content.map((part) => ('text' in part ? part.text : '')).join('')).toContain('src/b.ts:2:18  export const b = value')
    // "third" is on line 4: the search looks at lines 2, 3 and 1 first, then line 4, past the bound.
    const refused = await suite.call({ operation: 'findReferences', filePath: 'src/a.ts', line: 2, symbol: 'third' })
    expect(refused.isError ? [refused.error.code, refused.error.message] : []).toEqual([
      'LSP_SOURCE_INVALID',
      `source "src/a.ts" cannot be used: "${join(suite.dir, 'src', 'a.ts')}" has more than 118 bytes before the end of line 4 (the lsp tool reads at most maxLineFileBytes to find a symbol; pass character without symbol)`,
    ])
  })
})
