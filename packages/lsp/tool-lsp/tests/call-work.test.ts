import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describeIssues, untracked, Lifetime } from 'dsh-core'
import { SETTLE_MS, type LspProvider, type LspQueryResult } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { abortControllersMadeBy } from '../../../../test-support/abort-controllers.ts'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { LspToolInput, quickLspInput } from '../src/input.ts'
import { ProviderResult, quickResult } from '../src/provider-result.ts'
import { boot, codeOf, expectQuickAgreesWithSchema, scriptedProvider, type Harness } from './harness.ts'

// Issue 27 item 2: what the `lsp` tool and the tools runtime do per call besides the query. Each
// cut is counted (schema parses, promises), never timed.

const HOVER: LspQueryResult = { kind: 'hover', hover: { contents: 'x' }, complete: true }

let harness: Harness | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await harness?.stop()
  harness = undefined
})

/** Arguments the schema accepts or refuses, the usual and the odd. */
const SAMPLES: unknown[] = [
  { operation: 'hover', filePath: 'a.ts', line: 1, character: 1 },
  { operation: 'findReferences', filePath: '/abs/b.ts', line: 40, character: 7 },
  { operation: 'goToDefinition', filePath: 'a.ts', line: 2, symbol: 'area' },
  { operation: 'goToImplementation', filePath: 'a.ts', line: 2, character: 3, symbol: 'area', occurrence: 2 },
  { operation: 'hover', filePath: 'a.ts', line: 1 },
  { operation: 'hover', filePath: 'a.ts', line: 1, character: 1, occurrence: 1 },
  { operation: 'hover', filePath: 'a.ts', line: 0, character: 1 },
  { operation: 'hover', filePath: 'a.ts', line: 1.5, character: 1 },
  { operation: 'hover', filePath: 'a.ts', line: 2 ** 60, character: 1 },
  { operation: 'hover', filePath: 'a.ts', line: 1, character: -1 },
  { operation: 'hover', filePath: '', line: 1, character: 1 },
  { operation: 'hover', filePath: '   ', line: 1, character: 1 },
  { operation: 'hover', filePath: 'x'.repeat(4097), line: 1, character: 1 },
  { operation: 'hover', filePath: 'x'.repeat(4096), line: 1, character: 1 },
  { operation: 'hover', filePath: 'a.ts', line: '1', character: 1 },
  { operation: 'rename', filePath: 'a.ts', line: 1, character: 1 },
  { operation: 'hover', filePath: 'a.ts', line: 1, character: 1, extra: true },
  { operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'two words' },
  { operation: 'hover', filePath: 'a.ts', line: 1, symbol: '' },
  { operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'x'.repeat(201) },
  { operation: 'hover', filePath: 'a.ts', line: 1, symbol: '\ud800' },
  { operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'a', occurrence: 0 },
  { filePath: 'a.ts', line: 1, character: 1 },
  { operation: 'hover', filePath: 'file:///abs/b.ts', line: 1, character: 1 },
  { operation: 'hover', filePath: 'file://host/b.ts', line: 1, character: 1 },
  { operation: 'hover', filePath: 'a.ts\n', line: 1, character: 1 },
  { operation: 'hover', filePath: ' a.ts', line: 1, character: 1 },
  [],
  null,
  'hover',
]

