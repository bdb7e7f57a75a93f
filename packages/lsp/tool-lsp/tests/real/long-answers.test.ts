import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PATIENT_TYPESCRIPT, realSuite } from './harness.ts'

// Answers longer than maxResultChars (16000). They were cut at that many characters, mid-line, with
// `… rename truncated`: an applied rename of a function used 480 times said "written" and never
// showed the errors it left (its last lines), a workspace search lost its count of what was left
// out. Now whole lines of the middle are left out and counted, and the head and the closing notes
// (errors after a rename, files not checked, indexing) are kept. Real tsserver.
describe('answers past maxResultChars (real tsserver)', () => {
  const suite = realSuite('ts-rename', {
    overlay: PATIENT_TYPESCRIPT,
    prepare: (dir) => {
      writeFileSync(join(dir, 'src', 'target.ts'), 'export function target(x: number): number {\n  return x * 2\n}\n')
      // A generated name of 20000 characters: its line was longer than the whole answer.
      writeFileSync(join(dir, 'src', 'huge.ts'), `export const ${'q'.repeat(20000)} = 1\n`)
      for (let file = 0; file < 12; file++) {
        const lines = ["import { target } from './target'"]
        // `fresh` is taken here: renaming `target` to it breaks this file.
        if (file === 0) lines.push('const fresh = 1')
        for (let use = 0; use < 20; use++) lines.push(`export const value${file}_${use}: number = target(${use}) + target(${use + 1}) // long enough a line`)
        writeFileSync(join(dir, 'src', `use${file}.ts`), `${lines.join('\n')}\n`)
      }
    },
  })
  const call = (name: string, args: Record<string, unknown>) => suite.host.app.tools.execute({ name, arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
  const textOf = (result: Awaited<ReturnType<typeof call>>) => {
    if (result.isError) throw new Error(`${result.error.code}: ${result.error.message}`)
    return (result.content[0] as { text: string }).text
  }
  const wholeLines = (text: string, pattern: RegExp) => {
    for (const line of text.split('\n')) if (line.startsWith('function') || line.startsWith('constant')) expect(line, 'a line cut short').toMatch(pattern)
  }

  it('a workspace search keeps whole lines and counts the ones left out', async () => {
    const text = textOf(await call('lsp_symbols', { query: 'value' }))
    expect(text.length).toBeLessThanOrEqual(16000)
    expect(text).toMatch(/^240 symbols match "value":/)
    expect(text).toMatch(/\n… \d+ more symbols omitted \(limit 16000 characters\); a longer query narrows the list\.$/)
    wholeLines(text, /long enough a line$/)
  })

  it('shows a huge name cut, with where it is', async () => {
    const search = textOf(await call('lsp_symbols', { query: 'qqqqq' }))
    expect(search.length).toBeLessThan(1000)
    expect(search).toMatch(/\nconstant q{199}… {2}src\/huge\.ts:1:14 {2}export const q{150}/)
    // tsserver cuts an outline's names itself (150 characters and `...`).
    const outline = textOf(await call('lsp_symbols', { filePath: 'src/huge.ts' }))
    expect(outline.length).toBeLessThan(1000)
    expect(outline).toMatch(/\nconstant q+(…|\.\.\.) {2}1:14$/)
  })

  it('calls past the limit are counted, whole lines kept', async () => {
    const text = textOf(await call('lsp_calls', { filePath: 'src/target.ts', line: 1, symbol: 'target', direction: 'incoming' }))
    expect(text.length).toBeLessThanOrEqual(16000)
    expect(text).toMatch(/\n… \d+ more lines omitted \(limit 16000 characters\)/)
    for (const line of text.split('\n')) if (line.includes('called at')) expect(line).toMatch(/long enough a line$/)
  })

  it('an applied rename shows the errors it left, whatever the length of its preview', async () => {
    const text = textOf(await call('lsp_rename', { filePath: 'src/target.ts', line: 1, symbol: 'target', newName: 'fresh', apply: true }))
    expect(text.length).toBeLessThanOrEqual(16000)
    expect(text).toMatch(/^Renamed "target" → "fresh": 493 edits in 13 files written\./)
    expect(text).toMatch(/\n {2}… \d+ more lines of the preview not shown \(limit 16000 characters\)\n/)
    expect(text).toMatch(/\nsrc\/use0\.ts: \d+ errors after the rename\n {2}1:10 {2}Import declaration conflicts with local declaration of 'fresh'\./)
    expect(text).toContain('not checked: src/use9.ts (past rename.diagnosticsFiles (10))')
  })
})
