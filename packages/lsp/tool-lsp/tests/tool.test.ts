import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FileSystem } from 'dsh-core'
import { CallProofs, LspError, SETTLE_MS, type LspQueryResult } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { LspToolValue } from '../src/output.ts'
import { boot, codeOf, locations, range, scriptedProvider, textOf, untilAborted, type Harness } from './harness.ts'

// Reference checklist (reference/lsp.md §6.8) items 169, 170–172 and 193–209, adapted: argument
// checks are the runtime's zod validation (INVALID_ARGS), the value is bounded and carries line text.

const OPERATIONS = ['goToDefinition', 'findReferences', 'goToImplementation', 'hover'] as const
const NO_HOVER: LspQueryResult = { kind: 'hover', hover: null, complete: true }

let harness: Harness | undefined
const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  vi.restoreAllMocks()
  await harness?.stop()
  harness = undefined
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function start(config: Record<string, unknown> = {}, options: { abandonAfterMs?: number } = {}): Promise<Harness> {
  harness = await boot(config, options)
  return harness
}

async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'tool-lsp-outside-')))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const url = (path: string) => pathToFileURL(path).href

/** The files line text opened from now on, in order, whichever way ctx.fs read them (streamed, or whole to be kept). */
function fileReads(): () => string[] {
  const streamed = vi.spyOn(FileSystem.prototype, 'streamContainedText')
  const whole = vi.spyOn(FileSystem.prototype, 'readContainedText')
  return () =>
    [...streamed.mock.calls.map(([, path], index) => ({ path, order: streamed.mock.invocationCallOrder[index]! })), ...whole.mock.calls.map(([, path], index) => ({ path, order: whole.mock.invocationCallOrder[index]! }))]
      .sort((a, b) => a.order - b.order)
      .map((read) => read.path)
}

describe('arguments', () => {
  it('169: every operation converts one-based arguments to a zero-based seam position', async () => {
    const h = await start()
    const provider = scriptedProvider(async (request) =>
      request.operation === 'hover' ? NO_HOVER : locations(url(h.dir), []),
    )
    h.app.lsp.registerProvider(provider)
    for (const operation of OPERATIONS) {
      const result = await h.call({ operation, filePath: 'a.ts', line: 3, character: 5 })
      expect(result.isError, operation).toBe(false)
    }
    expect(provider.calls.map((c) => [c.request.operation, c.request.position])).toEqual(
      OPERATIONS.map((operation) => [operation, { line: 2, character: 4 }]),
    )
  })

  it('170–172, 207: bad arguments are INVALID_ARGS naming the field, and never reach the provider', async () => {
    const h = await start()
    const provider = scriptedProvider(NO_HOVER)
    h.app.lsp.registerProvider(provider)
    const good = { operation: 'hover', filePath: 'a.ts', line: 1, character: 1 }
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, operation: 'rename' }, 'operation'],
      [{ ...good, filePath: '' }, 'filePath'],
      [{ ...good, filePath: '   ' }, 'filePath'],
      [{ ...good, line: 0 }, 'line'],
      [{ ...good, character: 0 }, 'character'],
      [{ ...good, line: 1.5 }, 'line'],
      [{ ...good, character: -3 }, 'character'],
      [{ ...good, line: '3' }, 'line'],
      [{ operation: 'hover', line: 1, character: 1 }, 'filePath'],
      [{ operation: 'hover', filePath: 'a.ts', character: 1 }, 'line'],
      [{ filePath: 'a.ts', line: 1, character: 1 }, 'operation'],
      [{ ...good, file_path: 'a.ts' }, 'file_path'],
      [{ operation: 'hover', filePath: 'a.ts', line: 1 }, 'character'],
      [{ ...good, occurrence: 2 }, 'occurrence'],
      [{ ...good, symbol: '' }, 'symbol'],
      [{ ...good, symbol: 'shape area' }, 'symbol'],
      [{ ...good, symbol: '\ud800' }, 'symbol'],
      [{ ...good, symbol: 'x'.repeat(201) }, 'symbol'],
      [{ ...good, symbol: 'x', occurrence: 0 }, 'occurrence'],
    ]
    for (const [args, field] of cases) {
      const result = await h.call(args)
      expect(codeOf(result), JSON.stringify(args)).toBe('INVALID_ARGS')
      expect(textOf(result), JSON.stringify(args)).toContain(field)
    }
    expect(provider.calls).toEqual([])
  })

  it('198: the provider gets the path verbatim, the position and the session workspace', async () => {
    const h = await start()
    const provider = scriptedProvider(locations(url(h.dir), []))
    h.app.lsp.registerProvider(provider)
    await h.call({ operation: 'goToDefinition', filePath: 'src/../a.ts', line: 3, character: 5 })
    expect(provider.calls[0]?.request).toEqual({
      operation: 'goToDefinition',
      filePath: 'src/../a.ts',
      position: { line: 2, character: 4 },
      workspaceRoot: h.dir,
      languageId: 'typescript',
      // The call's proofs, made for that workspace (shared with the line text).
      proofs: expect.objectContaining({ workspaceRoot: h.dir }),
    })
    expect(provider.calls[0]?.request.proofs).toBeInstanceOf(CallProofs)
  })
})

