import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { callLsp, codingSuite, serversFor, valueOf } from './harness.ts'

/** TypeScript 7 (devDependency `typescript-7` of dsh-lsp-stdio), installed as the workspace's own `typescript`. */
function installTypescript7(dir: string): void {
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(realpathSync(fileURLToPath(new URL('../../node_modules/typescript-7', import.meta.url))), join(dir, 'node_modules', 'typescript'))
}

// The four describes below each have their own copy of the workspace and their own host, and most of
// their time is a language server starting or the hung case's budget running out: they run side by
// side (describe.concurrent), and the cases within each in order (it.sequential: a cold first query
// comes first, the killed server last).
// The coding preset's TypeScript row (`typescript: auto`) and the lsp tool, on the same project twice:
// with no TypeScript of its own (typescript-language-server 5.3 over the TypeScript 5.9 installed
// beside dsh) and with TypeScript 7 in its node_modules (TypeScript 7's own server, tsc --lsp --stdio).
describe.concurrent.each([
  { server: 'tsserver', label: 'tsserver 5.9.3: typescript-language-server', prepare: undefined },
  { server: 'native', label: 'native 7.0.2: ', prepare: installTypescript7 },
])('lsp on a TypeScript project (real $server server)', ({ label, prepare }) => {
  const suite = codingSuite('ts-project', undefined, prepare)
  const { workspace } = suite
  const session = () => suite.session()

  it.sequential('answers the very first query of a cold server from the loaded project (readiness wait)', async () => {
    // `new Circle(2)` in main.ts: a cold server that answers too early points at the import line.
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 }))
    expect(value.complete).toBe(true)
    expect(value.locations.map((l: any) => l.path)).toContain('src/shapes.ts')
    const target = value.locations.find((l: any) => l.path === 'src/shapes.ts')
    expect(target.range.start.line).toBe(4)
    expect(target.lineText).toContain('class Circle')
  })

  it.sequential('names the server it chose in dsh status', async () => {
    await callLsp(suite.host, session(), { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 })
    const row = (await suite.host.app.readiness.report()).find((candidate) => candidate.surface === 'lsp' && candidate.id === 'typescript')
    // A server may start new work right after answering: then the row is indexing, and names the server inside.
    expect(row).toMatchObject({ state: expect.stringMatching(/^(ready|indexing)$/), detail: expect.stringContaining(label) })
  })

  it.sequential('counts columns in UTF-16 units after non-BMP characters', async () => {
    // Line 5 holds two emoji (two UTF-16 units each) before `describe`, at UTF-16 column 41.
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'goToDefinition', filePath: 'src/main.ts', line: 5, character: 41 }))
    const target = value.locations.find((l: any) => l.path === 'src/shapes.ts')
    expect(target?.range.start.line).toBe(11)
  })

  it.sequential('follows a symbol into a .d.ts declaration', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'goToDefinition', filePath: 'src/main.ts', line: 6, character: 26 }))
    expect(value.locations.map((l: any) => l.path)).toContain('src/legacy.d.ts')
  })

  it.sequential('finds references including the declaration', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'findReferences', filePath: 'src/shapes.ts', line: 12, character: 17 }))
    const paths = value.locations.map((l: any) => `${l.path}:${l.range.start.line + 1}`)
    expect(paths).toContain('src/shapes.ts:12')
    expect(paths).toContain('src/main.ts:5')
  })

  it.sequential('finds implementations of an interface', async () => {
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'goToImplementation', filePath: 'src/shapes.ts', line: 1, character: 18 }))
    expect(value.locations.map((l: any) => `${l.path}:${l.range.start.line + 1}`)).toContain('src/shapes.ts:5')
  })

  it.sequential('hovers with the type of the symbol', async () => {
    const result = await callLsp(suite.host, session(), { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 })
    const value = valueOf(result)
    expect(value.hover.contents).toContain('Circle')
    expect(result.content[0]?.text).toContain('Circle')
  })

  it.sequential('renders locations relative to the workspace with the source line', async () => {
    const result = await callLsp(suite.host, session(), { operation: 'findReferences', filePath: 'src/shapes.ts', line: 12, character: 17 })
    expect(result.content[0]?.text).toMatch(/^src\/shapes\.ts:12:17 {2}export function describe/m)
  })

  it.sequential('works through a symlinked workspace and reports the canonical one', async () => {
    const alias = `${workspace.dir}-alias`
    symlinkSync(workspace.dir, alias)
    const aliased = suite.session(alias)
    const value = valueOf(await callLsp(suite.host, aliased, { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 }))
    expect(value.resolvedWorkspaceUri).toBe(pathToFileURL(workspace.dir).href)
    expect(value.locations.map((l: any) => l.path)).toContain('src/shapes.ts')
  })

  it.sequential('refuses a file outside the workspace with a code, starting nothing for it', async () => {
    const outside = join(workspace.dir, '..', 'outside.ts')
    writeFileSync(outside, 'export const x = 1\n')
    const result = await callLsp(suite.host, session(), { operation: 'hover', filePath: outside, line: 1, character: 14 })
    expect(result.isError && result.error.code).toBe('LSP_SOURCE_OUTSIDE_WORKSPACE')
    const escape = await callLsp(suite.host, session(), { operation: 'hover', filePath: '../outside.ts', line: 1, character: 14 })
    expect(escape.isError && escape.error.code).toBe('LSP_SOURCE_OUTSIDE_WORKSPACE')
  })

  it.sequential('replaces a server killed between two queries', async () => {
    const before = await serversFor(workspace.dir)
    expect(before.length).toBeGreaterThan(0)
    for (const pid of before) process.kill(pid, 'SIGKILL')
    const value = valueOf(await callLsp(suite.host, session(), { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 }))
    expect(value.hover.contents).toContain('Circle')
    const after = await serversFor(workspace.dir)
    expect(after.some((pid) => before.includes(pid))).toBe(false)
  })
})

