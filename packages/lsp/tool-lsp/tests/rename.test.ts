import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { LspFileOperation, LspProvider, LspRenameResult } from 'dsh-lsp'
import { afterEach, describe, expect, it } from 'vitest'
import { planFileEdit } from '../src/rename-plan.ts'
import { boot, codeOf, range, textOf, type Harness } from './harness.ts'

// lsp_rename and lsp_calls against a provider on the seam's contract (issue 32 items 1 and 2): what
// real servers do not do on cue — file operations, an incomplete answer, a stale edit. The real
// servers are in tests/real/rename.test.ts.

let harness: Harness | undefined
afterEach(async () => {
  await harness?.stop()
  harness = undefined
})

const NO_HOVER = { kind: 'hover', hover: null, complete: true } as const

/** A provider whose rename answers `answer` (files named relative to the harness's workspace). */
function renamer(dir: string, answer: { files: Record<string, { line: number; character: number; length: number }[]>; fileOperations?: LspFileOperation[]; complete?: boolean }): LspProvider {
  const uri = (file: string) => pathToFileURL(join(dir, file)).href
  return {
    id: 'renamer',
    extensionToLanguage: { '.ts': 'typescript' },
    query: async () => NO_HOVER,
    rename: async (request): Promise<LspRenameResult> => ({
      kind: 'rename',
      resolvedWorkspaceUri: pathToFileURL(dir).href,
      oldName: 'old',
      files: Object.entries(answer.files).map(([file, edits]) => ({ uri: uri(file), edits: edits.map((edit) => ({ range: range(edit.line, edit.character, edit.character + edit.length), newText: request.newName })) })),
      fileOperations: answer.fileOperations ?? [],
      complete: answer.complete ?? true,
    }),
  }
}

function call(h: Harness, name: string, args: unknown) {
  return h.app.tools.execute({ name, arguments: args, session: h.session })
}

