import { AsyncLocalStorage } from 'node:async_hooks'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describeIssues, Lifetime, type ToolResult } from 'dsh-core'
import type { LspDiagnosticsResult, LspProvider } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Diagnostics, quickDiagnostics } from '../src/capability-results.ts'
import { DiagnosticsInput, quickDiagnosticsInput } from '../src/diagnostics-tool.ts'
import { abortControllersMadeBy } from '../../../../test-support/abort-controllers.ts'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { boot, codeOf, expectQuickAgreesWithSchema, range, type Harness } from './harness.ts'

// Issue 27 item 2, diagnostics after a change: what an lsp_diagnostics call does besides asking
// the provider (a writer calls it after every edit). Each cut is counted (schema parses, ambient
// session entries), never timed.

let harness: Harness | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await harness?.stop()
  harness = undefined
})

/** A provider answering `answer` (the file's uri and workspace filled in when it is a function). */
function diagnosing(dir: string, answer: unknown | ((uri: string, workspaceUri: string) => unknown)): LspProvider {
  return {
    id: 'scripted',
    extensionToLanguage: { '.ts': 'typescript' },
    query: async () => ({ kind: 'hover', hover: null, complete: true }),
    diagnostics: async (request) => {
      const uri = pathToFileURL(join(dir, request.filePath)).href
      return (typeof answer === 'function' ? answer(uri, pathToFileURL(dir).href) : answer) as LspDiagnosticsResult
    },
  }
}

function diagnose(h: Harness, args: unknown): Promise<ToolResult> {
  return h.app.tools.execute({ name: 'lsp_diagnostics', arguments: args, session: h.session })
}

const WELL_FORMED = (uri: string, workspaceUri: string): LspDiagnosticsResult => ({
  kind: 'diagnostics',
  uri,
  resolvedWorkspaceUri: workspaceUri,
  complete: true,
  items: [
    { range: range(0, 6, 7), severity: 'error', code: 2322, source: 'ts', message: "Type 'string' is not assignable to type 'number'.", related: [{ uri, range: range(0, 0, 3), message: 'declared here' }] },
    { range: range(0, 0, 5), severity: 'warning', message: 'unused', related: [] },
  ],
})

/** Arguments the schema accepts or refuses, the usual and the odd. */
const ARGS: unknown[] = [
  { filePath: 'a.ts' },
  { filePath: 'a.ts', severity: 'error' },
  { filePath: '/abs/a.ts', severity: 'hint' },
  { filePath: ' a.ts ', severity: 'information' },
  { filePath: 'file:///abs/a.ts' },
  { filePath: 'x'.repeat(4097) },
  { filePath: 'a.ts', severity: 'warning' },
  { filePath: '' },
  { filePath: '   ' },
  { filePath: 'a.ts', severity: 'fatal' },
  { filePath: 'a.ts', severity: null },
  { filePath: 'a.ts', extra: true },
  { filePath: 1 },
  { severity: 'error' },
  {},
  [],
  null,
  'a.ts',
]

describe('lsp_diagnostics on the call\'s Lifetime', () => {
  it('hands the provider\'s diagnostics the call\'s Lifetime and makes no AbortController for the call', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'let a = 1\n')
    const clean = diagnosing(harness.dir, (uri: string, workspaceUri: string) => ({ kind: 'diagnostics', uri, resolvedWorkspaceUri: workspaceUri, complete: true, items: [] }))
    const bounds: unknown[] = []
    harness.app.lsp.registerProvider({
      ...clean,
      diagnostics: (request, lifetime) => {
        bounds.push(lifetime)
        return clean.diagnostics!(request)
      },
    })
    const h = harness
    expect((await diagnose(h, { filePath: 'a.ts' })).isError).toBe(false)
    // Made for the call's signal (read by the tool) until the call's Lifetime went down instead.
    const { result, made } = await abortControllersMadeBy(() => diagnose(h, { filePath: 'a.ts', severity: 'error' }))
    expect(result.isError).toBe(false)
    expect(made).toBe(0)
    expect(bounds).toHaveLength(2)
    expect(bounds[0]).toBeInstanceOf(Lifetime)
  })
})