describe('registration', () => {
  it('193, 195: the tool is listed with its schema, and the guidance section is registered', async () => {
    const h = await start()
    const entry = h.app.tools.catalog().find((tool) => tool.name === 'lsp')
    expect(entry).toBeDefined()
    for (const operation of OPERATIONS) expect(entry!.description).toContain(operation)
    const properties = entry!.parameters.properties as Record<string, Record<string, unknown>>
    expect(properties.operation?.enum).toEqual([...OPERATIONS])
    expect(entry!.parameters.required).toEqual(['operation', 'filePath', 'line'])
    for (const field of ['operation', 'filePath', 'line', 'character', 'symbol', 'occurrence']) expect(properties[field]?.description, field).toBeTruthy()
    expect(entry!.description).toMatch(/Always pass symbol/)
    const section = h.app.tools.sections().find((s) => s.name === 'tool:lsp')
    expect(section?.order).toBe(112)
    expect(section?.text).toMatch(/one-based/)
    expect(section?.text).toMatch(/findReferences includes the declaration/)
    expect(section?.text).toMatch(/indexing/)
    expect(section?.text).toMatch(/Always pass symbol when you know the name/)
    expect(section?.text).toMatch(/occurrence/)
    expect(h.app.tools.get('lsp')?.surface).toBe('lsp')
  })

  it('194: timeoutMs defaults to 60000 and follows the config', async () => {
    expect((await start()).app.tools.get('lsp')?.timeoutMs).toBe(60_000)
    await harness!.stop()
    expect((await start({ timeoutMs: 5000 })).app.tools.get('lsp')?.timeoutMs).toBe(5000)
  })

  it('is listed with no provider registered, and then fails with LSP_UNAVAILABLE', async () => {
    const h = await start()
    expect(h.app.lsp.routing()).toEqual([])
    expect(h.app.tools.catalog().map((tool) => tool.name)).toContain('lsp')
    expect(codeOf(await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 }))).toBe('LSP_UNAVAILABLE')
  })
})

