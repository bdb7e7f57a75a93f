import { describeIssues } from 'dsh-core'
import type { LspQueryResult } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LspToolInput, quickLspInput } from '../src/input.ts'
import { boot, codeOf, scriptedProvider, type Harness } from './harness.ts'

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
    for (const sample of SAMPLES) {
      const quick = quickLspInput(sample)
      if (quick === undefined) continue
      const parsed = LspToolInput.safeParse(sample)
      expect(parsed.success, JSON.stringify(sample)).toBe(true)
      expect(quick, JSON.stringify(sample)).toEqual(parsed.data)
    }
    expect(SAMPLES.filter((sample) => quickLspInput(sample) !== undefined)).toHaveLength(5)
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
