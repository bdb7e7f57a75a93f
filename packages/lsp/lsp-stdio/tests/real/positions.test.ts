import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { callLsp, codingSuite, valueOf } from './harness.ts'

// A model's column past the end of a line. LSP says it means the line's end; tsserver (through
// typescript-language-server) and pyright add it to the line's start instead, and answered about
// `bbbbbb` on the next line. Real servers, through the coding preset and the lsp tool. Python's
// cases run on the pyright python.test.ts starts (one cold start, not two).
describe('positions a model gets wrong (real tsserver)', () => {
  const suite = codingSuite('ts-project', undefined, (dir) => {
    writeFileSync(join(dir, 'wrap.ts'), 'const a = 1;\nconst bbbbbb = a;\n')
    writeFileSync(join(dir, 'wrap-crlf.ts'), 'const a = 1;\r\nconst bbbbbb = a;\r\n')
    writeFileSync(join(dir, 'wrap-cr.ts'), 'const a = 1;\rconst bbbbbb = a;\r')
    // A lone `\r` in a block comment ends a line for LSP (and for TypeScript): four lines before the code.
    writeFileSync(join(dir, 'lone-cr.ts'), '/* a\rb */\nconst bbbbbb = 1;\nconst c = bbbbbb;\nconst dd = c;\n')
    // `café` decomposed (NFD: `e` and U+0301), as some editors write it.
    // A leading byte-order mark (the read drops it; columns do not count it).
    writeFileSync(join(dir, 'bom.ts'), '\uFEFFconst bom = 1;\nexport const useBom = bom + 1;\n')
    writeFileSync(join(dir, 'nfd.ts'), 'export const caf\u0065\u0301 = 1;\nconst twice = caf\u0065\u0301 + caf\u0065\u0301;\n')
  })
  const hover = (filePath: string, line: number, character: number) => callLsp(suite.host, suite.session(), { operation: 'hover', filePath, line, character })

  it('stays on its line in TypeScript, whatever the line breaks', async () => {
    for (const file of ['wrap.ts', 'wrap-crlf.ts', 'wrap-cr.ts']) {
      // Column 20 of the 12-character line 1 is its end, not `bbbbbb` at column 7 of line 2.
      expect(valueOf(await hover(file, 1, 20)).hover, file).toBeNull()
      expect(valueOf(await hover(file, 2, 8)).hover?.contents, file).toContain('bbbbbb')
    }
  })

  it('says the column was past the end of the line, and where the server was asked', async () => {
    const textOf = (result: Awaited<ReturnType<typeof hover>>) => (result.content[0] as { text: string }).text
    // The answer about the line's end (none) no longer reads as an answer about column 20.
    for (const file of ['wrap.ts', 'wrap-crlf.ts']) {
      const line = 'const a = 1;'
      const result = await hover(file, 1, 20)
      const note = `column 20 is past the end of line 1 (${line.length} characters); asked at its end`
      expect(valueOf(result).askedAt, file).toEqual({ line: 1, character: line.length + 1, note })
      expect(textOf(result), file).toBe(`hover at ${file}:1:${line.length + 1} (${note})\nNo hover information.`)
    }
    // A column within the line is not echoed.
    const within = await hover('wrap.ts', 2, 8)
    expect(valueOf(within).askedAt).toBeUndefined()
    expect(textOf(within)).not.toContain('past the end')
    const definition = await callLsp(suite.host, suite.session(), { operation: 'goToDefinition', filePath: 'wrap.ts', line: 2, character: 40 })
    expect(textOf(definition)).toBe('goToDefinition at wrap.ts:2:18 (column 40 is past the end of line 2 (17 characters); asked at its end)\nNo results.')
    // A refusal there says so too (the code stays the server's).
    const renamed = await suite.host.app.tools.execute({ name: 'lsp_rename', arguments: { filePath: 'wrap.ts', line: 1, character: 20, newName: 'zzz' }, session: suite.session() })
    expect(renamed.isError && renamed.error.code).toBe('LSP_RENAME_REFUSED')
    expect(renamed.isError && renamed.error.message).toContain('(column 20 is past the end of line 1 (12 characters); asked at its end)')
  })

  it('reaches the server as the line end, for definitions and rename too', async () => {
    const definition = valueOf(await callLsp(suite.host, suite.session(), { operation: 'goToDefinition', filePath: 'wrap.ts', line: 2, character: 40 }))
    // Line 2's end is after the `;`: no definition there (not `a` wrapped onto line 3, which does not exist).
    expect(definition.locations).toEqual([])
    const renamed = await suite.host.app.tools.execute({ name: 'lsp_rename', arguments: { filePath: 'wrap.ts', line: 1, character: 20, newName: 'zzz' }, session: suite.session() })
    expect(renamed.isError && renamed.error.code).toBe('LSP_RENAME_REFUSED')
  })

  it('names the renamed symbol from the line the server counted, whatever the line breaks', async () => {
    const rename = (filePath: string, line: number, character: number) =>
      suite.host.app.tools.execute({ name: 'lsp_rename', arguments: { filePath, line, character, newName: 'zzz' }, session: suite.session() })
    // CR-only line ends: \`bbbbbb\` on line 2 (the name was read at the end of the text: "").
    const cr = valueOf(await rename('wrap-cr.ts', 2, 8))
    expect(cr).toMatchObject({ oldName: 'bbbbbb', totalEdits: 1, applied: false })
    // A lone \`\r\` on line 1: the use on (LSP) line 4 (the name was read on the \`\n\`-counted line 4, and the
    // edit refused as not replacing it).
    const lone = valueOf(await rename('lone-cr.ts', 4, 12))
    expect(lone).toMatchObject({ oldName: 'bbbbbb', totalEdits: 2, applied: false })
    expect(lone.files[0].lines.map((l: any) => [l.line, l.after])).toEqual([
      [3, 'const zzz = 1;'],
      [4, 'const c = zzz;'],
    ])
  })

  it('refuses a line past the end of the file with a coded error naming its length', async () => {
    // Line 3 is the empty line after the final line break: a line, answered as usual.
    expect(valueOf(await hover('wrap.ts', 3, 1)).hover).toBeNull()
    const result = await hover('wrap.ts', 50, 1)
    expect(result.isError && result.error.code).toBe('LSP_INVALID_REQUEST')
    expect(result.isError && result.error.message).toContain('line 50 is past the end of "wrap.ts", which has 3 lines')
    const calls = await suite.host.app.tools.execute({ name: 'lsp_calls', arguments: { filePath: 'wrap.ts', line: 9, character: 1, direction: 'incoming' }, session: suite.session() })
    expect(calls.isError && calls.error.code).toBe('LSP_INVALID_REQUEST')
    // The host is healthy: the next query on the file answers.
    expect(valueOf(await hover('wrap.ts', 2, 8)).hover?.contents).toContain('bbbbbb')
  })

  it('keeps a byte-order mark through a rename it applies, and counts columns without it', async () => {
    const args = { filePath: 'bom.ts', line: 1, symbol: 'bom', newName: 'bom2', apply: true }
    const renamed = valueOf(await suite.host.app.tools.execute({ name: 'lsp_rename', arguments: args, session: suite.session() }))
    expect(renamed).toMatchObject({ applied: true, totalEdits: 2, at: { line: 1, character: 7 } })
    // Written without its mark before: every renamed BOM file changed its first bytes.
    expect(readFileSync(join(suite.workspace.dir, 'bom.ts'))).toEqual(Buffer.from('\uFEFFconst bom2 = 1;\nexport const useBom = bom2 + 1;\n'))
    const references = valueOf(await hover('bom.ts', 2, 23))
    expect(references.hover?.contents).toContain('bom2')
  })

  it('names the bare name when the symbol was written qualified or called', async () => {
    const hoverAt = (symbol: string) => suite.host.app.tools.execute({ name: 'lsp', arguments: { operation: 'hover', filePath: 'wrap.ts', line: 2, symbol }, session: suite.session() })
    for (const symbol of ['Math.bbbbbb', 'x::bbbbbb', 'this->bbbbbb', 'bbbbbb()']) {
      const result = await hoverAt(symbol)
      expect(result.isError && result.error.code, symbol).toBe('LSP_SYMBOL_NOT_FOUND')
      expect(result.isError && result.error.message, symbol).toContain('Give the name alone, as written at the place: symbol "bbbbbb".')
    }
    // A bare symbol not on the line gets no such advice.
    const bare = await hoverAt('cccc')
    expect(bare.isError && bare.error.message).not.toContain('Give the name alone')
  })

  it('finds a symbol the model wrote composed (NFC) in a file that holds it decomposed (NFD)', async () => {
    const args = { operation: 'findReferences', filePath: 'nfd.ts', line: 2, character: 1, symbol: 'caf\u00e9', occurrence: 2 }
    const value = valueOf(await suite.host.app.tools.execute({ name: 'lsp', arguments: args, session: suite.session() }))
    // The file's own columns: the second use on line 2 starts at UTF-16 column 22 (one-based 23).
    expect(value.resolved).toMatchObject({ line: 2, character: 23, occurrence: 2 })
    expect(value.locations.map((l: any) => `${l.range.start.line + 1}:${l.range.start.character + 1}`)).toEqual(['1:14', '2:15', '2:23'])
  })
})
