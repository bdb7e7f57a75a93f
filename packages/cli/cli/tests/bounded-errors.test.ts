import { afterEach, describe, expect, it } from 'vitest'
import { dshIn, json, killRunning, removeTempDirs } from './helpers.ts'

// Issue 16, item 3: a tool's error repeats what the caller sent at most bounded, and the string
// arguments have documented limits, so a megabyte argument cannot make a reply larger than MCP
// clients accept (a 3.5 MB filePath used to come back three times). What is proven is the reply's
// size, not anything of a process: the commands run in this worker (dshIn), each from stdin.

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

async function call(tool: string, args: unknown): Promise<{ bytes: number; error: { code: string; message: string } }> {
  const run = await dshIn(['call', tool, '-', '--json', '--preset', 'coding'], { input: JSON.stringify(args) })
  expect(run.code, run.stderr).toBe(1)
  return { bytes: Buffer.byteLength(run.stdout), error: json(run).error }
}

describe('errors about huge arguments stay small', () => {
  it('lsp filePath: over the schema limit is INVALID_ARGS; under it, the source error quotes it once, bounded', async () => {
    const huge = await call('lsp', { operation: 'hover', filePath: `${'a'.repeat(1_000_000)}.ts`, line: 1, character: 1 })
    expect(huge.error.code).toBe('INVALID_ARGS')
    expect(huge.bytes).toBeLessThan(4000)
    const long = await call('lsp', { operation: 'hover', filePath: `${'a'.repeat(4000)}.ts`, line: 1, character: 1 })
    expect(long.error.code).toBe('LSP_SOURCE_INVALID')
    expect(long.error.message).toContain('(4003 characters)')
    expect(long.bytes).toBeLessThan(4000)
  })

  it('skill name: over the schema limit is INVALID_ARGS; under it, SKILL_INVALID_NAME quotes it bounded', async () => {
    const huge = await call('skill', { name: 'n'.repeat(1_000_000) })
    expect(huge.error.code).toBe('INVALID_ARGS')
    expect(huge.bytes).toBeLessThan(4000)
    const long = await call('skill', { name: 'n'.repeat(1000) })
    expect(long.error.code).toBe('SKILL_INVALID_NAME')
    expect(long.error.message).toContain('(1000 characters)')
    expect(long.bytes).toBeLessThan(4000)
  })

  it('web_fetch url and web_search query are bounded by their schemas', async () => {
    expect((await call('web_fetch', { url: `https://example.com/${'u'.repeat(1_000_000)}` })).bytes).toBeLessThan(4000)
    expect((await call('web_search', { queries: ['q'.repeat(1_000_000)] })).bytes).toBeLessThan(4000)
  })
})