describe('locations', () => {
  it('199: a successful call renders the location and returns the bounded value', async () => {
    const h = await start()
    const answer = locations(url(h.dir), [{ uri: url(join(h.dir, 'a.ts')), line: 0, character: 0 }])
    h.app.lsp.registerProvider(scriptedProvider(answer))
    const result = await h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 })
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'a.ts:1:1' }],
      value: {
        kind: 'locations',
        resolvedWorkspaceUri: url(h.dir),
        complete: true,
        total: 1,
        truncated: false,
        locations: [{ uri: url(join(h.dir, 'a.ts')), path: 'a.ts', range: range(0, 0) }],
      },
    })
  })

  it('the value, built by typed code from the checked provider result, is not checked again against the output schema (checkOutput: false; issue 27 item 2)', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri: url(join(h.dir, 'a.ts')), line: 0, character: 0 }])))
    const checks = vi.spyOn(LspToolValue, 'safeParse')
    const result = await h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 })
    expect(result.isError).toBe(false)
    expect(Object.isFrozen(result.isError ? undefined : result.value)).toBe(true)
    expect(checks).not.toHaveBeenCalled()
  })

  it('200 (bounded): past maxLocations the value keeps the first ones, with total and truncated', async () => {
    const h = await start({ maxLocations: 2 })
    const items = [0, 1, 2, 3, 4].map((line) => ({ uri: url(join(h.dir, 'a.ts')), line, character: 0 }))
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), items)))
    const result = await h.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 1 })
    expect(result.isError).toBe(false)
    expect(textOf(result)).toBe('a.ts:1:1\na.ts:2:1\n\u2026 3 more locations omitted (limit 2).')
    expect(result.isError === false && result.value).toMatchObject({ total: 5, truncated: true, locations: [{ range: range(0, 0) }, { range: range(1, 0) }] })
    expect(result.isError === false && (result.value as { locations: unknown[] }).locations).toHaveLength(2)
  })

  it('carries the source line for a file inside the workspace, not for one outside it', async () => {
    const h = await start()
    await mkdir(join(h.dir, 'src'))
    await writeFile(join(h.dir, 'src', 'a.ts'), 'import x from "y"\n\n    export function describe(shape: Shape) {\r\n  return 1\n}\n')
    const outside = await tempDir()
    await writeFile(join(outside, 'lib.d.ts'), 'declare const secret: string\n')
    const answer = locations(url(h.dir), [
      { uri: url(join(h.dir, 'src', 'a.ts')), line: 2, character: 20 },
      { uri: url(join(outside, 'lib.d.ts')), line: 0, character: 14 },
      { uri: url(join(h.dir, 'src', 'a.ts')), line: 3, character: 2 },
      { uri: url(join(h.dir, 'missing.ts')), line: 0, character: 0 },
    ])
    h.app.lsp.registerProvider(scriptedProvider(answer))
    const result = await h.call({ operation: 'findReferences', filePath: 'src/a.ts', line: 3, character: 21 })
    expect(textOf(result)).toBe(
      [
        'src/a.ts:3:21  export function describe(shape: Shape) {',
        'src/a.ts:4:3  return 1',
        `${join(outside, 'lib.d.ts')}:1:15`,
        'missing.ts:1:1',
      ].join('\n'),
    )
    const value = result.isError ? undefined : (result.value as { locations: { lineText?: string }[] })
    expect(value?.locations.map((l) => l.lineText)).toEqual(['export function describe(shape: Shape) {', undefined, 'return 1', undefined])
  })

  it('reads no line text through a symlink that leaves the workspace', async () => {
    const h = await start()
    const outside = await tempDir()
    await writeFile(join(outside, 'secret.ts'), 'const token = "hunter2"\n')
    await symlink(outside, join(h.dir, 'linked'))
    const uri = url(join(h.dir, 'linked', 'secret.ts'))
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri, line: 0, character: 6 }])))
    const result = await h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 })
    expect(textOf(result)).toBe('linked/secret.ts:1:7')
    expect(textOf(result)).not.toContain('hunter2')
  })

  it('skips line text for lines past maxLineFileBytes and binary files, and cuts long lines to lineTextChars', async () => {
    const h = await start({ maxLineFileBytes: 1000, lineTextChars: 12 })
    await writeFile(join(h.dir, 'big.ts'), `const big = 1\n${'x'.repeat(2000)}\n`)
    await writeFile(join(h.dir, 'bin.ts'), Buffer.from([0x63, 0x6f, 0x00, 0x6e, 0x0a]))
    await writeFile(join(h.dir, 'long.ts'), `   const aVeryLongName = 1\n`)
    const answer = locations(url(h.dir), [
      { uri: url(join(h.dir, 'big.ts')), line: 1, character: 0 },
      { uri: url(join(h.dir, 'bin.ts')), line: 0, character: 0 },
      { uri: url(join(h.dir, 'long.ts')), line: 0, character: 9 },
    ])
    h.app.lsp.registerProvider(scriptedProvider(answer))
    const result = await h.call({ operation: 'findReferences', filePath: 'big.ts', line: 1, character: 7 })
    expect(result.isError).toBe(false)
    expect(textOf(result)).toBe('big.ts:2:1\nbin.ts:1:1\nlong.ts:1:10  const aVery\u2026')
  })

  it('gives line text for lines ending within maxLineFileBytes though the chunk holding them runs past it', async () => {
    const h = await start({ maxLineFileBytes: 100_000 })
    // 300 kB, read in 64 KiB chunks: the bound falls inside the second chunk, 10 kB after line 9001 ends.
    const text = `${'// filler\n'.repeat(9000)}export const target = 1\n${'// filler\n'.repeat(21_000)}`
    for (const name of ['near.ts', 'far.ts']) await writeFile(join(h.dir, name), text)
    const items = [
      { uri: url(join(h.dir, 'near.ts')), line: 9000, character: 13 },
      // Line 12001 ends 120 kB in: past the bound, so that file gets no line text.
      { uri: url(join(h.dir, 'far.ts')), line: 12_000, character: 3 },
    ]
    const opened = fileReads()
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), items)))
    const result = await h.call({ operation: 'findReferences', filePath: 'near.ts', line: 1, character: 1 })
    expect(textOf(result)).toBe('near.ts:9001:14  export const target = 1\nfar.ts:12001:4')
    expect(opened()).toEqual([join(h.dir, 'near.ts'), join(h.dir, 'far.ts')])
  })

  it('stops reading line text once the call has read lineTextBudgetBytes, across files', async () => {
    const h = await start({ lineTextBudgetBytes: 150_000 })
    // Each file's wanted line lies 100 kB in: the first read fits the budget, the second would not.
    for (const name of ['one.ts', 'two.ts', 'three.ts']) await writeFile(join(h.dir, name), `${'// filler\n'.repeat(10_000)}const ${name[0]} = 1\n`)
    const items = ['one.ts', 'two.ts', 'three.ts'].map((name) => ({ uri: url(join(h.dir, name)), line: 10_000, character: 6 }))
    const opened = fileReads()
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), items)))
    const result = await h.call({ operation: 'findReferences', filePath: 'one.ts', line: 1, character: 1 })
    expect(textOf(result)).toBe(['one.ts:10001:7  const o = 1', 'two.ts:10001:7', 'three.ts:10001:7'].join('\n'))
    // The third file was never opened: the budget was spent on the first two.
    expect(opened()).toEqual([join(h.dir, 'one.ts'), join(h.dir, 'two.ts')])
  })

  it('lineTextChars 0 turns line text and its reads off', async () => {
    const h = await start({ lineTextChars: 0 })
    await writeFile(join(h.dir, 'a.ts'), 'const a = 1\n')
    const streamText = vi.spyOn(FileSystem.prototype, 'streamContainedText')
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri: url(join(h.dir, 'a.ts')), line: 0, character: 6 }])))
    expect(textOf(await h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 7 }))).toBe('a.ts:1:7')
    expect(streamText).not.toHaveBeenCalled()
  })

  it('reads each file once per call, however many locations point into it', async () => {
    const h = await start()
    await writeFile(join(h.dir, 'a.ts'), Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n'))
    await writeFile(join(h.dir, 'b.ts'), 'only\n')
    await symlink(join(h.dir, 'a.ts'), join(h.dir, 'alias.ts'))
    const items = [
      ...[40, 2, 7, 2].map((line) => ({ uri: url(join(h.dir, 'a.ts')), line, character: 0 })),
      { uri: url(join(h.dir, 'b.ts')), line: 0, character: 0 },
      { uri: url(join(h.dir, 'alias.ts')), line: 9, character: 0 },
    ]
    const opened = fileReads()
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), items)))
    const result = await h.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 1 })
    expect(textOf(result)).toBe(
      ['a.ts:41:1  line 40', 'a.ts:3:1  line 2', 'a.ts:8:1  line 7', 'a.ts:3:1  line 2', 'b.ts:1:1  only', 'alias.ts:10:1  line 9'].join('\n'),
    )
    expect(opened().sort()).toEqual([join(h.dir, 'a.ts'), join(h.dir, 'b.ts')])
  })

  it('parses the workspace URI once per call and each location’s URI once, however many locations share it (issue 27 item 2)', async () => {
    const h = await start({ lineTextChars: 0 })
    const items = [...[0, 1, 2].map((line) => ({ uri: url(join(h.dir, 'a.ts')), line, character: 0 })), { uri: url(join(h.dir, 'b.ts')), line: 0, character: 0 }]
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), items)))
    const Original = globalThis.URL
    const parsed: string[] = []
    vi.stubGlobal(
      'URL',
      class extends Original {
        constructor(input: string | URL, base?: string | URL) {
          super(input, base)
          parsed.push(String(input))
        }
      },
    )
    let result
    try {
      result = await h.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 1 })
    } finally {
      vi.unstubAllGlobals()
    }
    expect(textOf(result)).toBe(['a.ts:1:1', 'a.ts:2:1', 'a.ts:3:1', 'b.ts:1:1'].join('\n'))
    // Before: two parses per location (its URI and the workspace's), eight here.
    expect(parsed.sort()).toEqual([url(h.dir), url(join(h.dir, 'a.ts')), url(join(h.dir, 'b.ts'))].sort())
  })

  it('line text is read afresh on every call: a file rewritten between two calls (same size, same moment) shows its new line', async () => {
    const h = await start()
    await writeFile(join(h.dir, 'a.ts'), 'export const one = 1\n')
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri: url(join(h.dir, 'a.ts')), line: 0, character: 0 }])))
    const call = () => h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 })
    expect(textOf(await call())).toBe('a.ts:1:1  export const one = 1')
    await writeFile(join(h.dir, 'a.ts'), 'export const two = 2\n')
    expect(textOf(await call())).toBe('a.ts:1:1  export const two = 2')
    // Replaced by another file under the same name (an editor's atomic save).
    await writeFile(join(h.dir, 'a.ts.tmp'), 'export const six = 6\n')
    await rename(join(h.dir, 'a.ts.tmp'), join(h.dir, 'a.ts'))
    expect(textOf(await call())).toBe('a.ts:1:1  export const six = 6')
  })

  it('an unchanged file’s line text is read once across calls; a change is read at the next call (issue 27 item 2)', async () => {
    const h = await start()
    await writeFile(join(h.dir, 'a.ts'), 'export const one = 1\n')
    // A file changed within SETTLE_MS could repeat its times: it is kept only once it has stood still that long.
    await clockPastSettle(SETTLE_MS)
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri: url(join(h.dir, 'a.ts')), line: 0, character: 0 }])))
    const call = () => h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 })
    const opened = fileReads()
    for (let i = 0; i < 3; i++) expect(textOf(await call())).toBe('a.ts:1:1  export const one = 1')
    expect(opened()).toEqual([join(h.dir, 'a.ts')])
    await writeFile(join(h.dir, 'a.ts'), 'export const two = 2\n')
    expect(textOf(await call())).toBe('a.ts:1:1  export const two = 2')
    expect(opened()).toHaveLength(2)
  })

  it('201: relativises against the provider’s workspace URI, and reads line text through a workspace alias', async () => {
    const h = await start()
    const real = join(h.dir, 'real-workspace')
    await mkdir(real)
    await writeFile(join(real, 'a.ts'), 'export const a = 1\n')
    const alias = join(h.dir, 'workspace-alias')
    await symlink(real, alias)
    const session = h.app.sessions.create({ cwd: alias })
    const provider = scriptedProvider(locations(url(real), [{ uri: url(join(real, 'a.ts')), line: 0, character: 0 }]))
    h.app.lsp.registerProvider(provider)
    const result = await h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 }, { session })
    expect(textOf(result)).toBe('a.ts:1:1  export const a = 1')
    expect(provider.calls[0]?.request.workspaceRoot).toBe(alias)
  })

  it('says when the server was still indexing, and keeps complete:false in the value', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri: 'untitled:x', line: 0, character: 0 }], false)))
    const result = await h.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 1 })
    expect(textOf(result)).toBe('untitled:x:1:1\n(the language server was still indexing; results may be incomplete)')
    expect(result.isError === false && result.value).toMatchObject({ complete: false })
  })

  it('bounds the rendered text to maxResultChars', async () => {
    const h = await start({ maxResultChars: 80 })
    const uri = `custom:${'x'.repeat(1_000_000)}`
    h.app.lsp.registerProvider(scriptedProvider(locations(url(h.dir), [{ uri, line: 0, character: 0 }])))
    const text = textOf(await h.call({ operation: 'goToDefinition', filePath: 'a.ts', line: 1, character: 1 }))
    expect(text).toHaveLength(80)
    expect(text).toContain('locations truncated')
  })
})