describe.concurrent('a hung real server is cut off by the tool budget', () => {
  // The hung call waits out the whole budget: 2.5 s (it was 20 s, then 5 s: an idle wait in every
  // run). It only has to cover the in-process steps before the request to a warm server, and the
  // last call below, to a warm replacement: milliseconds each. Only a request the frozen server
  // was sent is cancelled and, unanswered, ends that server: the replacement below proves it got there.
  const suite = codingSuite('ts-project', ['- id: tool-lsp', '  config: { timeoutMs: 2500 }', '- id: lsp-stdio', '  config: { servers: { typescript: { killGraceMs: 300 } } }', ''].join('\n'))
  const { workspace } = suite

  it.sequential('times the query out, replaces the server, and answers the next query', async () => {
    const session = suite.session()
    // Warm up without the tool's short budget: a cold start on a busy machine can take longer than it.
    await suite.host.app.lsp.query({ operation: 'hover', filePath: 'src/main.ts', position: { line: 3, character: 19 }, workspaceRoot: workspace.dir })
    // SIGSTOP makes the real server hang exactly as a wedged one would: it reads nothing, answers nothing.
    const frozen = await serversFor(workspace.dir)
    for (const pid of frozen) process.kill(pid, 'SIGSTOP')
    const hung = await callLsp(suite.host, session, { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 })
    expect(hung.isError && hung.error.code).toBe('TOOL_TIMEOUT')
    // The replacement's cold start is not under test either: wait for it without the tool's budget.
    await suite.host.app.lsp.query({ operation: 'goToDefinition', filePath: 'src/main.ts', position: { line: 3, character: 19 }, workspaceRoot: workspace.dir })
    const value = valueOf(await callLsp(suite.host, session, { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 }))
    expect(value.locations.map((l: any) => l.path)).toContain('src/shapes.ts')
    const live = await serversFor(workspace.dir)
    expect(live.some((pid) => frozen.includes(pid))).toBe(false)
  })
})

// TypeScript 7's server keeps the documents it is asked about open (it answers pulled diagnostics):
// an edit on disk between two queries must still reach it, read at the next query or told by fileChanged.
describe.concurrent('TypeScript 7 keeps query documents open and still sees edits on disk (real native server)', () => {
  const suite = codingSuite('ts-project', undefined, installTypescript7)
  const main = join(suite.workspace.dir, 'src', 'main.ts')
  const hoverOfCircle = async () => {
    const value = valueOf(await callLsp(suite.host, suite.session(), { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }))
    return value.hover.contents as string
  }

  it.sequential('answers from the edited text, whether the next query reads it or fileChanged tells it', async () => {
    expect(await hoverOfCircle()).toMatch(/const circle: Circle/)
    writeFileSync(main, readFileSync(main, 'utf8').replace('new Circle(2)', '40 + 2'))
    expect(await hoverOfCircle()).toMatch(/const circle: number/)
    writeFileSync(main, readFileSync(main, 'utf8').replace('40 + 2', "'round'"))
    suite.host.app.lsp.fileChanged(main, { session: suite.session() })
    expect(await hoverOfCircle()).toMatch(/const circle: "round"|const circle: string/)
    // The document stayed open on the one server: the answer came from a change, not a second server.
    expect(await serversFor(suite.workspace.dir)).toHaveLength(1)
  })
})
