// Issue 32 item 5: a workspace symbol query in a workspace of several project roots (two Go modules
// side by side, no go.mod above them) asks the server of every root, so a symbol of the second
// module is found on a cold host too (real gopls, through lsp_symbols).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { codingSuite, valueOf } from './harness.ts'

const GO_OVERLAY = `- id: lsp-stdio
  config:
    catalog: [typescript, python, go]
`

describe('lsp_symbols across project roots (real gopls)', () => {
  const suite = codingSuite('catalog', GO_OVERLAY)

  it('finds symbols of both modules, each in its own module', async () => {
    const session = suite.session(join(suite.workspace.dir, 'go-modules'))
    const search = async (query: string) => valueOf(await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query }, session }))
    const volume = await search('Volume')
    expect(volume.symbols.map((symbol: any) => `${symbol.name} ${symbol.path}`)).toContain('Volume beta/shapes.go')
    const area = await search('Area')
    expect(area.symbols.map((symbol: any) => `${symbol.name} ${symbol.path}`)).toContain('Area alpha/shapes.go')
    expect(volume.unanswered).toEqual([])
  })
})