describe('lsp_diagnostics\'s arguments without zod (quickArgs)', () => {
  it('parses no schema for a valid call, where every call was parsed by zod', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'let a: number = "x"\n')
    harness.app.lsp.registerProvider(diagnosing(harness.dir, WELL_FORMED))
    const parses = vi.spyOn(DiagnosticsInput, 'safeParse')
    expect((await diagnose(harness, { filePath: 'a.ts' })).isError).toBe(false)
    expect((await diagnose(harness, { filePath: 'a.ts', severity: 'error' })).isError).toBe(false)
    expect(parses).toHaveBeenCalledTimes(0)
  })

  it('accepts only what the schema accepts, as the schema parses it', () => {
    expectQuickAgreesWithSchema(quickDiagnosticsInput, DiagnosticsInput, ARGS, 4)
  })

  it('refuses bad arguments with the schema\'s words and INVALID_ARGS', async () => {
    harness = await boot()
    harness.app.lsp.registerProvider(diagnosing(harness.dir, WELL_FORMED))
    for (const sample of ARGS) {
      const parsed = DiagnosticsInput.safeParse(sample)
      if (parsed.success) continue
      const result = await diagnose(harness, sample)
      expect(codeOf(result), JSON.stringify(sample)).toBe('INVALID_ARGS')
      expect(result.isError && result.error.message).toBe(`invalid arguments for lsp_diagnostics: ${describeIssues(parsed.error)}`)
    }
  })
})

const WS = 'file:///ws'
const U = `${WS}/a.ts`
const R = { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }
const ITEM = { range: R, severity: 'error', message: 'm', related: [] }
/** Provider answers, well-formed and not, with fields the schema drops. */
const ANSWERS: unknown[] = [
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: false, items: [ITEM, { ...ITEM, severity: 'hint', code: 'x1', source: 'py' }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, extra: 1, items: [{ ...ITEM, code: 7, tags: [1], range: { ...R, extra: true }, related: [{ uri: U, range: R, message: 'r', more: 2 }] }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, code: undefined }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, source: undefined }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, code: Number.NaN }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, code: null }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, source: 3 }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, severity: 'fatal' }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, message: undefined }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, related: undefined }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, related: [{ uri: U, range: R }] }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, related: [{ uri: U, range: { start: R.start }, message: 'r' }] }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, range: { start: { line: -1, character: 0 }, end: R.end } }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, range: { start: { line: 0.5, character: 0 }, end: R.end } }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [{ ...ITEM, range: { start: { line: 2 ** 60, character: 0 }, end: R.end } }] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [null] },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, complete: true, items: {} },
  { kind: 'diagnostics', uri: U, resolvedWorkspaceUri: WS, items: [] },
  { kind: 'diagnostics', uri: 1, resolvedWorkspaceUri: WS, complete: true, items: [] },
  { kind: 'diagnostics', uri: U, complete: true, items: [] },
  { kind: 'locations', uri: U, resolvedWorkspaceUri: WS, complete: true, items: [] },
  [],
  null,
]

describe('the provider\'s diagnostics checked without zod (quickDiagnostics)', () => {
  it('parses no schema for a well-formed answer, where every answer was parsed by zod', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'let a: number = "x"\n')
    harness.app.lsp.registerProvider(diagnosing(harness.dir, WELL_FORMED))
    const parses = vi.spyOn(Diagnostics, 'safeParse')
    const result = await diagnose(harness, { filePath: 'a.ts', severity: 'hint' })
    expect(result.isError).toBe(false)
    expect(result.isError || (result.value as { total: number }).total).toBe(2)
    expect(parses).toHaveBeenCalledTimes(0)
  })

  it('accepts only what the schema accepts, and copies what the schema keeps', () => {
    expectQuickAgreesWithSchema(quickDiagnostics, Diagnostics, ANSWERS, 3, true)
  })

  it('a malformed answer is still LSP_MALFORMED_RESPONSE in the schema\'s words', async () => {
    harness = await boot()
    let answer: unknown
    harness.app.lsp.registerProvider(diagnosing(harness.dir, () => answer))
    for (answer of ANSWERS) {
      const parsed = Diagnostics.safeParse(answer)
      if (parsed.success) continue
      const result = await diagnose(harness, { filePath: 'a.ts' })
      expect(codeOf(result), JSON.stringify(answer)).toBe('LSP_MALFORMED_RESPONSE')
      expect(result.isError && result.error.message).toMatch(/^the language server provider returned a malformed result: /)
    }
  })
})

