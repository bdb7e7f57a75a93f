import { describe, expect, it } from 'vitest'
import { PATIENT_GO_AND_C, realSuite } from './harness.ts'

// gopls answers goToImplementation on a plain function with an error, `not a type name or method`,
// and nothing told the model which operation answers for a function: it asked again the same way
// (found driving `dsh call lsp`, 2026-12-07). The code stays LSP_SERVER_ERROR, with the server's
// words and rpcCode; the message adds which operations fit. Real gopls.
describe('goToImplementation on what has no implementations (real gopls)', () => {
  const suite = realSuite('go-rename', { overlay: PATIENT_GO_AND_C })

  it('says to use goToDefinition or findReferences for a function', async () => {
    const result = await suite.call({ operation: 'goToImplementation', filePath: 'shapes.go', line: 4, symbol: 'Area' })
    expect(result.isError && result.error.code).toBe('LSP_SERVER_ERROR')
    const message = result.isError ? result.error.message : ''
    expect(message).toContain('not a type name or method')
    expect(message).toContain('for a function, variable or constant use goToDefinition (where it is declared) or findReferences (where it is used)')
    // The operations it names answer there.
    const references = await suite.call({ operation: 'findReferences', filePath: 'shapes.go', line: 4, symbol: 'Area' })
    expect(references.isError).toBe(false)
  })
})
