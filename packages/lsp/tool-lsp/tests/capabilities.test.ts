import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createUserMessage, Lifetime, type Session, type ToolResult } from 'dsh-core'
import { LspError, type LspDiagnostic, type LspDiagnosticsResult, type LspDocumentSymbol, type LspProvider, type LspWorkspaceSymbolsResult } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DiagnosticsValue } from '../src/diagnostics-value.ts'
import { boot, codeOf, range, textOf, untilAborted, type Harness } from './harness.ts'

// lsp_diagnostics, lsp_symbols and the automatic-diagnostics pre-step (issue 22), against a real
// host with providers on the seam's contract. The real language servers are in tests/real/.

let harness: Harness | undefined
afterEach(async () => {
  await harness?.stop()
  harness = undefined
})

const NO_HOVER = { kind: 'hover', hover: null, complete: true } as const

function problem(message: string, severity: LspDiagnostic['severity'] = 'error', line = 1, more: Partial<LspDiagnostic> = {}): LspDiagnostic {
  return { range: range(line, 2, 5), severity, code: 2322, source: 'ts', message, related: [], ...more }
}

interface Script {
  diagnostics?: (filePath: string) => Promise<Omit<LspDiagnosticsResult, 'uri' | 'resolvedWorkspaceUri' | 'kind'>>
  outline?: readonly LspDocumentSymbol[]
  workspace?: () => Promise<LspWorkspaceSymbolsResult>
}

/** A provider offering the capabilities the script has answers for; `uri` is the file in `dir`. */
function provider(dir: string, script: Script, id = 'scripted', extensionToLanguage: Record<string, string> = { '.ts': 'typescript' }): LspProvider & { diagnosticsCalls: string[] } {
  const workspaceUri = pathToFileURL(dir).href
  const uriOf = (filePath: string) => pathToFileURL(resolve(dir, filePath)).href
  const diagnosticsCalls: string[] = []
  return {
    id,
    extensionToLanguage,
    diagnosticsCalls,
    query: async () => NO_HOVER,
    ...(script.diagnostics
      ? {
          diagnostics: async (request) => {
            diagnosticsCalls.push(request.filePath)
            return { kind: 'diagnostics' as const, uri: uriOf(request.filePath), resolvedWorkspaceUri: workspaceUri, ...(await script.diagnostics!(request.filePath)) }
          },
        }
      : {}),
    ...(script.outline ? { documentSymbols: async (request) => ({ kind: 'documentSymbols' as const, uri: uriOf(request.filePath), resolvedWorkspaceUri: workspaceUri, symbols: script.outline!, complete: true }) } : {}),
    ...(script.workspace ? { workspaceSymbols: () => script.workspace!() } : {}),
  }
}

/** One call in the harness's session, or in none with `session: null`. */
function call(h: Harness, name: string, args: unknown, session: Session | null = h.session): Promise<ToolResult> {
  return h.app.tools.execute({ name, arguments: args, ...(session ? { session } : {}) })
}

function names(h: Harness): string[] {
  return h.app.tools.catalog().map((tool) => tool.name)
}

describe('the tools are listed only while a provider offers their capability', () => {
  it('no provider, or one with navigation only: just lsp; each capability adds its tool, and unloading it takes the tool away', async () => {
    harness = await boot()
    expect(names(harness)).toEqual(['lsp'])
    harness.app.lsp.registerProvider({ id: 'nav', extensionToLanguage: { '.rs': 'rust' }, query: async () => NO_HOVER })
    expect(names(harness)).toEqual(['lsp'])
    let changes = 0
    harness.app.on('tools/change', () => changes++)
    const withDiagnostics = harness.app.lsp.registerProvider(provider(harness.dir, { diagnostics: async () => ({ items: [], complete: true }) }))
    expect(names(harness)).toEqual(['lsp', 'lsp_diagnostics'])
    const withSymbols = harness.app.lsp.registerProvider(provider(harness.dir, { workspace: async () => ({ kind: 'workspaceSymbols', resolvedWorkspaceUri: 'file:///', symbols: [], complete: true }) }, 'py', { '.py': 'python' }))
    expect(names(harness)).toEqual(['lsp', 'lsp_diagnostics', 'lsp_symbols'])
    withDiagnostics()
    expect(names(harness)).toEqual(['lsp', 'lsp_symbols'])
    withSymbols()
    expect(names(harness)).toEqual(['lsp'])
    expect(changes).toBe(4)
  })
})