describe('lsp_rename', () => {
  it('is listed only while a provider offers rename', async () => {
    harness = await boot()
    expect(harness.app.tools.catalog().map((tool) => tool.name)).toEqual(['lsp'])
    const dispose = harness.app.lsp.registerProvider(renamer(harness.dir, { files: {} }))
    expect(harness.app.tools.catalog().map((tool) => tool.name)).toEqual(['lsp', 'lsp_rename'])
    dispose()
    expect(harness.app.tools.catalog().map((tool) => tool.name)).toEqual(['lsp'])
  })

  it('previews every changed line before and after, then applies them all', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'const old = 1\nexport { old }\n')
    writeFileSync(join(harness.dir, 'b.ts'), 'import { old } from "./a"\n')
    harness.app.lsp.registerProvider(renamer(harness.dir, { files: { 'a.ts': [{ line: 0, character: 6, length: 3 }, { line: 1, character: 9, length: 3 }], 'b.ts': [{ line: 0, character: 9, length: 3 }] } }))
    const preview = await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh' })
    expect(textOf(preview)).toBe(
      [
        'Rename "old" → "fresh": 3 edits in 2 files (preview; nothing written: call again with apply: true to write them).',
        'a.ts (2 edits)',
        '  1: - const old = 1',
        '     + const fresh = 1',
        '  2: - export { old }',
        '     + export { fresh }',
        'b.ts (1 edit)',
        '  1: - import { old } from "./a"',
        '     + import { fresh } from "./a"',
      ].join('\n'),
    )
    expect(readFileSync(join(harness.dir, 'a.ts'), 'utf8')).toBe('const old = 1\nexport { old }\n')
    const applied = await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh', apply: true })
    expect(applied.isError).toBe(false)
    expect(readFileSync(join(harness.dir, 'a.ts'), 'utf8')).toBe('const fresh = 1\nexport { fresh }\n')
    expect(readFileSync(join(harness.dir, 'b.ts'), 'utf8')).toBe('import { fresh } from "./a"\n')
  })

  it('refuses an edit that does not fit the file on disk (the server read another version), writing nothing', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'const old = 1\n')
    writeFileSync(join(harness.dir, 'b.ts'), '// a line the server never saw\nimport { old } from "./a"\n')
    harness.app.lsp.registerProvider(renamer(harness.dir, { files: { 'a.ts': [{ line: 0, character: 6, length: 3 }], 'b.ts': [{ line: 0, character: 9, length: 3 }] } }))
    for (const apply of [false, true]) {
      const result = await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh', apply })
      expect([codeOf(result), textOf(result)]).toEqual(['LSP_RENAME_CONFLICT', expect.stringContaining('b.ts')])
    }
    expect(readFileSync(join(harness.dir, 'a.ts'), 'utf8')).toBe('const old = 1\n')
  })

  it('refuses file operations, an edit outside the workspace and an incomplete answer, writing nothing', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'const old = 1\n')
    const dir = harness.dir
    const edit = { 'a.ts': [{ line: 0, character: 6, length: 3 }] }
    const cases: [Parameters<typeof renamer>[1], string][] = [
      [{ files: edit, fileOperations: [{ kind: 'rename', oldUri: pathToFileURL(join(dir, 'a.ts')).href, newUri: pathToFileURL(join(dir, 'fresh.ts')).href }] }, 'LSP_RENAME_FILE_OPERATION'],
      [{ files: { ...edit, '../elsewhere.ts': [{ line: 0, character: 0, length: 3 }] } }, 'LSP_RENAME_OUTSIDE_WORKSPACE'],
      [{ files: edit, complete: false }, 'LSP_RENAME_INCOMPLETE'],
    ]
    for (const [answer, code] of cases) {
      const dispose = harness.app.lsp.registerProvider(renamer(dir, answer))
      expect(codeOf(await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh', apply: true }))).toBe(code)
      dispose()
    }
    expect(readFileSync(join(dir, 'a.ts'), 'utf8')).toBe('const old = 1\n')
  })

  it('with rename.allowFileOperations, moves, creates and deletes files with the text edits, all through ctx.fs; edits named by the old name follow the move', async () => {
    harness = await boot({ rename: { allowFileOperations: true } })
    const dir = harness.dir
    const uri = (file: string) => pathToFileURL(join(dir, file)).href
    writeFileSync(join(dir, 'a.ts'), 'const old = 1\nexport { old }\n')
    writeFileSync(join(dir, 'b.ts'), 'import { old } from "./a"\n')
    writeFileSync(join(dir, 'gone.ts'), '// nothing left here\n')
    const fileOperations: LspFileOperation[] = [
      { kind: 'rename', oldUri: uri('a.ts'), newUri: uri('fresh.ts') },
      { kind: 'create', uri: uri('made.ts') },
      { kind: 'delete', uri: uri('gone.ts') },
    ]
    harness.app.lsp.registerProvider(renamer(dir, { files: { 'a.ts': [{ line: 0, character: 6, length: 3 }, { line: 1, character: 9, length: 3 }], 'b.ts': [{ line: 0, character: 9, length: 3 }] }, fileOperations }))
    const preview = await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh' })
    expect(textOf(preview)).toContain('also renames the file a.ts to fresh.ts')
    const applied = await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh', apply: true })
    expect(applied.isError).toBe(false)
    expect(readdirSync(dir).sort()).toEqual(['b.ts', 'fresh.ts', 'made.ts'])
    expect(readFileSync(join(dir, 'fresh.ts'), 'utf8')).toBe('const fresh = 1\nexport { fresh }\n')
    expect(readFileSync(join(dir, 'b.ts'), 'utf8')).toBe('import { fresh } from "./a"\n')
    expect(readFileSync(join(dir, 'made.ts'), 'utf8')).toBe('')
  })

  it('with rename.allowFileOperations, a move onto an existing file or out of the workspace is refused whole', async () => {
    harness = await boot({ rename: { allowFileOperations: true } })
    const dir = harness.dir
    const uri = (file: string) => pathToFileURL(join(dir, file)).href
    writeFileSync(join(dir, 'a.ts'), 'const old = 1\n')
    writeFileSync(join(dir, 'taken.ts'), '// here already\n')
    const edit = { 'a.ts': [{ line: 0, character: 6, length: 3 }] }
    const cases: [LspFileOperation, string][] = [
      [{ kind: 'rename', oldUri: uri('a.ts'), newUri: uri('taken.ts') }, 'LSP_RENAME_CONFLICT'],
      [{ kind: 'rename', oldUri: uri('a.ts'), newUri: uri('../elsewhere.ts') }, 'LSP_RENAME_OUTSIDE_WORKSPACE'],
      [{ kind: 'delete', uri: uri('missing.ts') }, 'LSP_RENAME_CONFLICT'],
    ]
    for (const [operation, code] of cases) {
      const dispose = harness.app.lsp.registerProvider(renamer(dir, { files: edit, fileOperations: [operation] }))
      expect(codeOf(await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'fresh', apply: true }))).toBe(code)
      dispose()
    }
    expect(readdirSync(dir).sort()).toEqual(['a.ts', 'taken.ts'])
    expect(readFileSync(join(dir, 'a.ts'), 'utf8')).toBe('const old = 1\n')
  })

  it('refuses a rename asked inside node_modules before the server is asked', async () => {
    harness = await boot()
    mkdirSync(join(harness.dir, 'node_modules', 'fake'), { recursive: true })
    writeFileSync(join(harness.dir, 'node_modules', 'fake', 'index.ts'), 'export function old() {}\n')
    let asked = 0
    const provider = renamer(harness.dir, { files: { 'node_modules/fake/index.ts': [{ line: 0, character: 16, length: 3 }] } })
    harness.app.lsp.registerProvider({ ...provider, rename: (request, bound) => (asked++, provider.rename!(request, bound)) })
    const result = await call(harness, 'lsp_rename', { filePath: 'node_modules/fake/index.ts', line: 1, character: 17, newName: 'fresh' })
    expect(codeOf(result)).toBe('LSP_RENAME_REFUSED')
    expect(result.isError && result.error.message).toContain('the rename would edit an installed package (node_modules/fake/index.ts)')
    // Asking cost tsserver 2-5 s, and the next query 2-3 s more (it rebuilt the workspace's project).
    expect(asked).toBe(0)
  })

  it('refuses an edit that names one file twice, by a symlink and by its target, writing nothing', async () => {
    harness = await boot()
    // Without the check the second name's edit still finds "old" at its range ("older" after the first) and is applied again.
    writeFileSync(join(harness.dir, 'a.ts'), 'const old = 1\n')
    symlinkSync('a.ts', join(harness.dir, 'alias.ts'))
    harness.app.lsp.registerProvider(renamer(harness.dir, { files: { 'a.ts': [{ line: 0, character: 6, length: 3 }], 'alias.ts': [{ line: 0, character: 6, length: 3 }] } }))
    const result = await call(harness, 'lsp_rename', { filePath: 'a.ts', line: 1, symbol: 'old', newName: 'older', apply: true })
    expect(codeOf(result)).toBe('LSP_RENAME_CONFLICT')
    expect(textOf(result)).toContain('names one file twice, as a.ts and alias.ts')
    expect(readFileSync(join(harness.dir, 'a.ts'), 'utf8')).toBe('const old = 1\n')
  })

  it('applies only what was previewed: a file changed since the preview is a conflict', async () => {
    harness = await boot()
    mkdirSync(join(harness.dir, 'src'))
    writeFileSync(join(harness.dir, 'src', 'a.ts'), 'const old = 1\n')
    harness.app.lsp.registerProvider(renamer(harness.dir, { files: { 'src/a.ts': [{ line: 0, character: 6, length: 3 }] } }))
    const args = { filePath: 'src/a.ts', line: 1, character: 7, newName: 'fresh' }
    expect((await call(harness, 'lsp_rename', args)).isError).toBe(false)
    writeFileSync(join(harness.dir, 'src', 'a.ts'), 'const old = 2\n')
    expect(codeOf(await call(harness, 'lsp_rename', { ...args, apply: true }))).toBe('LSP_RENAME_CONFLICT')
    expect(readFileSync(join(harness.dir, 'src', 'a.ts'), 'utf8')).toBe('const old = 2\n')
  })
})