describe('the lsp tool\'s arguments without zod (quickArgs)', () => {
  it('parses no schema for a valid call, where every call was parsed by zod', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(scriptedProvider(HOVER))
    const parses = vi.spyOn(LspToolInput, 'safeParse')
    for (let i = 0; i < 5; i++) expect((await harness.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 2 })).isError).toBe(false)
    expect((await harness.call({ operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'a' })).isError).toBe(true) // no such file: the symbol is looked for, past the arguments
    expect(parses).toHaveBeenCalledTimes(0)
  })

  it('accepts only what the schema accepts, as the schema parses it', () => {
    expectQuickAgreesWithSchema(quickLspInput, LspToolInput, SAMPLES, 5)
  })

  // The hostile review through the real dsh: a file: URI (as the tools' own values spell places)
  // was read as a relative path ("/ws/file:/ws/a.ts" not found), and "a.ts\n" as a language no
  // server handles (LSP_UNAVAILABLE); an empty path was refused twice over.
  it('reads a file: URI as the path it names, and refuses a path with whitespace around it in one message', async () => {
    harness = await boot()
    const provider = scriptedProvider(HOVER)
    harness.app.lsp.registerProvider(provider)
    await writeFile(join(harness.dir, 'a b.ts'), 'const a = 1\n')
    const answered = await harness.call({ operation: 'hover', filePath: pathToFileURL(join(harness.dir, 'a b.ts')).href, line: 1, character: 7 })
    expect(answered.isError ? answered.error : undefined).toBeUndefined()
    expect(provider.calls.map((call) => call.request.filePath)).toEqual([join(harness.dir, 'a b.ts')])
    const refusals: [string, string][] = [
      ['a.ts\n', 'filePath must not start or end with whitespace'],
      [' a.ts', 'filePath must not start or end with whitespace'],
      ['', 'filePath must not be blank'],
      ['file://host/a.ts', 'filePath is a file: URI that names no local path'],
    ]
    for (const [filePath, words] of refusals) {
      const result = await harness.call({ operation: 'hover', filePath, line: 1, character: 1 })
      expect(codeOf(result), filePath).toBe('INVALID_ARGS')
      const message = result.isError ? result.error.message : ''
      expect(message).toContain(words)
      expect(message.split('filePath').length, message).toBe(3) // "filePath: filePath …": one issue, not two
    }
    expect(provider.calls).toHaveLength(1)
  })

  it('refuses bad arguments with the schema\'s words and INVALID_ARGS', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(scriptedProvider(HOVER))
    for (const sample of SAMPLES) {
      const parsed = LspToolInput.safeParse(sample)
      if (parsed.success) continue
      const result = await harness.call(sample)
      expect(codeOf(result), JSON.stringify(sample)).toBe('INVALID_ARGS')
      expect(result.isError && result.error.message).toBe(`invalid arguments for lsp: ${describeIssues(parsed.error)}`)
    }
  })
})

const WS = 'file:///ws'
const R = { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }
/** Provider answers, well-formed and not, with fields the schema drops. */
const ANSWERS: unknown[] = [
  { kind: 'hover', hover: null, complete: true },
  { kind: 'hover', hover: { contents: 'x' }, complete: false },
  { kind: 'hover', hover: { contents: 'x', range: R, extra: 1 }, complete: true, extra: 2 },
  { kind: 'hover', hover: { contents: 'x', range: undefined }, complete: true },
  { kind: 'hover', hover: { contents: 1 }, complete: true },
  { kind: 'hover', hover: { contents: 'x' } },
  { kind: 'locations', locations: [], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [{ uri: `${WS}/a.ts`, range: R }, { uri: `${WS}/b.ts`, range: { ...R, extra: true }, more: 1 }], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [{ uri: `${WS}/a.ts`, range: { start: { line: -1, character: 0 }, end: R.end } }], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [{ uri: `${WS}/a.ts`, range: { start: { line: 0.5, character: 0 }, end: R.end } }], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [{ uri: `${WS}/a.ts`, range: { start: { line: 2 ** 60, character: 0 }, end: R.end } }], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [{ uri: 1, range: R }], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [null], resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: {}, resolvedWorkspaceUri: WS, complete: true },
  { kind: 'locations', locations: [], complete: true },
  { kind: 'symbols', complete: true },
  [],
  null,
]

