import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { realSuite, valueOf } from './harness.ts'

// Issue 32 item 3: under load, typescript-language-server (tsserver 5.9) publishes a file's
// diagnostics kind by kind (syntax, then semantic, then suggestions), without versions; an answer
// taken before the semantic kind arrived said "no errors" for a file with errors, and one taken
// from an earlier publication showed an error just removed — each called complete. An answer is
// complete only when it describes the file's current text. Here CPU burners stretch the gaps; the
// assertion never depends on time: whatever the load, a complete answer must be the right one.

const OVERLAY = `
- id: lsp-stdio
  config:
    servers:
      typescript: { indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`

const CHECKED = 'const checked: number = doubled.value'
const BROKEN = 'const checked: number = doubled.valeu'
const INJECTED = 8

describe('lsp_diagnostics is never stale and called complete (tsserver 5.9, under CPU burners)', () => {
  const suite = realSuite('ts-stale', { overlay: OVERLAY })
  const burners: ChildProcess[] = []
  const file = () => join(suite.dir, 'src/chain.ts')
  /** Answers called complete (each checked): the test must not pass by answering `complete: false` only. */
  let completeAnswers = 0

  beforeAll(() => {
    for (let i = 0; i < 4; i++) burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
  })
  afterAll(() => {
    for (const burner of burners) burner.kill('SIGKILL')
  })

  /** The one-based lines holding a broken line now. */
  function brokenLines(): number[] {
    return readFileSync(file(), 'utf8').split('\n').flatMap((line, index) => (line.includes(BROKEN) ? [index + 1] : []))
  }

  /** Breaks (or fixes) the n-th checked line, tells the seam, and asks; a complete answer must name exactly the broken lines. */
  async function changeAndAsk(n: number, to: 'break' | 'fix'): Promise<void> {
    const text = readFileSync(file(), 'utf8').split('\n')
    let seen = 0
    const index = text.findIndex((line) => (line.includes(CHECKED) || line.includes(BROKEN) ? seen++ === n : false))
    text[index] = to === 'break' ? text[index]!.replace(CHECKED, BROKEN) : text[index]!.replace(BROKEN, CHECKED)
    writeFileSync(file(), text.join('\n'))
    suite.host.app.lsp.fileChanged(file())
    const value = valueOf(await suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/chain.ts', severity: 'error' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) }))
    if (!value.complete) return
    completeAnswers++
    expect({ after: `${to} ${n}`, lines: value.items.map((item: any) => item.range.start.line + 1) }).toEqual({ after: `${to} ${n}`, lines: brokenLines() })
  }

  it('every complete answer after an injected error names exactly the broken lines', async () => {
    valueOf(await suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/chain.ts' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) }))
    for (let n = 0; n < INJECTED; n++) await changeAndAsk(n * 7, 'break')
  })

  it('every complete answer after a fix names exactly the lines still broken', async () => {
    for (let n = 0; n < INJECTED; n++) await changeAndAsk(n * 7, 'fix')
    expect(completeAnswers).toBeGreaterThan(0)
  })
})