describe('lsp_diagnostics', () => {
  it('its value, built by typed code from the checked provider result, is not checked again against the output schema (checkOutput: false; issue 27 item 2)', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'b.ts'), 'export const x: string = 1\n')
    harness.app.lsp.registerProvider(provider(harness.dir, { diagnostics: async () => ({ items: [problem('wrong', 'error', 0)], complete: true }) }))
    const checks = vi.spyOn(DiagnosticsValue, 'safeParse')
    try {
      const result = await call(harness, 'lsp_diagnostics', { filePath: 'b.ts' })
      expect(result.isError).toBe(false)
      expect(Object.isFrozen(result.isError ? undefined : result.value)).toBe(true)
      expect(checks).not.toHaveBeenCalled()
      // The provider's answer is still checked: a malformed one is refused.
      harness.app.lsp.registerProvider(provider(harness.dir, { diagnostics: async () => ({ items: [{ ...problem('bad'), range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } } }], complete: true }) }, 'malformed', { '.js': 'javascript' }))
      writeFileSync(join(harness.dir, 'c.js'), 'x\n')
      expect(codeOf(await call(harness, 'lsp_diagnostics', { filePath: 'c.js' }))).toBe('LSP_MALFORMED_RESPONSE')
    } finally {
      checks.mockRestore()
    }
  })

  it('problems at or above warning by default, most severe first, one-based, with the source line; the rest counted by severity', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'b.ts'), "import { area } from './a.js'\n  export const x: string = area(2)\nconst y = 1\n")
    const items = [
      problem('unused', 'hint', 2, { code: 6133 }),
      problem('deprecated', 'warning', 2, { code: 'deprecated', source: 'eslint' }),
      problem("Type 'number' is not assignable to type 'string'.\n  more detail", 'error', 1, {
        related: [{ uri: pathToFileURL(join(harness.dir, 'a.ts')).href, range: range(0, 16), message: 'area is declared here' }],
      }),
      { range: range(0, 2, 5), severity: 'information' as const, message: 'note', related: [] },
    ]
    harness.app.lsp.registerProvider(provider(harness.dir, { diagnostics: async () => ({ items, complete: true }) }))
    const result = await call(harness, 'lsp_diagnostics', { filePath: 'b.ts' })
    expect(textOf(result)).toBe(
      [
        'b.ts: 1 error, 1 warning',
        "b.ts:2:3  error ts(2322): Type 'number' is not assignable to type 'string'.",
        '      more detail',
        '    | export const x: string = area(2)',
        '    see a.ts:1:17: area is declared here',
        'b.ts:3:3  warning eslint(deprecated): deprecated',
        '    | const y = 1',
        '(not shown, below warning: 1 information, 1 hint; pass severity "hint" to see them)',
      ].join('\n'),
    )
    const value = result.isError ? undefined : (result.value as any)
    expect(value).toMatchObject({ kind: 'diagnostics', path: 'b.ts', severity: 'warning', counts: { error: 1, warning: 1, information: 1, hint: 1 }, total: 2, truncated: false, complete: true })
    expect(value.items[0].range).toEqual(range(1, 2, 5))

    const all = await call(harness, 'lsp_diagnostics', { filePath: 'b.ts', severity: 'hint' })
    expect(textOf(all).split('\n')[0]).toBe('b.ts: 1 error, 1 warning, 1 information, 1 hint')
    expect(textOf(all)).toContain('b.ts:1:3  information: note')
  })

  it('caps the items at maxDiagnostics with a count of the rest; none at all says so; an unsettled answer says so', async () => {
    harness = await boot({ maxDiagnostics: 2 })
    writeFileSync(join(harness.dir, 'b.ts'), 'x\n')
    let items = [problem('one'), problem('two'), problem('three')]
    let complete = true
    harness.app.lsp.registerProvider(provider(harness.dir, { diagnostics: async () => ({ items, complete }) }))
    const capped = await call(harness, 'lsp_diagnostics', { filePath: 'b.ts' })
    expect(textOf(capped)).toContain('\u2026 1 more diagnostic omitted (limit 2).')
    expect((capped as any).value).toMatchObject({ total: 3, truncated: true })
    items = []
    complete = false
    expect(textOf(await call(harness, 'lsp_diagnostics', { filePath: 'b.ts' }))).toBe(
      'No errors or warnings in b.ts.\n(the language server had not finished with this file: problems may be missing; ask again in a moment)',
    )
    expect(textOf(await call(harness, 'lsp_diagnostics', { filePath: 'b.ts', severity: 'hint' }))).toContain('No diagnostics in b.ts.')
  })

  it('a server that does not answer within timeoutMs: TOOL_TIMEOUT saying what it had not answered and what to do, as lsp says', async () => {
    harness = await boot({ timeoutMs: 50 })
    const signalOf = (bound: unknown) => (bound instanceof Lifetime ? bound.signal : (bound as AbortSignal | undefined))
    harness.app.lsp.registerProvider({
      id: 'silent',
      extensionToLanguage: { '.ts': 'typescript' },
      query: async () => NO_HOVER,
      diagnostics: (_request, bound) => untilAborted(signalOf(bound)),
      documentSymbols: (_request, bound) => untilAborted(signalOf(bound)),
    })
    // They said only "tool call timed out after 50 ms".
    for (const [name, args, asked] of [
      ['lsp_diagnostics', { filePath: 'a.ts' }, 'the diagnostics of a.ts'],
      ['lsp_symbols', { filePath: 'a.ts' }, 'the outline of a.ts'],
    ] as const) {
      const result = await call(harness, name, args)
      expect(codeOf(result), name).toBe('TOOL_TIMEOUT')
      expect(result.isError && result.error.message, name).toMatch(new RegExp(`^tool call timed out after 50 ms: the language server had not answered ${asked} by then \\(.*raise tool-lsp's timeoutMs$`))
    }
  })

  it('coded failures: no session, a bad severity, a malformed provider answer, a file no provider serves', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(provider(harness.dir, { diagnostics: async () => ({ items: [{ severity: 'fatal' } as never], complete: true }) }))
    expect(codeOf(await call(harness, 'lsp_diagnostics', { filePath: 'b.ts' }, null))).toBe('LSP_WORKSPACE_REQUIRED')
    expect(codeOf(await call(harness, 'lsp_diagnostics', { filePath: 'b.ts', severity: 'fatal' }))).toBe('INVALID_ARGS')
    expect(codeOf(await call(harness, 'lsp_diagnostics', { filePath: '  ' }))).toBe('INVALID_ARGS')
    expect(codeOf(await call(harness, 'lsp_diagnostics', { filePath: 'b.ts' }))).toBe('LSP_MALFORMED_RESPONSE')
    expect(codeOf(await call(harness, 'lsp_diagnostics', { filePath: 'b.rs' }))).toBe('LSP_UNAVAILABLE')
  })
})

