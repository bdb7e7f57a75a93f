import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PATIENT_TYPESCRIPT, realSuite, valueOf } from './harness.ts'

// A workspace search opens one file of the server's languages (tsserver has no project without
// one), the first by name in its directory. A binary file with the language's extension there
// (found driving `dsh call lsp_symbols` on a workspace holding a `src/bin.ts` of random bytes)
// failed every workspace search of the server: `No symbols match "target". (typescript did not
// answer: LSP_SOURCE_INVALID: … is a binary file)`. The next file of the directory is taken
// instead. Real tsserver and pyright, through the coding preset.
const binary = () => Buffer.concat([Buffer.from([0, 1, 2, 0]), randomBytes(3000)])

describe('lsp_symbols beside a file that cannot be read (real servers)', () => {
  describe('TypeScript', () => {
    const suite = realSuite('ts-symbols', {
      overlay: PATIENT_TYPESCRIPT,
      // First by name in src/, and on the workspace's own level too.
      prepare: (dir) => {
        writeFileSync(join(dir, 'src', 'aaa-binary.ts'), binary())
        writeFileSync(join(dir, 'aaa-huge.ts'), binary())
      },
    })
    it('searches with the next file of the directory', async () => {
      const value = valueOf(await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query: 'Shape' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) }))
      expect(value.unanswered).toEqual([])
      expect(value.symbols.map((s: any) => s.name)).toContain('Shape')
    })
  })

  describe('Python', () => {
    const suite = realSuite('py-symbols', {
      prepare: (dir) => {
        mkdirSync(join(dir, 'geo'), { recursive: true })
        writeFileSync(join(dir, 'geo', '__aaa.py'), binary())
      },
    })
    it('searches with the next file of the directory', async () => {
      const value = valueOf(await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query: 'Shape' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) }))
      expect(value.unanswered).toEqual([])
      expect(value.symbols.map((s: any) => s.name)).toContain('Shape')
    })
  })
})
