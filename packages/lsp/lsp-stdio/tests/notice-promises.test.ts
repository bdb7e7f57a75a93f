// Issue 27 item 2, diagnostics after a change: each notice (`fileChanged`) canonicalised its path
// through ctx.fs's async `contained` (about a dozen promises through the resolution's layers) and
// was tracked as pending, so the request that followed waited for it. A path spelled inside a live
// server's canonical root is now proven in the call (`containedNow`) and queued at once. Counted
// with async_hooks in this process, not timed.
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { asyncInitsOf, countAsyncInits } from '../../../../test-support/async-inits.ts'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, fileUrl, makeRig, tempDir, waitFor } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }

/** One turn of the event loop: whatever the notice started in microtasks has run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('a file change told to a live server', () => {
  it('is proven and queued in the call: a bounded number of promises, and the next request sees it', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: KEEPING })
    await rig.query('hover')
    const N = 20
    let promises = 0
    for (let i = 0; i < N; i++) {
      writeFileSync(join(rig.ws, 'b.ts'), `b${i}\n`)
      promises += await asyncInitsOf(async () => {
        rig.provider.fileChanged({ path: join(rig.ws, 'b.ts'), kind: 'changed' })
        await turn()
      })
    }
    // 27 per notice (sources through tsx; the counted function's promises and one loop turn included)
    // with the async proof and the pending-notice tracking; 15 with the proof in the call (the
    // queue, the tell and its write were left); 10 with the tell in the call (its write is left).
    expect(promises / N).toBeLessThanOrEqual(10)
    await waitFor(() => fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles').length === N, 'every notice told')
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
    await rig.query('hover')
    const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => (message.params as any).contentChanges[0].text)
    expect(changes).toEqual(['two\n'])
  })

  it('of a document the server keeps, with nothing queued there, is told in the call: no promise, and the next request sends its text', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: KEEPING })
    await rig.query('hover')
    await turn()
    const N = 20
    let promises = 0
    for (let i = 0; i < N; i++) {
      writeFileSync(join(rig.ws, 'a.ts'), `v${i}\n`)
      const counting = countAsyncInits()
      rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'changed' })
      promises += counting.stop()
    }
    // 157 in 20 notices made in the call (the queue's turn and tail, the tell's promise, its tracking;
    // sources through tsx) while the queue ran the tell in the call anyway; none once it is told there directly.
    expect(promises).toBe(0)
    // A request on another file sends the kept document's new text first, once.
    await rig.query('hover', { filePath: 'b.ts' })
    const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => (message.params as any).contentChanges[0].text)
    expect(changes).toEqual([`v${N - 1}\n`])
  })

  it('named through a symlink leading out of the workspace, is resolved as any path and told to nobody there', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: KEEPING })
    await rig.query('hover')
    const outside = join(tempDir(), 'secret.ts')
    writeFileSync(outside, 'secret\n')
    symlinkSync(outside, join(rig.ws, 'escape.ts'))
    rig.provider.fileChanged({ path: join(rig.ws, 'escape.ts'), kind: 'changed' })
    rig.provider.fileChanged({ path: join(rig.ws, 'a.ts'), kind: 'deleted' })
    // The deletion is a didClose and then a didChangeWatchedFiles, two writes the fake may log apart.
    await waitFor(() => fakeMessages(rig.entries(), 'in', 'textDocument/didClose').length === 1, 'the deletion closed')
    await waitFor(() => fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles').length >= 1, 'the deletion told')
    // A request waits for every notice still being resolved, so a late tell of the escape would be in by now.
    await rig.query('hover', { filePath: 'b.ts' })
    const watched = fakeMessages(rig.entries(), 'in', 'workspace/didChangeWatchedFiles').map((message) => (message.params as any).changes)
    expect(watched).toEqual([[{ uri: fileUrl(join(rig.ws, 'a.ts')), type: 3 }]])
  })
})
