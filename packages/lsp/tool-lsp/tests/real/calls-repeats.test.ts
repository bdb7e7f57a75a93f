import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PATIENT_TYPESCRIPT, realSuite } from './harness.ts'

// The provider expands each function once, so a recursion (or a function reached twice) is listed
// again without its calls. The text showed it bare, like a function that calls nothing: `even`
// under `odd` under `even` read as if `even` called nothing. Now such a repeat says its calls are
// listed where it was expanded. Real tsserver.
describe('lsp_calls on recursion (real tsserver)', () => {
  const suite = realSuite('ts-rename', {
    overlay: PATIENT_TYPESCRIPT,
    prepare: (dir) =>
      writeFileSync(
        join(dir, 'src', 'rec.ts'),
        [
          'export function even(n: number): boolean {',
          '  return n === 0 ? true : odd(n - 1)',
          '}',
          'export function odd(n: number): boolean {',
          '  return n === 0 ? false : even(n - 1)',
          '}',
          'export function fact(n: number): number {',
          '  return n <= 1 ? 1 : n * fact(n - 1)',
          '}',
          '',
        ].join('\n'),
      ),
  })
  const calls = async (args: Record<string, unknown>) => {
    const result = await suite.host.app.tools.execute({ name: 'lsp_calls', arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    if (result.isError) throw new Error(`${result.error.code}: ${result.error.message}`)
    return (result.content[0] as { text: string }).text
  }

  it('says a function listed again has its calls listed above', async () => {
    const mutual = await calls({ filePath: 'src/rec.ts', line: 1, symbol: 'even', direction: 'outgoing', depth: 3 })
    expect(mutual.split('\n').slice(1)).toEqual([
      '  function odd  src/rec.ts:4:17',
      '    called at src/rec.ts:2:27  return n === 0 ? true : odd(n - 1)',
      '    function even  src/rec.ts:1:17  (recursion: its calls are listed above)',
      '      called at src/rec.ts:5:28  return n === 0 ? false : even(n - 1)',
    ])
    const self = await calls({ filePath: 'src/rec.ts', line: 7, symbol: 'fact', direction: 'incoming', depth: 2 })
    expect(self).toContain('  function fact  src/rec.ts:7:17  (recursion: its calls are listed above)\n')
    // At the last level nothing is expanded: no note there.
    const shallow = await calls({ filePath: 'src/rec.ts', line: 1, symbol: 'even', direction: 'outgoing', depth: 2 })
    expect(shallow).not.toContain('recursion')
  })
})
