import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { callLsp, codingSuite, valueOf } from './harness.ts'

// Real pyright-langserver, through the coding preset and the lsp tool.
describe('lsp on a Python project (real pyright)', () => {
  // positions.test.ts's Python cases, on this pyright rather than a second cold start.
  const suite = codingSuite('py-project', undefined, (dir) => writeFileSync(join(dir, 'wrap.py'), 'a = 1\nbbbbbb = a\n'))
  const session = () => suite.session()

  it('goes to the definition in another module on the first query', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'goToDefinition', filePath: 'pkg/main.py', line: 3, character: 10 }))
    expect(value.complete).toBe(true)
    const target = value.locations.find((l: any) => l.path === 'pkg/shapes.py')
    expect(target?.range.start.line).toBe(5)
    expect(target?.lineText).toBe('class Circle(Shape):')
  })

  it('counts columns in UTF-16 units after non-BMP characters', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'goToDefinition', filePath: 'pkg/main.py', line: 4, character: 29 }))
    expect(value.locations.find((l: any) => l.path === 'pkg/shapes.py')?.range.start.line).toBe(13)
  })

  it('finds references including the declaration', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'findReferences', filePath: 'pkg/shapes.py', line: 14, character: 5 }))
    const paths = value.locations.map((l: any) => `${l.path}:${l.range.start.line + 1}`)
    expect(paths).toContain('pkg/shapes.py:14')
    expect(paths).toContain('pkg/main.py:4')
  })

  it('answers goToImplementation or says with a code that the server cannot', async () => {
    const result = await callLsp(suite.host, session(), { operation: 'goToImplementation', filePath: 'pkg/shapes.py', line: 10, character: 9 })
    if (result.isError) {
      expect(result.error.code).toBe('LSP_UNSUPPORTED_OPERATION')
      // pyright has none: the answer says which operation answers instead (it said only that it had none).
      expect(result.error.message).toContain('Use findReferences instead')
    } else expect(Array.isArray((result.value as any).locations)).toBe(true)
  })

  it('hovers with the signature', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'hover', filePath: 'pkg/main.py', line: 3, character: 10 }))
    expect(value.hover.contents).toContain('Circle')
  })

  // A model's column past the end of a line. LSP says it means the line's end; pyright added it to
  // the line's start instead, and answered about `bbbbbb` on the next line (positions.test.ts has
  // tsserver's cases).
  describe('positions a model gets wrong', () => {
    const hover = (filePath: string, line: number, character: number) => callLsp(suite.host, session(), { operation: 'hover', filePath, line, character })

    it('stays on its line', async () => {
      expect(valueOf(await hover('wrap.py', 1, 8)).hover).toBeNull()
      expect(valueOf(await hover('wrap.py', 1, 1)).hover?.contents).toContain('(variable) a')
      expect(valueOf(await hover('wrap.py', 2, 2)).hover?.contents).toContain('bbbbbb')
    })

    it('says the column was past the end of the line, and where the server was asked', async () => {
      const textOf = (result: Awaited<ReturnType<typeof hover>>) => (result.content[0] as { text: string }).text
      const result = await hover('wrap.py', 1, 20)
      const note = 'column 20 is past the end of line 1 (5 characters); asked at its end'
      expect(valueOf(result).askedAt).toEqual({ line: 1, character: 6, note })
      expect(textOf(result)).toBe(`hover at wrap.py:1:6 (${note})\nNo hover information.`)
      const calls = await suite.host.app.tools.execute({ name: 'lsp_calls', arguments: { filePath: 'wrap.py', line: 2, character: 30, direction: 'incoming' }, session: session() })
      expect(valueOf(calls).askedAt).toEqual({ line: 2, character: 11, note: 'column 30 is past the end of line 2 (10 characters); asked at its end' })
      expect(textOf(calls)).toContain('(column 30 is past the end of line 2 (10 characters); asked at its end)')
    })

    it('refuses a line past the end of the file with a coded error naming its length', async () => {
      const result = await hover('wrap.py', 50, 1)
      expect(result.isError && result.error.code).toBe('LSP_INVALID_REQUEST')
      expect(result.isError && result.error.message).toContain('line 50 is past the end of "wrap.py", which has 3 lines')
    })
  })
})
