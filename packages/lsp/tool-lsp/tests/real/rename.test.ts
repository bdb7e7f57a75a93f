import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ToolResult } from 'dsh-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BareLspClient } from '../../../../../bench/bare-lsp-client.ts'
import { TYPESCRIPT_7_COMPILER } from '../../../../../bench/typescript-7.ts'
import { realSuite, valueOf, type Fixture } from './harness.ts'

// lsp_rename and lsp_calls (issue 32 items 1 and 2) against the real servers: a symbol used across
// three files renamed, previewed then applied, the project clean after (lsp_diagnostics), the
// edit identical to what a bare vscode-jsonrpc client gets from its own instance of the same
// server; a file changed between preview and apply refused with nothing written; (TypeScript) an
// edit reaching outside the workspace through a symlink refused whole; incoming and outgoing calls
// identical to the bare client's call hierarchy.

const REPO = fileURLToPath(new URL('../../../../../', import.meta.url))

/** The budgets here are failure guards for a busy machine, never pass conditions. */
const OVERLAY = `
- id: lsp-stdio
  config:
    catalog: [typescript, python, go, c]
    servers:
      typescript: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
      python: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
      go: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
      c: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`

function installTypescript7(dir: string): void {
  const lspStdio = join(REPO, 'packages/lsp/lsp-stdio/package.json')
  const typescript7 = dirname(createRequire(lspStdio).resolve('typescript-7/package.json'))
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(realpathSync(typescript7), join(dir, 'node_modules', 'typescript'))
}

/**
 * A file outside the workspace that uses `unit` from shapes.ts, reached through the symlink
 * src/vendor, and imported by src/uses-vendor.ts: renaming `unit` must touch it.
 */
function linkOutside(dir: string): void {
  const outside = join(dir, '..', 'outside')
  mkdirSync(outside)
  writeFileSync(join(outside, 'units.ts'), `import { unit } from ${JSON.stringify(join(dir, 'src', 'shapes'))}\nexport const label: string = unit\n`)
  symlinkSync(outside, join(dir, 'src', 'vendor'))
  writeFileSync(join(dir, 'src', 'uses-vendor.ts'), "import { label } from './vendor/units'\nexport const shown: string = label\n")
}

interface Case {
  readonly server: string
  readonly fixture: Fixture
  readonly prepare?: (dir: string) => void
  readonly bare: { readonly executable: string; readonly args: readonly string[]; readonly languageId: string }
  /** Where the rename and the call hierarchy are asked. */
  readonly file: string
  readonly line: number
  readonly symbol: string
  readonly newName: string
  /** The files the rename changes, as the tool shows them. */
  readonly files: readonly string[]
  /** A file of the edit other than `file`, changed between preview and apply. */
  readonly changed: string
  /** A function with callers and callees: its callers (incoming) and callees (outgoing) by name. */
  readonly calls: { readonly file: string; readonly line: number; readonly symbol: string; readonly incoming: readonly string[]; readonly outgoing?: readonly string[] }
  readonly outsideCase?: boolean
  /** A keyword: a place the server refuses to rename. */
  readonly keyword: { readonly file: string; readonly line: number; readonly symbol: string }
}

const typescript = {
  fixture: 'ts-rename',
  // At the declaration: asked at an imported use, TypeScript renames the import locally (`describeShape as describeForm`).
  file: 'src/shapes.ts',
  line: 12,
  symbol: 'describeShape',
  newName: 'describeForm',
  files: ['src/main.ts', 'src/report.ts', 'src/shapes.ts'],
  changed: 'src/report.ts',
  calls: { file: 'src/report.ts', line: 3, symbol: 'report', incoming: ['summary'], outgoing: ['describeShape', 'map'] },
  outsideCase: true,
  keyword: { file: 'src/shapes.ts', line: 8, symbol: 'return' },
} as const

