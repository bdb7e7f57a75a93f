import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PATIENT_GO_AND_C, PATIENT_TYPESCRIPT, realSuite, valueOf, type Fixture } from './harness.ts'

// A new name that is no name. gopls and clangd refuse one themselves ("invalid identifier"); tsserver
// (through typescript-language-server) and pyright computed the edit, and `apply: true` wrote
// `export function describeShape.perimeter(` or `class foo bar:` into every file. A new name equal
// to the old one was an edit that changes nothing, written to every file.
// Nor did they check the language's identifiers (found driving `dsh call lsp_rename`, 2026-12-07):
// `const 1abc = 1`, `a-b`, and in Python `def class(`; the catalog's rows now say which language's
// names a new name must be (`newNames`). `valid` are names the language allows that must still pass.
// A new name already in scope: tsserver and pyright rename into it without a word (`const bom` to
// `useBom` wrote `useBom = useBom + 1`; two `def summary`); the answer now says where it stands.
// An installed package beside the workspace's code (the last describe below runs in the same
// workspace and host: one tsserver start, not two; nothing here renames into or out of it).
const installFake = (dir: string) => {
  mkdirSync(join(dir, 'node_modules', 'fake'), { recursive: true })
  writeFileSync(join(dir, 'node_modules', 'fake', 'package.json'), '{"name":"fake","version":"1.0.0","types":"index.d.ts"}')
  writeFileSync(join(dir, 'node_modules', 'fake', 'index.d.ts'), 'export declare function helper(x: number): number;\n')
  writeFileSync(join(dir, 'src', 'uses-fake.ts'), 'import { helper } from "fake"\nexport const y = helper(1)\n')
}

const cases: { fixture: Fixture; prepare?: (dir: string) => void; file: string; line: number; symbol: string; invalid: [string, string][]; valid: string[]; taken: [string, string] }[] = [
  {
    fixture: 'ts-rename',
    prepare: installFake,
    file: 'src/shapes.ts',
    line: 12,
    symbol: 'describeShape',
    invalid: [
      ['1abc', 'is not an identifier in TypeScript or JavaScript'],
      ['describe-shape', 'is not an identifier in TypeScript or JavaScript'],
      ['a+b', 'is not an identifier'],
      // A function named `class` does not parse; tsserver computed `export function class(` (2026-12-08).
      ['class', 'is a reserved word in TypeScript and JavaScript, which only a property, method or enum member may be named, and the symbol is not one ("function describeShape(shape: Shape): string")'],
    ],
    valid: ['$größe_2', '_x'],
    taken: ['unit', 'src/shapes.ts:16'],
  },
  {
    fixture: 'py-rename',
    file: 'geo/shapes.py',
    line: 1,
    symbol: 'Circle',
    invalid: [['class', 'is a Python keyword'], ['None', 'is a Python keyword'], ['1abc', 'is not a Python identifier'], ['$x', 'is not a Python identifier']],
    valid: ['größe_2', 'match'],
    taken: ['describe_shape', 'geo/shapes.py:'],
  },
]

for (const c of cases) {
  describe(`lsp_rename with a new name that is no name (${c.fixture}, real server)`, () => {
    const suite = realSuite(c.fixture, { overlay: PATIENT_TYPESCRIPT, ...(c.prepare ? { prepare: c.prepare } : {}) })
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

    it("refuses what is no identifier of the file's language, writing nothing", async () => {
      const before = readFileSync(join(suite.dir, c.file), 'utf8')
      for (const [newName, why] of c.invalid) {
        for (const apply of [undefined, true]) {
          const result = await rename(newName, apply)
          expect(result.isError && result.error.code, newName).toBe('LSP_RENAME_REFUSED')
          expect(result.isError && result.error.message, newName).toContain(`newName ${JSON.stringify(newName)} ${why}`)
          expect(result.isError && result.error.message, newName).toContain('change newName')
        }
      }
      expect(readFileSync(join(suite.dir, c.file), 'utf8')).toBe(before)
      for (const newName of c.valid) expect(valueOf(await rename(newName)), newName).toMatchObject({ oldName: c.symbol, newName, applied: false })
    })

    it('says where the new name already stands in the files it changes', async () => {
      const [taken, place] = c.taken
      const result = await rename(taken)
      expect(valueOf(result).namedAlready?.map((p: any) => `${p.path}:${p.line}`).join(' '), taken).toContain(place)
      expect((result.content[0] as { text: string }).text).toContain(`(${JSON.stringify(taken)} is already a name at ${place}`)
      // A fresh name: no such line.
      const fresh = await rename(`${c.symbol}Fresh`)
      expect(valueOf(fresh).namedAlready).toBeUndefined()
      expect((fresh.content[0] as { text: string }).text).not.toContain('is already a name')
    })

    // A rename asked at a declaration of an installed package (found driving `dsh call lsp_rename` on
    // `node_modules/fake/index.d.ts`): tsserver renamed it there alone, `apply` wrote it, and the
    // answer read "No errors in the changed files after the rename" while the workspace's importer was
    // broken (and an install puts the package back). Refused; the file is untouched. Real tsserver.
    if (c.fixture === 'ts-rename') {
      describe('in an installed package (real tsserver)', () => {
        const renameAt = (args: Record<string, unknown>) => suite.host.app.tools.execute({ name: 'lsp_rename', arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })

        it('renames a method to a reserved word, which a member may be named', async () => {
          expect(valueOf(await renameAt({ filePath: 'src/shapes.ts', line: 2, symbol: 'area', newName: 'delete' }))).toMatchObject({ oldName: 'area', newName: 'delete', applied: false })
        })

        it('refuses an edit of node_modules, writing nothing', async () => {
          const declaration = join(suite.dir, 'node_modules', 'fake', 'index.d.ts')
          const before = readFileSync(declaration, 'utf8')
          for (const apply of [undefined, true]) {
            const result = await renameAt({ filePath: 'node_modules/fake/index.d.ts', line: 1, symbol: 'helper', newName: 'assist', ...(apply ? { apply } : {}) })
            expect(result.isError && result.error.code).toBe('LSP_RENAME_REFUSED')
            expect(result.isError && result.error.message).toContain('would edit an installed package (node_modules/fake/index.d.ts)')
          }
          expect(readFileSync(declaration, 'utf8')).toBe(before)
          // At its use in the workspace's code the rename is the importer's own (an alias): allowed.
          expect(valueOf(await renameAt({ filePath: 'src/uses-fake.ts', line: 2, symbol: 'helper', newName: 'assist' }))).toMatchObject({ oldName: 'helper', applied: false })
        })
      })
    }
  })
}

