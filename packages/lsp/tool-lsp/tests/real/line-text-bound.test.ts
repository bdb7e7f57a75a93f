import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { realSuite } from './harness.ts'

// Real typescript-language-server through the coding preset: line text of a file read up to
// maxLineFileBytes. a.ts's lines 2 and 3 end within the 118-byte bound (multi-byte characters
// before it); line 4's break is byte 119, past it. One line past the bound must not drop the others.

const A = '// 🚀🚀 日本\nexport const value = 1 // é\nexport const other = value + 1 // 日本語\nexport const third = value\n'

describe('line text up to maxLineFileBytes (real typescript-language-server)', () => {
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
})
