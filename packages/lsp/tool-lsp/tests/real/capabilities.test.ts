import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createUserMessage, type Session, type ToolResult } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { installTypescript7, realSuite, valueOf, type Fixture } from './harness.ts'

// lsp_diagnostics, lsp_symbols and automatic diagnostics against the real servers of the coding
// preset (issue 22). Diagnostics come both ways: TypeScript 7's own server answers
// `textDocument/diagnostic` (pull); typescript-language-server (tsserver 5.9) publishes them without
// versions and pyright publishes them with versions (push) — pyright offers pull only to clients
// that register capabilities dynamically, which this one does not.

/** The budgets here are failure guards for a busy machine, never pass conditions. */
const OVERLAY = `
- id: lsp-stdio
  config:
    servers:
      typescript: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
      python: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
    autoDiagnostics: { enabled: true, timeoutMs: 600000 }
`

interface Facts {
  readonly fixture: Fixture
  readonly prepare?: (dir: string) => void
  readonly main: string
  readonly shapes: string
  /** main, with a type error on its line 4 (after two emoji), at the first `errorAt`. */
  readonly breakMain: (text: string) => string
  readonly errorAt: string
  /** shapes, with `describe`'s return type changed so that main's line 4 no longer type-checks. */
  readonly breakShapes: (text: string) => string
  readonly members: readonly string[]
  /** A symbol after two emoji on its line of shapes, and that line (one-based). */
  readonly astralSymbol: string
  readonly astralLine: number
  /** A function of shapes, and its line (one-based). */
  readonly describe: string
  readonly describeLine: number
}

const typescript = {
  fixture: 'ts-capabilities',
  main: 'src/main.ts',
  shapes: 'src/shapes.ts',
  breakMain: (text: string) => text.replace('text: string', 'text: number'),
  errorAt: 'text',
  breakShapes: (text: string) => text.replace('describeShape(shape: Shape): string { return `area ${shape.area()}` }', 'describeShape(shape: Shape): number { return shape.area() }'),
  members: ['area', 'diameter'],
  astralSymbol: 'describeShape',
  astralLine: 17,
  describe: 'describeShape',
  describeLine: 17,
} as const satisfies Facts

const servers: (Facts & { readonly server: string })[] = [
  { server: 'typescript-language-server over tsserver 5.9 (publishes, no versions)', ...typescript },
  { server: "TypeScript 7's own server (pull)", ...typescript, prepare: installTypescript7 },
  {
    server: 'pyright (publishes, with versions)',
    fixture: 'py-capabilities',
    main: 'geo/main.py',
    shapes: 'geo/shapes.py',
    breakMain: (text) => text.replace('text: str', 'text: int'),
    errorAt: 'describe_shape',
    breakShapes: (text) => text.replace('def describe_shape(shape: Circle) -> str:\n    return f"area {shape.area()}"', 'def describe_shape(shape: Circle) -> int:\n    return 1'),
    members: ['area', 'diameter'],
    astralSymbol: 'counter',
    astralLine: 16,
    describe: 'describe_shape',
    describeLine: 19,
  },
]