describe('the ambient session', () => {
  it('an lsp_diagnostics call runs outside it: it enters no AsyncLocalStorage, which on Node 20 and 22 turns async hooks on for the whole process', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'let a: number = "x"\n')
    harness.app.lsp.registerProvider(diagnosing(harness.dir, WELL_FORMED))
    const entered = vi.spyOn(AsyncLocalStorage.prototype, 'run')
    expect((await diagnose(harness, { filePath: 'a.ts' })).isError).toBe(false)
    // The session reaches the tool through exec.session (its workspace); nothing on its path asks currentSession().
    expect(entered).toHaveBeenCalledTimes(0)
  })
})

describe('lsp_diagnostics\'s value', () => {
  it('is frozen, and shares nothing with the provider\'s answer', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'let a: number = "x"\n')
    const answers: LspDiagnosticsResult[] = []
    const provider = diagnosing(harness.dir, WELL_FORMED)
    harness.app.lsp.registerProvider({
      ...provider,
      diagnostics: async (request) => {
        const answer = await provider.diagnostics!(request)
        answers.push(answer)
        return answer
      },
    })
    expect((await diagnose(harness, { filePath: 'a.ts', severity: 'hint' })).isError).toBe(false)
    const result = await diagnose(harness, { filePath: 'a.ts', severity: 'hint' })
    expect(result.isError ? result.error : undefined).toBeUndefined()
    const value = (result.isError ? undefined : result.value) as unknown as { items: { range: { start: object }; related: object[] }[] }
    expect(value.items).toHaveLength(2)
    const frozen = [value, value.items, ...value.items.flatMap((item) => [item, item.range, item.range.start, item.related, ...item.related])]
    expect(frozen.every((part) => Object.isFrozen(part))).toBe(true)
    // The provider's own objects stay its own: the runtime froze its copy.
    const parts = answers.flatMap((answer): unknown[] => [answer, answer.items, ...answer.items.flatMap((item): unknown[] => [item, item.range, item.range.start, ...item.related, ...item.related.map((related) => related.range)])])
    expect(parts.some((part) => Object.isFrozen(part))).toBe(false)
  })
})

describe('promises per lsp_diagnostics call', () => {
  it('a warm call whose line text needs no wait builds its value where the provider\'s answer settles: no async body or await of its own', async () => {
    harness = await boot()
    writeFileSync(join(harness.dir, 'a.ts'), 'let a: number = "x"\n')
    harness.app.lsp.registerProvider(diagnosing(harness.dir, WELL_FORMED))
    const h = harness
    const call = () => diagnose(h, { filePath: 'a.ts', severity: 'hint' })
    for (let i = 0; i < 3; i++) expect((await call()).isError).toBe(false)
    const ROUNDS = 20
    const promises = await asyncInitsOf(async () => {
      for (let i = 0; i < ROUNDS; i++) await call()
    })
    const result = await call()
    expect(result.isError || (result.value as { items: { lineText?: string }[] }).items[0]!.lineText).toBe('let a: number = "x"')
    // 15.15 per call with execute and diagnosticsValue async functions; 13.15 without (the scripted
    // provider's, the tools runtime's and this loop's included).
    expect(promises / ROUNDS).toBeLessThanOrEqual(14)
  })
})