describe('lsp_symbols', () => {
  const member = (name: string, kind: LspDocumentSymbol['kind'], line: number, children: LspDocumentSymbol[] = []): LspDocumentSymbol => ({ name, kind, range: { start: { line, character: 0 }, end: { line: line + 2, character: 1 } }, selectionRange: range(line, 6, 6 + name.length), children })

  it('an outline: members nested, kinds as words, one-based positions at the name, the depth and count caps', async () => {
    harness = await boot({ maxSymbolDepth: 2, maxSymbols: 5 })
    const outline = [
      member('Circle', 'class', 4, [member('radius', 'property', 5), member('area', 'method', 7, [member('inner', 'variable', 8)]), member('T', 'typeParameter', 4)]),
      member('Color', 'enum', 12, [member('Red', 'enumMember', 13)]),
      member('main', 'function', 20),
    ]
    harness.app.lsp.registerProvider(provider(harness.dir, { outline }))
    const result = await call(harness, 'lsp_symbols', { filePath: 'shapes.ts' })
    expect(textOf(result)).toBe(
      [
        'shapes.ts: 3 top-level symbols, 8 in all',
        'class Circle  5:7  (lines 5-7)',
        '  property radius  6:7  (lines 6-8)',
        '  method area  8:7  (lines 8-10)',
        '  type parameter T  5:7  (lines 5-7)',
        'enum Color  13:7  (lines 13-15)',
        '\u2026 more symbols omitted (limits: 5 symbols, 2 levels).',
      ].join('\n'),
    )
    expect((result as any).value).toMatchObject({ kind: 'outline', path: 'shapes.ts', total: 8, truncated: true })
  })

  it('a workspace search: every server’s matches with the source line, the count cap, and the servers that did not answer', async () => {
    harness = await boot({ maxSymbols: 2 })
    writeFileSync(join(harness.dir, 'a.ts'), 'export function area(r: number) {}\n')
    const uri = pathToFileURL(join(harness.dir, 'a.ts')).href
    harness.app.lsp.registerProvider(
      provider(harness.dir, {
        workspace: async () => ({
          kind: 'workspaceSymbols',
          resolvedWorkspaceUri: pathToFileURL(harness!.dir).href,
          complete: true,
          symbols: [
            { name: 'area', kind: 'function', uri, range: range(0, 16, 20) },
            { name: 'areaOf', kind: 'method', uri, range: range(0, 0), containerName: 'Shape' },
            { name: 'areas', kind: 'variable', uri, range: range(0, 0) },
          ],
        }),
      }),
    )
    harness.app.lsp.registerProvider(
      provider(
        harness.dir,
        {
          workspace: async () => {
            throw new LspError('pyright-langserver not found', 'LSP_UNAVAILABLE')
          },
        },
        'python',
        { '.py': 'python' },
      ),
    )
    const result = await call(harness, 'lsp_symbols', { query: 'area' })
    expect(textOf(result)).toBe(
      [
        '3 symbols match "area":',
        'function area  a.ts:1:17  export function area(r: number) {}',
        'method areaOf (in Shape)  a.ts:1:1  export function area(r: number) {}',
        '\u2026 1 more symbol omitted (limit 2); a longer query narrows the list.',
        '(python did not answer: LSP_UNAVAILABLE: pyright-langserver not found)',
        '(the language server was still indexing; results may be incomplete)',
      ].join('\n'),
    )
  })

  it('exactly one of filePath and query; a provider without outlines is LSP_UNSUPPORTED_OPERATION', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(provider(harness.dir, { workspace: async () => ({ kind: 'workspaceSymbols', resolvedWorkspaceUri: 'file:///', symbols: [], complete: true }) }))
    expect(codeOf(await call(harness, 'lsp_symbols', {}))).toBe('INVALID_ARGS')
    expect(codeOf(await call(harness, 'lsp_symbols', { filePath: 'a.ts', query: 'a' }))).toBe('INVALID_ARGS')
    expect(codeOf(await call(harness, 'lsp_symbols', { query: '  ' }))).toBe('INVALID_ARGS')
    expect(codeOf(await call(harness, 'lsp_symbols', { filePath: 'a.ts' }))).toBe('LSP_UNSUPPORTED_OPERATION')
    expect(textOf(await call(harness, 'lsp_symbols', { query: 'zz' }))).toBe('No symbols match "zz".')
  })
})

