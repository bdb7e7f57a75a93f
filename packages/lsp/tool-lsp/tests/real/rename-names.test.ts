import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PATIENT_TYPESCRIPT, realSuite, valueOf, type Fixture } from './harness.ts'

// A new name that is no name. gopls and clangd refuse one themselves ("invalid identifier"); tsserver
// (through typescript-language-server) and pyright computed the edit, and `apply: true` wrote
// `export function describeShape.perimeter(` or `class foo bar:` into every file. A new name equal
// to the old one was an edit that changes nothing, written to every file.
const cases: { fixture: Fixture; file: string; line: number; symbol: string }[] = [
  { fixture: 'ts-rename', file: 'src/shapes.ts', line: 12, symbol: 'describeShape' },
  { fixture: 'py-rename', file: 'geo/shapes.py', line: 1, symbol: 'Circle' },
]

for (const c of cases) {
  describe(`lsp_rename with a new name that is no name (${c.fixture}, real server)`, () => {
    const suite = realSuite(c.fixture, { overlay: PATIENT_TYPESCRIPT })
    const rename = (newName: string, apply?: boolean) =>
      suite.host.app.tools.execute({
        name: 'lsp_rename',
        arguments: { filePath: c.file, line: c.line, symbol: c.symbol, newName, ...(apply === undefined ? {} : { apply }) },
        session: suite.host.app.sessions.create({ cwd: suite.dir }),
      })

    it('refuses a name with a space, a dot, brackets or a line break, and the same name, writing nothing', async () => {
      const before = readFileSync(join(suite.dir, c.file), 'utf8')
      for (const newName of [`${c.symbol}.perimeter`, 'foo bar', `${c.symbol}2()`, 'a\nb', c.symbol]) {
        for (const apply of [undefined, true]) {
          const result = await rename(newName, apply)
          expect(result.isError && result.error.code, newName).toBe('LSP_RENAME_REFUSED')
          expect(result.isError && result.error.message, newName).toContain(`newName ${JSON.stringify(newName)}`)
        }
      }
      expect(readFileSync(join(suite.dir, c.file), 'utf8')).toBe(before)
      // A name is still renamed.
      expect(valueOf(await rename(`${c.symbol}2`))).toMatchObject({ oldName: c.symbol, newName: `${c.symbol}2`, applied: false })
    })
  })
}
