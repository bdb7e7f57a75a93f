import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FileSystem } from 'dsh-core'
import type { LspQueryResult } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boot, codeOf, locations, scriptedProvider, textOf, type Harness } from './harness.ts'

// The `symbol` argument through the whole tool (runtime validation, the file read through ctx.fs,
// the seam), with a scripted provider that records the position it was asked at.

const HOVER: LspQueryResult = { kind: 'hover', hover: { contents: 'const area: number' }, complete: true }
const SOURCE = ['export const area = 1', "const label = '😀😀'; const areaSum = area + area", '', 'export const total = areaSum'].join('\n')

let harness: Harness | undefined

afterEach(async () => {
  vi.restoreAllMocks()
  await harness?.stop()
  harness = undefined
})

async function start(config: Record<string, unknown> = {}): Promise<Harness> {
  harness = await boot(config)
  await writeFile(join(harness.dir, 'a.ts'), SOURCE)
  return harness
}

function hoverAt(h: Harness, args: Record<string, unknown>) {
  return h.call({ operation: 'hover', filePath: 'a.ts', ...args })
}

describe('symbol', () => {
  it('finds the column on the line, sends it, and echoes it in the value and the text', async () => {
    const h = await start()
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    const result = await hoverAt(h, { line: 2, character: 1, symbol: 'area' })
    // Two emoji (four UTF-16 units) come before `area` at zero-based column 38.
    expect(provider.calls[0]?.request.position).toEqual({ line: 1, character: 38 })
    expect(textOf(result)).toBe('hover at a.ts:2:39 (symbol "area")\nconst area: number')
    expect(result.isError === false && result.value).toEqual({
      kind: 'hover',
      complete: true,
      hover: { contents: 'const area: number' },
      truncated: false,
      resolved: { filePath: 'a.ts', symbol: 'area', line: 2, character: 39, occurrence: 1 },
    })
  })

  it('works without character, and picks the occurrence asked for or the one nearest character', async () => {
    const h = await start()
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    await hoverAt(h, { line: 2, symbol: 'area' })
    await hoverAt(h, { line: 2, symbol: 'area', occurrence: 2 })
    const nearest = await hoverAt(h, { line: 2, symbol: 'area', character: 45 })
    expect(provider.calls.map((c) => c.request.position.character)).toEqual([38, 45, 45])
    expect(textOf(nearest)).toBe('hover at a.ts:2:46 (symbol "area"; occurrence 2)\nconst area: number')
  })

  it('does not match a name inside a longer identifier', async () => {
    const h = await start()
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    await hoverAt(h, { line: 2, symbol: 'areaSum' })
    await hoverAt(h, { line: 4, symbol: 'areaSum' })
    expect(provider.calls.map((c) => c.request.position)).toEqual([
      { line: 1, character: 28 },
      { line: 3, character: 21 },
    ])
  })

  it('looks on nearby lines and says the line moved', async () => {
    const h = await start()
    const provider = scriptedProvider(async () => locations(pathToFileURL(h.dir).href, []))
    h.app.lsp.registerProvider(provider)
    const result = await h.call({ operation: 'findReferences', filePath: 'a.ts', line: 3, symbol: 'total' })
    expect(provider.calls[0]?.request.position).toEqual({ line: 3, character: 13 })
    expect(textOf(result)).toBe('findReferences at a.ts:4:14 (symbol "total"; not on line 3, found on line 4)\nNo results.')
    expect(result.isError === false && result.value).toMatchObject({ resolved: { line: 4, character: 14, requestedLine: 3 } })
  })

  it('searches only symbolSearchLines away', async () => {
    const h = await start({ symbolSearchLines: 1 })
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    // `area` is on line 2, three lines above.
    const result = await hoverAt(h, { line: 4, symbol: 'area' })
    expect(codeOf(result)).toBe('LSP_SYMBOL_NOT_FOUND')
    expect(textOf(result)).toContain('within 1 line of it')
    expect(provider.calls).toEqual([])
  })

  it('not found on a line holding one 4,096-character identifier names it cut, not "… and 1 more" alone (issue 32 item 5)', async () => {
    const h = await start()
    h.app.lsp.registerProvider(scriptedProvider(HOVER))
    await writeFile(join(h.dir, 'a.ts'), `const ${'x'.repeat(4096)} = 1\n`)
    const text = textOf(await hoverAt(h, { line: 1, symbol: 'area' }))
    expect(text).toMatch(/Identifiers on line 1: const, x{20,}\u2026 \(4096 characters\)\.$/)
    expect(text.length).toBeLessThan(1000)
  })

  it('a shell $VAR use anchors on the name after the $ (issue 32 item 5)', async () => {
    const h = await start()
    const provider = scriptedProvider(HOVER, { '.sh': 'shellscript' })
    h.app.lsp.registerProvider(provider)
    await writeFile(join(h.dir, 'a.sh'), 'NAME=1\necho $NAME\n')
    const result = await h.call({ operation: 'hover', filePath: 'a.sh', line: 2, symbol: 'NAME' })
    expect(result.isError).toBe(false)
    expect((result as any).value.resolved).toMatchObject({ line: 2, character: 7 })
  })

  it('not found is LSP_SYMBOL_NOT_FOUND listing the identifiers on the line, and asks no server', async () => {
    const h = await start()
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    const result = await hoverAt(h, { line: 2, character: 5, symbol: 'areaTotal' })
    expect(result).toMatchObject({ isError: true, error: { code: 'LSP_SYMBOL_NOT_FOUND', name: 'LspError' } })
    expect(textOf(result)).toBe(
      'Error: symbol "areaTotal" is not on line 2 of a.ts or within 3 lines of it. Identifiers on line 2: const, label, areaSum, area.',
    )
    expect(textOf(await hoverAt(h, { line: 2, symbol: 'area', occurrence: 3 }))).toBe(
      'Error: occurrence 3 of symbol "area" is not on line 2 of a.ts or within 3 lines of it. Line 2 has it 2 times. Identifiers on line 2: const, label, areaSum, area.',
    )
    expect(textOf(await hoverAt(h, { line: 3, symbol: 'nothing' }))).toContain('Line 3 is blank.')
    expect(textOf(await hoverAt(h, { line: 40, symbol: 'area' }))).toBe(
      'Error: symbol "area" is not on line 40 of a.ts or within 3 lines of it. The file has 4 lines.',
    )
    expect(provider.calls).toEqual([])
  })

  it('reads the file through ctx.fs once, and only as far as the window', async () => {
    const h = await start()
    const tail = Array.from({ length: 20_000 }, (_, i) => `const filler${i} = ${i}`).join('\n')
    await writeFile(join(h.dir, 'long.ts'), `export const first = 1\n${tail}\n`)
    const streamText = vi.spyOn(FileSystem.prototype, 'streamContainedText')
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    // Longer than maxLineFileBytes, but the window ends within the first chunk.
    const result = await h.call({ operation: 'hover', filePath: 'long.ts', line: 1, symbol: 'first' }, {})
    expect(result.isError).toBe(false)
    expect(streamText).toHaveBeenCalledTimes(1)
    expect(streamText.mock.calls[0]?.[1]).toBe(join(h.dir, 'long.ts'))
    await h.stop()
    harness = undefined
    const capped = await boot({ maxLineFileBytes: 1000 })
    harness = capped
    await writeFile(join(capped.dir, 'long.ts'), `export const first = 1\n${tail}\n`)
    capped.app.lsp.registerProvider(scriptedProvider(HOVER))
    // The window (lines 1-4) ends within the bound; the first chunk (64 KiB of a 400 kB file) runs past it.
    const found = await capped.call({ operation: 'hover', filePath: 'long.ts', line: 1, symbol: 'first' })
    expect(textOf(found)).toBe('hover at long.ts:1:14 (symbol "first")\nconst area: number')
  })

  it('finds a symbol whose window ends within maxLineFileBytes in a later chunk, and refuses one past it', async () => {
    const h = await boot({ maxLineFileBytes: 100_000 })
    harness = h
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    // 300 kB, read in 64 KiB chunks: the bound falls inside the second chunk; lines 8998-9004 end 90,054 bytes in.
    await writeFile(join(h.dir, 'big.ts'), `${'// filler\n'.repeat(9000)}export const target = 1\n${'// filler\n'.repeat(21_000)}`)
    const found = await h.call({ operation: 'hover', filePath: 'big.ts', line: 9001, symbol: 'target' })
    expect(textOf(found)).toBe('hover at big.ts:9001:14 (symbol "target")\nconst area: number')
    expect(provider.calls[0]?.request.position).toEqual({ line: 9000, character: 13 })
    // Line 9999 ends at byte 100,004: a search that reaches it before finding the symbol lies past the bound.
    const refused = await h.call({ operation: 'hover', filePath: 'big.ts', line: 9996, symbol: 'absent' })
    expect(codeOf(refused)).toBe('LSP_SOURCE_INVALID')
    expect(textOf(refused)).toBe(
      `Error: source "big.ts" cannot be used: "${join(h.dir, 'big.ts')}" has more than 100000 bytes before the end of line 9999 (the lsp tool reads at most maxLineFileBytes to find a symbol; pass character without symbol)`,
    )
    // A window ending on line 9998 (at byte 99,994) is within it.
    expect(codeOf(await h.call({ operation: 'hover', filePath: 'big.ts', line: 9995, character: 4, symbol: 'filler' }))).toBeUndefined()
    // The window runs past the bound, but the named line, searched first, ends within it and has the symbol.
    expect(codeOf(await h.call({ operation: 'hover', filePath: 'big.ts', line: 9996, symbol: 'filler' }))).toBeUndefined()
    expect(provider.calls.at(-1)?.request.position).toEqual({ line: 9995, character: 3 })
    expect(provider.calls).toHaveLength(3)
  })

  it('names the line the bound ends in when a file is too large to find the symbol in', async () => {
    const h = await boot({ maxLineFileBytes: 1000 })
    harness = h
    h.app.lsp.registerProvider(scriptedProvider(HOVER))
    // One line longer than the bound: line 1 asked, lines 1-4 wanted (the search window), only line 1 exists.
    await writeFile(join(h.dir, 'one-line.ts'), `export const first = 1; ${'x'.repeat(300_000)}`)
    const oneLine = await h.call({ operation: 'hover', filePath: 'one-line.ts', line: 1, symbol: 'first' })
    expect(codeOf(oneLine)).toBe('LSP_SOURCE_INVALID')
    expect(textOf(oneLine)).toContain(`"${join(h.dir, 'one-line.ts')}" has more than 1000 bytes before the end of line 1 (the lsp tool reads at most maxLineFileBytes`)
    // Short lines, then a long one inside the window: the bound ends in line 3, which the search for
    // "after" (on line 4) reaches first. "first", on the named line 1, is found before it.
    await writeFile(join(h.dir, 'third.ts'), `export const first = 1\n\nconst long = '${'y'.repeat(300_000)}'\nconst after = 2\n`)
    const third = await h.call({ operation: 'hover', filePath: 'third.ts', line: 1, symbol: 'after' })
    expect(textOf(third)).toContain('has more than 1000 bytes before the end of line 3 (')
    expect(codeOf(await h.call({ operation: 'hover', filePath: 'third.ts', line: 1, symbol: 'first' }))).toBeUndefined()
  })

  it('refuses files the provider would refuse, with the same codes, before any query', async () => {
    const h = await start()
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'tool-lsp-symbol-outside-')))
    try {
      await writeFile(join(outside, 'b.ts'), 'export const area = 1\n')
      await writeFile(join(h.dir, 'bin.ts'), Buffer.from([0x61, 0x00, 0x62]))
      const provider = scriptedProvider(HOVER)
      h.app.lsp.registerProvider(provider)
      expect(codeOf(await h.call({ operation: 'hover', filePath: join(outside, 'b.ts'), line: 1, symbol: 'area' }))).toBe('LSP_SOURCE_OUTSIDE_WORKSPACE')
      expect(codeOf(await h.call({ operation: 'hover', filePath: 'missing.ts', line: 1, symbol: 'area' }))).toBe('LSP_SOURCE_INVALID')
      expect(codeOf(await h.call({ operation: 'hover', filePath: 'bin.ts', line: 1, symbol: 'a' }))).toBe('LSP_SOURCE_INVALID')
      const gone = h.app.sessions.create({ cwd: join(h.dir, 'no-such-dir') })
      expect(codeOf(await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'area' }, { session: gone }))).toBe('LSP_WORKSPACE_INVALID')
      expect(provider.calls).toEqual([])
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('a file no provider serves is LSP_UNAVAILABLE without being read; no session is LSP_WORKSPACE_REQUIRED', async () => {
    const h = await start()
    await writeFile(join(h.dir, 'notes.md'), 'area\n')
    const streamText = vi.spyOn(FileSystem.prototype, 'streamContainedText')
    expect(codeOf(await h.call({ operation: 'hover', filePath: 'notes.md', line: 1, symbol: 'area' }))).toBe('LSP_UNAVAILABLE')
    expect(codeOf(await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'area' }, { session: undefined }))).toBe('LSP_WORKSPACE_REQUIRED')
    expect(streamText).not.toHaveBeenCalled()
  })

  it('an abort while the file is read is the runtime’s ABORTED, and no query follows', async () => {
    const h = await start()
    const provider = scriptedProvider(HOVER)
    h.app.lsp.registerProvider(provider)
    const controller = new AbortController()
    // The caller stops while the file is being read; the fs call fails as an interrupted one would.
    vi.spyOn(FileSystem.prototype, 'streamContainedText').mockImplementation(async function* () {
      controller.abort(new Error('user pressed stop'))
      throw new Error('interrupted')
    })
    const aborted = await h.call({ operation: 'hover', filePath: 'a.ts', line: 1, symbol: 'area' }, { signal: controller.signal })
    expect(codeOf(aborted)).toBe('ABORTED')
    expect(provider.calls).toEqual([])
  })
})
