import { describe, expect, it } from 'vitest'
import { SymbolsInput } from '../../src/symbols-tool.ts'
import { installTypescript7, PATIENT_TYPESCRIPT, realSuite, valueOf } from './harness.ts'

// tsserver (TypeScript 5, through typescript-language-server) matches a lowercase workspace query
// only where a word of a name starts: `sum` finds areaSum, `um` finds nothing. TypeScript 7 matches
// letters anywhere (`um` finds it). A model that queried the middle of a name on tsserver was told
// `No symbols match` with nothing to say why (found driving `dsh call lsp_symbols` on both). The
// query's description says to begin where a word begins; these cases keep it true of both servers.

describe('lsp_symbols query description', () => {
  it('tells the model to query where a word of the name begins', () => {
    expect(SymbolsInput.shape.query.description).toContain('Begin the query where a word of the name begins')
  })
})

const servers = [
  { name: 'tsserver (TypeScript 5)', prepare: undefined, middle: [] as string[] },
  { name: 'TypeScript 7', prepare: installTypescript7, middle: ['areaSum'] },
]

for (const server of servers) {
  describe(`lsp_symbols queries on ${server.name} (real server)`, () => {
    const suite = realSuite('ts-symbols', { overlay: PATIENT_TYPESCRIPT, ...(server.prepare ? { prepare: server.prepare } : {}) })
    const names = async (query: string) => {
      const result = await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
      return valueOf(result).symbols.map((symbol: { name: string }) => symbol.name)
    }

    it('finds a name by a word start; the middle of a word only on TypeScript 7', async () => {
      expect(await names('area')).toContain('areaSum')
      expect(await names('sum')).toContain('areaSum')
      expect((await names('um')).filter((name: string) => name === 'areaSum')).toEqual(server.middle)
    })
  })
}