describe('the provider\'s answer checked without zod (quickResult)', () => {
  it('parses no schema for a well-formed answer, where every answer was parsed by zod', async () => {
    harness = await boot()
    const h = harness
    harness.app.lsp.registerProvider(scriptedProvider(async (request) => (request.operation === 'hover' ? HOVER : { kind: 'locations', complete: true, resolvedWorkspaceUri: pathToFileURL(h.dir).href, locations: [{ uri: pathToFileURL(join(h.dir, 'a.ts')).href, range: R }] })))
    const parses = vi.spyOn(ProviderResult, 'safeParse')
    expect((await harness.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 2 })).isError).toBe(false)
    expect((await harness.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 2 })).isError).toBe(false)
    expect(parses).toHaveBeenCalledTimes(0)
  })

  it('the answered value shares nothing with the provider\'s answer: the value is frozen, the provider\'s objects stay its own', async () => {
    harness = await boot()
    const h = harness
    const answers: LspQueryResult[] = []
    harness.app.lsp.registerProvider(
      scriptedProvider(async (request) => {
        const answer: LspQueryResult =
          request.operation === 'hover'
            ? { kind: 'hover', hover: { contents: 'x', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }, complete: true }
            : { kind: 'locations', complete: true, resolvedWorkspaceUri: pathToFileURL(h.dir).href, locations: [{ uri: pathToFileURL(join(h.dir, 'a.ts')).href, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }] }
        answers.push(answer)
        return answer
      }),
    )
    for (const operation of ['hover', 'findReferences'] as const) {
      const result = await harness.call({ operation, filePath: 'a.ts', line: 1, character: 2 })
      expect(result.isError ? result.error : undefined).toBeUndefined()
      expect(Object.isFrozen(result.isError ? undefined : result.value)).toBe(true)
    }
    const parts = answers.flatMap((answer): unknown[] => (answer.kind === 'hover' ? [answer, answer.hover, answer.hover!.range] : answer.kind === 'locations' ? [answer, answer.locations, ...answer.locations.flatMap((location): unknown[] => [location, location.range, location.range.start])] : []))
    expect(parts.some((part) => Object.isFrozen(part))).toBe(false)
  })

  it('accepts only what the schema accepts, and copies what the schema keeps', () => {
    expectQuickAgreesWithSchema(quickResult, ProviderResult, ANSWERS, 5, true)
  })

  it('a malformed answer is still LSP_MALFORMED_RESPONSE in the schema\'s words', async () => {
    harness = await boot()
    let answer: unknown
    harness.app.lsp.registerProvider(scriptedProvider(async () => answer))
    for (answer of ANSWERS) {
      const parsed = ProviderResult.safeParse(answer)
      if (parsed.success) continue
      const result = await harness.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 2 })
      expect(codeOf(result), JSON.stringify(answer)).toBe('LSP_MALFORMED_RESPONSE')
      expect(result.isError && result.error.message).toMatch(/^the language server provider returned a malformed result: /)
    }
  })
})

/** How many promises `work` made (async_hooks): each is a microtask turn and, in a host with async hooks (sessions), a hook call. */
const promisesMade = (work: () => Promise<unknown>): Promise<number> => asyncInitsOf(work)

describe('promises per call', () => {
  it('a hover call with its column makes no promise the query does not need', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(scriptedProvider(HOVER))
    const h = harness
    const call = () => h.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 2 })
    expect((await call()).isError).toBe(false)
    // The runtime (one async step, the body's race), the tool's one `then` on the seam's query, and
    // the scripted provider's own async query; no line text for a hover. Was 15, then 9 (the tool's
    // body an async function awaiting the query).
    expect(await promisesMade(call)).toBe(6)
  })
})