// gopls and clangd check a new name themselves, after accepting the symbol in prepareRename, and
// refuse it in `rename`: gopls `invalid identifier to rename: "func"` or `renaming this func "Area"
// to "main" conflicts with func in same block`, clangd `invalid name: the chosen name "return" is a
// keyword`. Our message said `the symbol at 6:14 cannot be renamed: go: language server error 0: …`,
// blaming the symbol, so a model would try another symbol rather than another name (found driving
// `dsh call lsp_rename` on both). A place that is no symbol is still the symbol's fault.
const checking: { server: string; fixture: Fixture; file: string; line: number; symbol: string; names: [string, string][]; noSymbol: { file: string; line: number; symbol: string } }[] = [
  {
    server: 'go',
    fixture: 'go-rename',
    file: 'main.go',
    line: 6,
    symbol: 'Area',
    names: [
      ['func', 'invalid identifier to rename: "func"'],
      ['2x', 'invalid identifier to rename: "2x"'],
      ['main', 'renaming this func "Area" to "main"'],
    ],
    noSymbol: { file: 'main.go', line: 1, symbol: 'package' },
  },
  {
    server: 'c',
    fixture: 'c-rename',
    file: 'shapes.h',
    line: 3,
    symbol: 'area',
    names: [
      ['return', 'invalid name: the chosen name "return" is a keyword'],
      ['2x', 'invalid name: the chosen name "2x" is not a valid identifier'],
    ],
    noSymbol: { file: 'main.c', line: 6, symbol: 'return' },
  },
]

for (const c of checking) {
  describe(`lsp_rename when ${c.server}'s server refuses the new name (real server)`, () => {
    const suite = realSuite(c.fixture, { overlay: PATIENT_GO_AND_C })
    const rename = (args: Record<string, unknown>) => suite.host.app.tools.execute({ name: 'lsp_rename', arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })

    it('says the new name is what to change, with the server\'s reason', async () => {
      for (const [newName, reason] of c.names) {
        const result = await rename({ filePath: c.file, line: c.line, symbol: c.symbol, newName })
        expect(result.isError && result.error.code, newName).toBe('LSP_RENAME_REFUSED')
        const message = result.isError ? result.error.message : ''
        expect(message, newName).toContain(`refused to rename the symbol at `)
        expect(message, newName).toContain(` to ${JSON.stringify(newName)}: ${reason}`)
        expect(message, newName).toContain('change newName')
        expect(message, newName).not.toContain('cannot be renamed')
        // The server's words once, not after `<server>: language server error <code>:` again.
        expect(message, newName).not.toContain(`${c.server}: language server error`)
      }
    })

    it('still blames the place when there is no symbol to rename', async () => {
      const result = await rename({ filePath: c.noSymbol.file, line: c.noSymbol.line, symbol: c.noSymbol.symbol, newName: 'renamed' })
      expect(result.isError && result.error.code).toBe('LSP_RENAME_REFUSED')
      expect(result.isError && result.error.message).toContain('cannot be renamed')
      expect(result.isError && result.error.message).not.toContain('change newName')
    })

    // gopls answers goToImplementation on a plain function with an error, `not a type name or method`,
    // and nothing told the model which operation answers for a function: it asked again the same way
    // (found driving `dsh call lsp`, 2026-12-07). The code stays LSP_SERVER_ERROR, with the server's
    // words and rpcCode; the message adds which operations fit. Here for the gopls already started.
    if (c.server === 'go') {
      describe('goToImplementation on what has no implementations (real gopls)', () => {
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
    }
  })
}
