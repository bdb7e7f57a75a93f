// Issue 27 item 2, the fixed work around each request on a server that keeps documents open:
// - a request on a kept document hashed the file's text every time to learn whether it changed; a
//   reused read of the unchanged file is the very read the server's text came from: no hash;
// - a change notice resolved its path on the thread pool, and the next request waits for that; a
//   path spelled inside a live server's root is resolved there on the event loop, like a proof.
// Hashes and resolutions are counted (node:crypto's one-shot hash, its named exports re-synced, and
// ctx.fs spied), not timed.
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FileSystem } from 'dsh-core'
import { SETTLE_MS } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

afterEach(async () => {
  vi.restoreAllMocks()
  syncBuiltinESMExports()
  await cleanupRigs()
})

const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }

describe('a kept document on an unchanged file', () => {
  it('is not hashed again by later requests; a change is, and is sent', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: KEEPING })
    // Old enough for its read to be reused (SETTLE_MS): the case of a repository's files.
    await clockPastSettle(SETTLE_MS)
    await rig.query('hover')
    const hashed = vi.spyOn(crypto, 'hash')
    syncBuiltinESMExports()
    for (let query = 0; query < 5; query++) await rig.query('hover')
    expect(hashed).not.toHaveBeenCalled()
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    await rig.query('hover')
    expect(hashed).toHaveBeenCalledTimes(1)
    const sent = fakeMessages(rig.entries(), 'in').filter((message) => message.method === 'textDocument/didChange').map((message) => (message.params as any).contentChanges[0].text)
    expect(sent).toEqual(['two\n'])
  })
})

describe('a change notice', () => {
  const changes = (rig: Awaited<ReturnType<typeof makeRig>>) => fakeMessages(rig.entries(), 'in').filter((message) => message.method === 'textDocument/didChange').map((message) => (message.params as any).contentChanges[0].text)

  it('for a file in a live server’s root, under any spelling there, is canonicalised on the event loop (no thread-pool resolve)', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n', 'b.ts': 'b\n' }, fake: KEEPING })
    symlinkSync(join(rig.ws, 'a.ts'), join(rig.ws, 'alias.ts'))
    await rig.query('hover')
    const resolves = vi.spyOn(FileSystem.prototype, 'resolve')
    writeFileSync(join(rig.ws, 'a.ts'), 'two\n')
    rig.provider.fileChanged({ path: join(rig.ws, 'alias.ts'), kind: 'changed' })
    await rig.query('hover', { filePath: 'b.ts' })
    expect(changes(rig)).toEqual(['two\n'])
    expect(resolves).not.toHaveBeenCalled()
  })

  it('for a path outside every live root is resolved as any path', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: KEEPING })
    await rig.query('hover')
    const resolves = vi.spyOn(FileSystem.prototype, 'resolve')
    rig.provider.fileChanged({ path: join(rig.ws, '..', 'elsewhere.ts'), kind: 'changed' })
    await rig.query('hover')
    expect(resolves).toHaveBeenCalledTimes(1)
    expect(changes(rig)).toEqual([])
  })
})