describe('the ambient session', () => {
  it('an lsp call runs outside it: it enters no AsyncLocalStorage, which on Node 20 and 22 turns async hooks on for the whole process', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(scriptedProvider(HOVER))
    const entered = vi.spyOn(AsyncLocalStorage.prototype, 'run')
    const result = await harness.call({ operation: 'hover', filePath: 'a.ts', line: 1, character: 2 })
    expect(result.isError).toBe(false)
    // The session reaches the tool through exec.session (its workspace); nothing on the query path asks currentSession().
    expect(entered).toHaveBeenCalledTimes(0)
  })

  it('lsp_symbols (an outline and a workspace search) and lsp_calls run outside it too: one of them once turned the hooks on for every later call', async () => {
    harness = await boot()
    const h = harness
    await writeFile(join(h.dir, 'a.ts'), 'export function area() {}\n')
    const workspaceUri = pathToFileURL(h.dir).href
    const uri = pathToFileURL(join(h.dir, 'a.ts')).href
    const item = { name: 'area', kind: 'function', uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 25 } }, selectionRange: { start: { line: 0, character: 16 }, end: { line: 0, character: 20 } } }
    h.app.lsp.registerProvider({
      ...scriptedProvider(HOVER),
      documentSymbols: async () => ({ kind: 'documentSymbols', uri, resolvedWorkspaceUri: workspaceUri, symbols: [], complete: true }),
      workspaceSymbols: async () => ({ kind: 'workspaceSymbols', resolvedWorkspaceUri: workspaceUri, symbols: [], complete: true }),
      callHierarchy: async (request) => ({ kind: 'callHierarchy', direction: request.direction, resolvedWorkspaceUri: workspaceUri, roots: [{ item, calls: [] }], truncated: false, complete: true }),
    } as LspProvider)
    const entered = vi.spyOn(AsyncLocalStorage.prototype, 'run')
    const calls = [
      { name: 'lsp_symbols', arguments: { filePath: 'a.ts' } },
      { name: 'lsp_symbols', arguments: { query: 'area' } },
      { name: 'lsp_calls', arguments: { filePath: 'a.ts', line: 1, character: 17, direction: 'incoming' } },
    ]
    for (const call of calls) {
      const result = await h.app.tools.execute({ ...call, session: h.session })
      expect(result.isError ? result.error : 'ok', call.name).toBe('ok')
    }
    // Each takes its workspace from exec.session; nothing on their paths asks currentSession(). Was 3 (one per call).
    expect(entered).toHaveBeenCalledTimes(0)
  })
})

describe('the call\'s lifetime through the seam', () => {
  it('the provider\'s query gets the call\'s lifetime itself, and a warm locations call makes no AbortController (the line text\'s kept file included)', async () => {
    harness = await boot()
    const h = harness
    await writeFile(join(h.dir, 'a.ts'), 'export const a = 1\nexport const b = a\n')
    // A file is kept only once it has stood still for SETTLE_MS before its read (a condition, not a timing).
    await clockPastSettle(SETTLE_MS)
    const uri = pathToFileURL(join(h.dir, 'a.ts')).href
    const range = { start: { line: 1, character: 16 }, end: { line: 1, character: 17 } }
    const answer: LspQueryResult = { kind: 'locations', locations: [{ uri, range }], resolvedWorkspaceUri: pathToFileURL(h.dir).href, complete: true }
    const lifetimes: Lifetime[] = []
    h.app.lsp.registerProvider({
      id: 'within',
      extensionToLanguage: { '.ts': 'typescript' },
      query: async (_request, lifetime) => {
        if (!(lifetime instanceof Lifetime)) throw new Error('query asked without the call\'s Lifetime')
        lifetimes.push(lifetime)
        expect(lifetime.active).toBe(true)
        return answer
      },
    })
    const call = () => h.call({ operation: 'findReferences', filePath: 'a.ts', line: 2, character: 17 })
    // Cold: the line's file is read once (a read of bytes may ask for a signal) and kept.
    const cold = await call()
    expect(cold.isError ? cold.error : cold.value).toMatchObject({ locations: [{ lineText: 'export const b = a' }] })
    const { result: warm, made } = await abortControllersMadeBy(call)
    expect(warm.isError ? warm.error : warm.value).toMatchObject({ locations: [{ lineText: 'export const b = a' }] })
    expect(made).toBe(0)
    expect(lifetimes).toHaveLength(2)
    expect(lifetimes[1]!.active).toBe(false)
  })
})