const CASES: readonly Case[] = [
  {
    server: 'typescript-language-server over tsserver 5.9',
    ...typescript,
    prepare: linkOutside,
    bare: { executable: join(REPO, 'node_modules/.bin/typescript-language-server'), args: ['--stdio'], languageId: 'typescript' },
  },
  {
    server: "TypeScript 7's own server",
    ...typescript,
    prepare: (dir) => {
      installTypescript7(dir)
      linkOutside(dir)
    },
    bare: { executable: TYPESCRIPT_7_COMPILER, args: ['--lsp', '--stdio'], languageId: 'typescript' },
  },
  {
    server: 'pyright',
    fixture: 'py-rename',
    bare: { executable: join(REPO, 'node_modules/.bin/pyright-langserver'), args: ['--stdio'], languageId: 'python' },
    file: 'geo/main.py',
    line: 5,
    symbol: 'describe_shape',
    newName: 'describe_form',
    files: ['geo/main.py', 'geo/report.py', 'geo/shapes.py'],
    changed: 'geo/report.py',
    keyword: { file: 'geo/main.py', line: 1, symbol: 'from' },
    calls: { file: 'geo/report.py', line: 4, symbol: 'report', incoming: ['summary'], outgoing: ['describe_shape'] },
  },
  {
    server: 'gopls',
    fixture: 'go-rename',
    bare: { executable: '/usr/bin/gopls', args: [], languageId: 'go' },
    file: 'main.go',
    line: 6,
    symbol: 'Area',
    newName: 'Surface',
    files: ['main.go', 'report.go', 'shapes.go'],
    changed: 'report.go',
    keyword: { file: 'main.go', line: 1, symbol: 'package' },
    calls: { file: 'report.go', line: 5, symbol: 'report', incoming: ['main'], outgoing: ['Area', 'Sprintf'] },
  },
  {
    server: 'clangd',
    fixture: 'c-rename',
    prepare: (dir) => {
      const entry = (file: string) => ({ directory: dir, file: join(dir, file), arguments: ['cc', '-c', file] })
      writeFileSync(join(dir, 'compile_commands.json'), JSON.stringify([entry('shapes.c'), entry('main.c')]))
    },
    bare: { executable: '/usr/bin/clangd', args: ['--log=error'], languageId: 'c' },
    file: 'shapes.h',
    line: 3,
    symbol: 'area',
    newName: 'surface',
    files: ['main.c', 'shapes.c', 'shapes.h'],
    changed: 'main.c',
    keyword: { file: 'main.c', line: 6, symbol: 'return' },
    // clangd 14 answers incoming calls only (outgoing came in clangd 20).
    calls: { file: 'shapes.c', line: 3, symbol: 'area', incoming: ['main'] },
  },
]

const rangeKey = (range: any) => `${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`

const sortedEdits = (files: { uri: string; edits: { range: unknown; newText: string }[] }[]) =>
  files.map((file) => ({ uri: file.uri, edits: [...file.edits].sort((a, b) => rangeKey(a.range).localeCompare(rangeKey(b.range))) })).sort((a, b) => a.uri.localeCompare(b.uri))

/** A bare client's WorkspaceEdit in the seam's shape (changes, or documentChanges' text edits). */
function bareFiles(edit: any): { uri: string; edits: { range: unknown; newText: string }[] }[] {
  if (Array.isArray(edit?.documentChanges)) return edit.documentChanges.filter((change: any) => change.textDocument).map((change: any) => ({ uri: change.textDocument.uri, edits: change.edits.map((e: any) => ({ range: e.range, newText: e.newText })) }))
  return Object.entries(edit?.changes ?? {}).map(([uri, edits]: [string, any]) => ({ uri, edits: edits.map((e: any) => ({ range: e.range, newText: e.newText })) }))
}