describe('automatic diagnostics (autoDiagnostics.enabled)', () => {
  const userMessage = () => [createUserMessage('go on', { kind: 'user' })]

  async function step(h: Harness, session: Session = h.session): Promise<string[]> {
    const decision = await h.app.sessions.runPreStep(session, userMessage())
    if (decision.kind !== 'enter') throw new Error('rejected')
    return decision.messages.filter((message) => message.source.kind === 'lsp-diagnostics').map((message) => message.content.map((block) => block.text).join(''))
  }

  it('the next step gets the new errors of the files the session changed, once; a fixed error that comes back is new again', async () => {
    harness = await boot({ autoDiagnostics: { enabled: true } })
    const h = harness
    writeFileSync(join(h.dir, 'b.ts'), 'line one\nconst x: string = 1\n')
    let items: LspDiagnostic[] = [problem("Type 'number' is not assignable to type 'string'."), problem('just a warning', 'warning')]
    const scripted = provider(h.dir, { diagnostics: async () => ({ items, complete: true }) })
    h.app.lsp.registerProvider(scripted)
    const other = h.app.sessions.create({ cwd: h.dir })

    expect(await step(h)).toEqual([])
    h.app.lsp.fileChanged('b.ts', { session: h.session })
    h.app.lsp.fileChanged(join(h.dir, 'b.ts'))
    expect(await step(h, other)).toEqual([])
    expect(await step(h)).toEqual([
      [
        'New errors reported by the language server in the files changed since the last step:',
        "b.ts:2:3  error ts(2322): Type 'number' is not assignable to type 'string'.",
        '    | const x: string = 1',
      ].join('\n'),
    ])
    expect(await step(h)).toEqual([])
    h.app.lsp.fileChanged('b.ts', { session: h.session })
    expect(await step(h)).toEqual([])
    items = []
    h.app.lsp.fileChanged('b.ts', { session: h.session })
    expect(await step(h)).toEqual([])
    items = [problem("Type 'number' is not assignable to type 'string'.")]
    h.app.lsp.fileChanged('b.ts', { session: h.session })
    expect((await step(h))[0]).toContain("error ts(2322): Type 'number'")
    expect(scripted.diagnosticsCalls).toHaveLength(4)
    const logged = h.session.events.filter((event) => event.type === 'user/message' && (event.data as any).source.kind === 'lsp-diagnostics')
    expect(logged).toHaveLength(2)
  })

  it('bounded: maxFiles checked, maxItems shown; files nobody serves and deleted files are skipped; a failure is named', async () => {
    harness = await boot({ autoDiagnostics: { enabled: true, maxFiles: 2, maxItems: 1 } })
    const h = harness
    h.app.lsp.registerProvider(
      provider(h.dir, {
        diagnostics: async (filePath) => {
          if (filePath.endsWith('slow.ts')) throw new LspError('no answer', 'LSP_TIMEOUT')
          return { items: [problem('first'), problem('second', 'error', 3)], complete: true }
        },
      }),
    )
    for (const name of ['README.md', 'gone.ts', 'slow.ts', 'a.ts', 'b.ts']) h.app.lsp.fileChanged(name, { session: h.session, ...(name === 'gone.ts' ? { kind: 'deleted' as const } : {}) })
    const [text] = await step(h)
    expect(text!.split('\n')).toEqual([
      'New errors reported by the language server in the files changed since the last step:',
      'a.ts:2:3  error ts(2322): first',
      '\u2026 1 more new problem not shown (limit 1); lsp_diagnostics lists a file\u2019s problems.'.replace('\u2019', "'"),
      `(not checked: ${join(h.dir, 'slow.ts')} (LSP_TIMEOUT: no answer))`,
      '(1 more changed file not checked (limit 2))',
    ])
  })

  it('off by default: no pre-step link, nothing checked', async () => {
    harness = await boot()
    const scripted = provider(harness.dir, { diagnostics: async () => ({ items: [problem('x')], complete: true }) })
    harness.app.lsp.registerProvider(scripted)
    harness.app.lsp.fileChanged('b.ts', { session: harness.session })
    expect(await step(harness)).toEqual([])
    expect(scripted.diagnosticsCalls).toEqual([])
  })
})
