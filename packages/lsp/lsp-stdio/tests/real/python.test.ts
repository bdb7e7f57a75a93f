import { describe, expect, it } from 'vitest'
import { callLsp, codingSuite, valueOf } from './harness.ts'

// Real pyright-langserver, through the coding preset and the lsp tool.
describe('lsp on a Python project (real pyright)', () => {
  const suite = codingSuite('py-project')
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
})