describe('hover', () => {
  it('202, 203: contents render verbatim and the value keeps the range', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider({ kind: 'hover', hover: { contents: 'number', range: range(2, 4, 9) }, complete: true }))
    const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 3, character: 5 })
    expect(textOf(result)).toBe('number')
    expect(result.isError === false && result.value).toEqual({
      kind: 'hover',
      complete: true,
      hover: { contents: 'number', range: range(2, 4, 9) },
      truncated: false,
    })
  })

  it('204: no hover is a success', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider(NO_HOVER))
    const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 })
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'No hover information.' }],
      value: { kind: 'hover', complete: true, hover: null, truncated: false },
    })
  })

  it('cuts long contents in the value (truncated) without splitting a surrogate pair', async () => {
    const h = await start({ maxResultChars: 60 })
    const contents = `${'a'.repeat(59)}😀${'b'.repeat(100)}`
    h.app.lsp.registerProvider(scriptedProvider({ kind: 'hover', hover: { contents }, complete: true }))
    const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 })
    expect(result.isError === false && result.value).toEqual({ kind: 'hover', complete: true, hover: { contents: `${'a'.repeat(59)}😀` }, truncated: true })
    expect([...textOf(result)].length).toBeLessThanOrEqual(60)
    expect(textOf(result).endsWith('hover truncated (limit 60 characters).')).toBe(true)
  })

  // Counted in UTF-16 units, 40 emoji under a 60-character limit were cut to 30 and said truncated.
  it('counts the contents in characters (code points): 40 emoji fit 60 characters', async () => {
    const h = await start({ maxResultChars: 60 })
    const contents = '😀'.repeat(40)
    h.app.lsp.registerProvider(scriptedProvider({ kind: 'hover', hover: { contents }, complete: true }))
    const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 })
    expect(result.isError === false && result.value).toEqual({ kind: 'hover', complete: true, hover: { contents }, truncated: false })
    expect(textOf(result)).toBe(contents)
  })
})