describe('planFileEdit', () => {
  it('applies edits in order, and shows each changed line with its number after earlier edits added lines', () => {
    const plan = planFileEdit('a\nold\nold x\n', [
      { range: range(2, 0, 3), newText: 'new' },
      { range: range(0, 1, 1), newText: '\n// added\n' },
      { range: range(1, 0, 3), newText: 'new' },
    ], 'old')
    expect(plan).toEqual({
      ok: true,
      after: 'a\n// added\n\nnew\nnew x\n',
      edits: 3,
      lines: [
        { line: 1, before: 'a', after: 'a' },
        { line: 2, before: 'old', after: 'new' },
        { line: 3, before: 'old x', after: 'new x' },
      ],
    })
  })

  it('refuses ranges past the text, overlapping edits, and a range that does not hold the old name', () => {
    expect(planFileEdit('old\n', [{ range: range(3, 0, 3), newText: 'x' }], 'old')).toMatchObject({ ok: false, problem: expect.stringContaining('outside') })
    expect(planFileEdit('old old\n', [{ range: range(0, 0, 5), newText: 'x' }, { range: range(0, 4, 7), newText: 'y' }], '')).toMatchObject({ ok: false, problem: expect.stringContaining('overlap') })
    expect(planFileEdit('odd\n', [{ range: range(0, 0, 3), newText: 'x' }], 'old')).toMatchObject({ ok: false, problem: expect.stringContaining('"odd"') })
  })
})