describe('the file-system work of a warm locations call (issue 27 item 2)', () => {
  /**
   * The event loop's file-system calls `work` made (ctx.fs's shared SyncCalls): a realpath counted as
   * its system calls, one readlink per name from /; the name of an open descriptor (`openedPath`) as
   * one readlink; an fstat as a stat.
   */
  async function systemCallsOf(h: Harness, work: () => Promise<unknown>): Promise<{ readlink: number; stat: number; lstat: number; open: number }> {
    const calls = (untracked(h.app.fs) as unknown as { provenCalls: Record<'realpath' | 'stat' | 'lstat' | 'open' | 'openedPath' | 'fstat', (path: string) => unknown> }).provenCalls
    const spies = (['realpath', 'stat', 'lstat', 'open', 'openedPath', 'fstat'] as const).map((name) => vi.spyOn(calls, name))
    let paths: unknown[][]
    try {
      await work()
    } finally {
      paths = spies.map((spy) => spy.mock.calls.map(([path]) => path))
      for (const spy of spies) spy.mockRestore()
    }
    const [realpath, stat, lstat, open, openedPath, fstat] = paths
    const readlinks = realpath!.reduce<number>((sum, path) => sum + String(path).split('/').filter(Boolean).length, 0)
    return { readlink: readlinks + openedPath!.length, stat: stat!.length + fstat!.length, lstat: lstat!.length, open: open!.length }
  }

  it('proves each file by lstats below the call\'s workspace, takes its kept text\'s stat from that proof, and makes no promise per file', async () => {
    harness = await boot()
    const h = harness
    await mkdir(join(h.dir, 'src', 'deep'), { recursive: true })
    await writeFile(join(h.dir, 'a.ts'), 'export const a = 1\nexport const b = a\n')
    await writeFile(join(h.dir, 'src', 'deep', 'b.ts'), 'import { a } from "../../a"\n\n  const c = a + 1\n')
    // A file is kept only once it has stood still for SETTLE_MS before its read (a condition, not a timing).
    await clockPastSettle(SETTLE_MS)
    const at = (file: string, line: number) => ({ uri: pathToFileURL(join(h.dir, file)).href, range: { start: { line, character: 0 }, end: { line, character: 1 } } })
    const answer: LspQueryResult = { kind: 'locations', locations: [at('a.ts', 0), at('a.ts', 1), at('src/deep/b.ts', 2)], resolvedWorkspaceUri: pathToFileURL(h.dir).href, complete: true }
    h.app.lsp.registerProvider(scriptedProvider(answer))
    const call = () => h.call({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 14 })
    const cold = await call()
    expect(cold.isError ? cold.error : cold.value).toMatchObject({ locations: [{ lineText: 'export const a = 1' }, { lineText: 'export const b = a' }, { lineText: 'const c = a + 1' }] })
    await call()
    const warm = await systemCallsOf(h, async () => {
      const result = await call()
      expect(result.isError ? result.error : result.value).toMatchObject({ locations: [{ lineText: 'export const a = 1' }, { lineText: 'export const b = a' }, { lineText: 'const c = a + 1' }] })
    })
    // The workspace: the name of its directory held open (one readlink, dsh-core's workspaceNow) and
    // its fstat; a realpath (a readlink per name from /) and a stat before. Each file: an lstat of each name below the workspace
    // (1 for a.ts, 3 for src/deep/b.ts), which is also its kept text's check; the workspace
    // directory by its proof alone (6 when each file's walk looked at it again, then 5 when the
    // first walk did). No read.
    // Before: a realpath of each file from / (depth + 1, depth + 3) and an lstat of each for its
    // kept text: { readlink: 10, stat: 1, lstat: 2 } in /tmp/x, 13 calls against 9.
    expect(warm).toEqual({ readlink: 1, stat: 1, lstat: 4, open: 0 })
    // The runtime, the scripted provider and the tool's one `then` on the query, as for a hover: the
    // workspace proof, the files' proofs, kept-text checks and lines are values. Was 59 (an async
    // proof, lookup and read step per file), then 19 (the workspace proof awaited, an async step
    // each for the body, the bounded locations and the line text, a promise per file proof).
    expect(await promisesMade(call)).toBe(6)
  })
})