describe('failures', () => {
  it('205: without a session the call fails with LSP_WORKSPACE_REQUIRED before any query', async () => {
    const h = await start()
    const provider = scriptedProvider(NO_HOVER)
    h.app.lsp.registerProvider(provider)
    const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 }, { session: undefined })
    expect(codeOf(result)).toBe('LSP_WORKSPACE_REQUIRED')
    expect(result.isError && result.error.name).toBe('LspError')
    expect(provider.calls).toEqual([])
  })

  it('206: an unmapped extension is LSP_UNAVAILABLE', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider(NO_HOVER))
    const result = await h.call({ operation: 'hover', filePath: 'main.rs', line: 1, character: 1 })
    expect(codeOf(result)).toBe('LSP_UNAVAILABLE')
    expect(textOf(result)).toContain('main.rs')
  })

  it('a provider’s coded failure keeps its code', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider(() => Promise.reject(new LspError('server said no', 'LSP_SERVER_ERROR', { rpcCode: -32603 }))))
    const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 })
    expect(result).toMatchObject({ isError: true, error: { code: 'LSP_SERVER_ERROR', name: 'LspError', message: 'server said no' } })
  })

  it('a malformed provider answer is LSP_MALFORMED_RESPONSE', async () => {
    const h = await start()
    const bad = [
      { kind: 'locations', locations: [{ uri: 'file:///a.ts' }], resolvedWorkspaceUri: 'file:///', complete: true },
      { kind: 'hover', hover: { contents: 42 }, complete: true },
      { kind: 'hover', hover: null },
      { kind: 'definition' },
      null,
    ]
    let next = 0
    h.app.lsp.registerProvider(scriptedProvider(async () => bad[next++]))
    for (const answer of bad) {
      const result = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 })
      expect(codeOf(result), JSON.stringify(answer)).toBe('LSP_MALFORMED_RESPONSE')
    }
  })

  it('208: the execution signal reaches the provider, once, and aborting the call aborts it', async () => {
    const h = await start()
    let entered!: () => void
    const started = new Promise<void>((resolve) => (entered = resolve))
    const provider = scriptedProvider((_request, signal) => {
      entered()
      return untilAborted(signal)
    })
    h.app.lsp.registerProvider(provider)
    const controller = new AbortController()
    const pending = h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 1 }, { signal: controller.signal })
    await started
    const seen = provider.calls[0]?.signal
    expect(seen).toBeInstanceOf(AbortSignal)
    expect(seen?.aborted).toBe(false)
    controller.abort(new Error('user pressed stop'))
    expect(codeOf(await pending)).toBe('ABORTED')
    expect(seen?.aborted).toBe(true)
    expect(provider.calls).toHaveLength(1)
  })

  it('a provider that waits past timeoutMs gives TOOL_TIMEOUT saying what was asked and what to do, and its signal is aborted', async () => {
    const h = await start({ timeoutMs: 50 })
    const provider = scriptedProvider((_request, signal) => untilAborted(signal))
    h.app.lsp.registerProvider(provider)
    const result = await h.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 1 })
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(provider.calls[0]?.signal?.aborted).toBe(true)
    // It said only "tool call timed out after 50 ms": a model asked the same again (findReferences on a minified bundle).
    const message = result.isError ? result.error.message : ''
    expect(message).toMatch(/^tool call timed out after 50 ms: the language server had not answered findReferences at a\.ts:1:1 by then \(/)
    expect(message).toContain('Ask about a more specific symbol or a smaller file')
    expect(message).toContain("raise tool-lsp's timeoutMs")
  })
})