// The servers' describes run side by side (each its own workspace copy, host and server; most of
// their time is a server starting and publishing), the cases within each in order.
describe.concurrent.each(servers)('lsp_diagnostics and lsp_symbols on a real server: $server', (facts) => {
  const suite = realSuite(facts.fixture, { overlay: OVERLAY, ...(facts.prepare ? { prepare: facts.prepare } : {}) })
  const path = (file: string) => join(suite.dir, file)
  const original = (file: string) => readFileSync(path(file), 'utf8')
  let session: Session | undefined
  const sessionOf = () => (session ??= suite.host.app.sessions.create({ cwd: suite.dir }))
  const call = (name: string, args: Record<string, unknown>): Promise<ToolResult> => suite.host.app.tools.execute({ name, arguments: args, session: sessionOf() })
  /** What a file-writing tool does: write, then tell the seam (inside the session). */
  const write = (file: string, text: string) => {
    writeFileSync(path(file), text)
    suite.host.app.lsp.fileChanged(file, { session: sessionOf() })
  }
  const diagnosticsOf = async (file: string) => valueOf(await call('lsp_diagnostics', { filePath: file }))
  /** One-based UTF-16 column of `needle` on the one-based line of the file's current text. */
  const columnOf = (file: string, line: number, needle: string) => original(file).split('\n')[line - 1]!.indexOf(needle) + 1

  it.sequential('a type error introduced by changing a file is reported where it is (after astral characters), and gone once fixed', async () => {
    const clean = original(facts.main)
    const before = await diagnosticsOf(facts.main)
    expect(before).toMatchObject({ complete: true, total: 0, counts: { error: 0 } })

    write(facts.main, facts.breakMain(clean))
    const broken = await call('lsp_diagnostics', { filePath: facts.main })
    const value = valueOf(broken)
    expect(value.complete).toBe(true)
    expect(value.items).toHaveLength(1)
    const [error] = value.items
    const column = columnOf(facts.main, 4, facts.errorAt)
    expect(error).toMatchObject({ severity: 'error', range: { start: { line: 3, character: column - 1 } } })
    expect(error.lineText).toContain(facts.errorAt)
    expect((broken.content[0] as { text: string }).text).toContain(`${facts.main}:4:${column}  error`)

    write(facts.main, clean)
    expect(await diagnosticsOf(facts.main)).toMatchObject({ complete: true, total: 0 })
  })

  it.sequential('a change to another file, told through fileChanged, shows in the file that uses it', async () => {
    const clean = original(facts.shapes)
    write(facts.shapes, facts.breakShapes(clean))
    const broken = await diagnosticsOf(facts.main)
    expect(broken.items.map((item: { severity: string; range: { start: { line: number } } }) => [item.severity, item.range.start.line + 1])).toEqual([['error', 4]])
    write(facts.shapes, clean)
    expect(await diagnosticsOf(facts.main)).toMatchObject({ complete: true, total: 0 })
  })

  it.sequential('automatic diagnostics: the next model step gets the new error of a changed file, once', async () => {
    const step = async () => {
      const decision = await suite.host.app.sessions.runPreStep(sessionOf(), [createUserMessage('next', { kind: 'user' })])
      if (decision.kind !== 'enter') throw new Error('the pre-step rejected the step')
      return decision.messages.filter((message) => message.source.kind === 'lsp-diagnostics').map((message) => message.content.map((block) => block.text).join(''))
    }
    const clean = original(facts.main)
    write(facts.main, facts.breakMain(clean))
    const [text] = await step()
    expect(text).toContain(`${facts.main}:4:${columnOf(facts.main, 4, facts.errorAt)}  error`)
    expect(await step()).toEqual([])
    write(facts.main, clean)
    expect(await step()).toEqual([])
  })

  it.sequential('outlines a class with its members nested under it, at one-based UTF-16 positions (after astral characters too)', async () => {
    const result = await call('lsp_symbols', { filePath: facts.shapes })
    const value = valueOf(result)
    const circle = value.symbols.find((symbol: { name: string }) => symbol.name === 'Circle')
    expect(circle).toMatchObject({ kind: 'class', selectionRange: { start: { line: facts.fixture === 'ts-capabilities' ? 4 : 3 } } })
    const members = circle.children.map((child: { name: string }) => child.name)
    for (const member of facts.members) expect(members).toContain(member)
    expect(circle.children.find((child: { name: string }) => child.name === 'area')).toMatchObject({ kind: 'method' })
    const text = (result.content[0] as { text: string }).text
    expect(text).toMatch(/^class Circle {2}\d+:\d+/m)
    expect(text).toMatch(/^ {2}method area {2}\d+:\d+/m)

    const astral = value.symbols.find((symbol: { name: string }) => symbol.name === facts.astralSymbol)
    expect(astral.selectionRange.start).toEqual({ line: facts.astralLine - 1, character: columnOf(facts.shapes, facts.astralLine, facts.astralSymbol) - 1 })
  })

  it.sequential('a workspace query finds a symbol in another file than the one it opened, with its source line', async () => {
    const value = valueOf(await call('lsp_symbols', { query: facts.describe }))
    const match = value.symbols.find((symbol: { name: string }) => symbol.name === facts.describe)
    expect(match).toMatchObject({ kind: 'function', path: facts.shapes, range: { start: { line: facts.describeLine - 1 } } })
    expect(match.lineText).toContain(facts.describe)
    expect(value.unanswered).toEqual([])
  })
})