// The servers' describes run side by side (each its own workspace copy, host, server and bare
// client; most of their time is a server starting and indexing), their cases in order.
describe.concurrent.each(CASES)('lsp_rename and lsp_calls: $server', (c) => {
  const suite = realSuite(c.fixture, { overlay: OVERLAY, ...(c.prepare ? { prepare: c.prepare } : {}) })
  let bare: BareLspClient
  const read = (file: string) => readFileSync(join(suite.dir, file), 'utf8')
  const call = (name: string, args: Record<string, unknown>): Promise<ToolResult> => suite.host.app.tools.execute({ name, arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
  const rename = (apply?: boolean) => call('lsp_rename', { filePath: c.file, line: c.line, symbol: c.symbol, newName: c.newName, ...(apply === undefined ? {} : { apply }) })

  beforeAll(async () => {
    bare = new BareLspClient(c.bare.executable, c.bare.args, suite.dir, { refactor: true })
    await bare.initialize()
  })
  afterAll(() => bare?.close())

  it.sequential.each(['incoming', 'outgoing'] as const)('%s calls match a bare client\'s call hierarchy', async (direction) => {
    const expected = c.calls[direction]
    if (!expected) return
    const value = valueOf(await call('lsp_calls', { filePath: c.calls.file, line: c.calls.line, symbol: c.calls.symbol, direction }))
    expect(value.roots.map((root: any) => root.name)).toEqual([c.calls.symbol])
    const names = value.roots[0].calls.map((edge: any) => edge.name).sort()
    for (const name of expected) expect(names).toContain(name)
    const position = { line: value.at.line - 1, character: value.at.character - 1 }
    const answer = await bare.calls(c.calls.file, c.bare.languageId, position.line, position.character, direction)
    const key = (edge: any) => {
      const item = direction === 'incoming' ? edge.from : edge.to
      return `${item.name} ${item.uri}:${item.selectionRange.start.line}:${item.selectionRange.start.character} ${edge.fromRanges.map(rangeKey).join(',')}`
    }
    const ours = (await suite.host.app.lsp.callHierarchy({ filePath: c.calls.file, position, direction, depth: 1, maxCalls: 1000, workspaceRoot: suite.dir })).roots[0]!.calls
    expect(ours.map((edge) => `${edge.item.name} ${edge.item.uri}:${edge.item.selectionRange.start.line}:${edge.item.selectionRange.start.character} ${edge.fromRanges.map(rangeKey).join(',')}`).sort()).toEqual(answer[0]!.calls.map(key).sort())
  })

  it.sequential('previews a rename across three files, with the edits a bare client gets, and writes nothing', async () => {
    const before = c.files.map(read)
    const value = valueOf(await rename())
    expect(value.applied).toBe(false)
    expect(value.files.map((file: any) => file.path).sort()).toEqual([...c.files])
    expect(value.oldName).toBe(c.symbol)
    for (const file of value.files) for (const line of file.lines) expect(line.after).toContain(c.newName)
    expect(c.files.map(read)).toEqual(before)

    const text = (await rename()).content[0]
    expect(text).toMatchObject({ type: 'text' })
    const position = { line: value.at.line - 1, character: value.at.character - 1 }
    await bare.waitQuiet(240_000)
    const edit = await bare.rename(c.file, c.bare.languageId, position.line, position.character, c.newName, true)
    const ours = (await suite.host.app.lsp.rename({ filePath: c.file, position, newName: c.newName, workspaceRoot: suite.dir })).files
    expect(sortedEdits(ours as any)).toEqual(sortedEdits(bareFiles(edit)))
  })

  it.runIf(c.fixture === 'py-rename').sequential('pyright\'s "not accessed" hints arrive: the client declares diagnostic tag support (issue 32 item 5)', async () => {
    writeFileSync(join(suite.dir, 'geo', 'unused.py'), 'import os\n\n\ndef f() -> int:\n    x = 1\n    return 2\n')
    const value = valueOf(await call('lsp_diagnostics', { filePath: 'geo/unused.py', severity: 'hint' }))
    expect(value.complete).toBe(true)
    expect(value.items.map((item: any) => `${item.range.start.line + 1} ${item.severity} ${item.message}`)).toEqual(expect.arrayContaining(['1 hint "os" is not accessed', '5 hint "x" is not accessed']))
  })

  it.sequential('refuses, coded, a place the server says cannot be renamed (a keyword)', async () => {
    const result = await call('lsp_rename', { filePath: c.keyword.file, line: c.keyword.line, symbol: c.keyword.symbol, newName: 'renamed' })
    expect(result.isError && result.error.code).toBe('LSP_RENAME_REFUSED')
  })

  it.sequential('refuses to apply when a file changed since the preview, and writes nothing', async () => {
    valueOf(await rename())
    const changed = `// changed after the preview\n${read(c.changed)}`
    writeFileSync(join(suite.dir, c.changed), changed)
    const before = c.files.map(read)
    try {
      const result = await rename(true)
      expect(result.isError && result.error.code).toBe('LSP_RENAME_CONFLICT')
      expect(c.files.map(read)).toEqual(before)
    } finally {
      writeFileSync(join(suite.dir, c.changed), changed.slice(changed.indexOf('\n') + 1))
      suite.host.app.lsp.fileChanged(join(suite.dir, c.changed))
    }
  })

  it.sequential('applies the rename: every use renamed, and the project type-checks after', async () => {
    valueOf(await rename())
    const value = valueOf(await rename(true))
    expect(value.applied).toBe(true)
    expect(value.files.map((file: any) => file.path).sort()).toEqual([...c.files])
    for (const file of c.files) {
      expect(read(file)).toContain(c.newName)
      expect(read(file)).not.toMatch(new RegExp(`\\b${c.symbol}\\b`))
    }
    expect(value.diagnostics.map((file: any) => [file.path, file.errors])).toEqual(value.files.map((file: any) => [file.path, 0]))
    for (const file of c.files) {
      const diagnostics = valueOf(await call('lsp_diagnostics', { filePath: file, severity: 'error' }))
      expect([file, diagnostics.counts.error]).toEqual([file, 0])
    }
  })

  it.runIf(c.outsideCase === true).sequential('refuses whole a rename whose edit reaches outside the workspace through a symlink', async () => {
    const shapes = read('src/shapes.ts')
    const outside = readFileSync(join(suite.dir, '..', 'outside', 'units.ts'), 'utf8')
    const line = shapes.split('\n').findIndex((text) => text.includes('export const unit')) + 1
    for (const apply of [false, true]) {
      const result = await call('lsp_rename', { filePath: 'src/shapes.ts', line, symbol: 'unit', newName: 'measure', apply })
      expect(result.isError && result.error.code).toBe('LSP_RENAME_OUTSIDE_WORKSPACE')
    }
    expect([read('src/shapes.ts'), readFileSync(join(suite.dir, '..', 'outside', 'units.ts'), 'utf8')]).toEqual([shapes, outside])
  })

})
