import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Session } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { asyncInitsOf } from '../../../../../test-support/async-inits.ts'
import { installTypescript7, PATIENT_TYPESCRIPT, realSuite, valueOf } from './harness.ts'

// Issue 27 item 2, diagnostics after a change on TypeScript 7's own server: what one change costs
// this process, end to end through the coding preset (the file written, the seam's notice, the
// lsp_diagnostics tool: didChange and didSave, the pull, the value, the rendering), counted with
// async_hooks, never timed. Each count's comment says what it was before the cut that lowered it.

describe("diagnostics after a change on TypeScript 7's own server", () => {
  const suite = realSuite('ts-capabilities', { overlay: PATIENT_TYPESCRIPT, prepare: installTypescript7 })
  const file = 'src/main.ts'
  let session: Session | undefined
  const sessionOf = () => (session ??= suite.host.app.sessions.create({ cwd: suite.dir }))
  const diagnose = () => suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: file, severity: 'error' }, session: sessionOf() })

  it('a kept document changed on disk: its didChange handed to the writer makes no promise of its own', async () => {
    const clean = readFileSync(join(suite.dir, file), 'utf8')
    const broken = clean.replace('text: string', 'text: number')
    // Warm: the project loaded and the document kept open (ask until the answer is complete).
    for (let attempt = 1; !valueOf(await diagnose()).complete; attempt++) if (attempt === 20) throw new Error('no complete diagnostics')
    const { fileChanged } = suite.host.app.lsp
    const N = 20
    const promises: number[] = []
    for (let i = 0; i < N; i++) {
      const [text, errors] = i % 2 ? [clean, 0] : [broken, 1]
      writeFileSync(join(suite.dir, file), text)
      let value: any
      promises.push(await asyncInitsOf(async () => {
        fileChanged(file, { session: sessionOf() })
        value = valueOf(await diagnose())
      }))
      // Every change answered for its own text, by a server that answered for this version.
      expect(value).toMatchObject({ complete: true, total: errors })
    }
    // Per change (the median: a change the server answered while busy, or a plugin's timer in the
    // host meanwhile, counts a few more), the counted function's own included: 33 before
    // (instance.documentChanged's async body and its await of the writer's settled promise, and
    // sendAhead's `.catch` on that promise).
    const median = promises.sort((a, b) => a - b)[Math.floor(N / 2)]!
    expect(median).toBeLessThanOrEqual(30)
  })
})
