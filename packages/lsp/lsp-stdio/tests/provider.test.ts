// [FS]/[PROC] The provider pipeline: workspace and source checks before any server starts (coded,
// L1), the per-workspace queue, one server per canonical workspace, disposal and teardown
// (reference lsp.md §3.3, §3.4, §3.10; checklist 82–102 as they surface through the provider,
// 119–124, 138–153).
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SETTLE_MS } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fakeEvents, fakeMessages, waitForFakeLog } from './fixtures/fake-config.ts'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { mkfifoSync } from './fixtures/mkfifo.ts'
import { caseRigs, cleanupRigs, fileUrl, isAlive, makeRig, makeWorkspace, range, rejection, waitFor } from './fixtures/rig.ts'

afterEach(cleanupRigs)

describe('sources and workspaces are checked before any server starts', () => {
  async function refusedWithoutServer(rig: Awaited<ReturnType<typeof makeRig>>, filePath: string, code: string, workspaceRoot = rig.ws) {
    const error = await rejection(rig.query('goToDefinition', { filePath, workspaceRoot }))
    expect(error.code).toBe(code)
    expect(rig.pids()).toEqual([])
    expect(rig.subprocess.live).toBe(0)
    return error
  }

  it('an absolute path outside the workspace → LSP_SOURCE_OUTSIDE_WORKSPACE (92, 138)', async () => {
    const rig = await makeRig()
    const outside = makeWorkspace({ 'secret.ts': 'export const s = 1\n' })
    const error = await refusedWithoutServer(rig, join(outside, 'secret.ts'), 'LSP_SOURCE_OUTSIDE_WORKSPACE')
    expect(error.message).toContain('outside the workspace')
  })

  it('a `..` path escaping the workspace → LSP_SOURCE_OUTSIDE_WORKSPACE', async () => {
    const rig = await makeRig()
    const sibling = makeWorkspace({ 'b.ts': 'x\n' })
    await refusedWithoutServer(rig, `../${sibling.split('/').pop()}/b.ts`, 'LSP_SOURCE_OUTSIDE_WORKSPACE')
    await refusedWithoutServer(rig, '../does-not-exist.ts', 'LSP_SOURCE_OUTSIDE_WORKSPACE')
  })

  it('an in-workspace symlink to an outside file → LSP_SOURCE_OUTSIDE_WORKSPACE (91)', async () => {
    const rig = await makeRig()
    const outside = makeWorkspace({ 'secret.ts': 'export const s = 1\n' })
    symlinkSync(join(outside, 'secret.ts'), join(rig.ws, 'link.ts'))
    symlinkSync(outside, join(rig.ws, 'linkdir'))
    await refusedWithoutServer(rig, 'link.ts', 'LSP_SOURCE_OUTSIDE_WORKSPACE')
    await refusedWithoutServer(rig, 'linkdir/secret.ts', 'LSP_SOURCE_OUTSIDE_WORKSPACE')
  })

  it('a missing source → LSP_SOURCE_INVALID saying not found (93)', async () => {
    const rig = await makeRig()
    const error = await refusedWithoutServer(rig, 'missing.ts', 'LSP_SOURCE_INVALID')
    expect(error.message).toMatch(/does not exist|not found/)
  })

  it('a directory, the workspace itself and a FIFO are LSP_SOURCE_INVALID (95, 96, 98)', async () => {
    const rig = await makeRig()
    mkdirSync(join(rig.ws, 'dir.ts'))
    await refusedWithoutServer(rig, 'dir.ts', 'LSP_SOURCE_INVALID')
    await refusedWithoutServer(rig, '.', 'LSP_SOURCE_INVALID')
    if (mkfifoSync(join(rig.ws, 'pipe.ts'))) {
      const error = await refusedWithoutServer(rig, 'pipe.ts', 'LSP_SOURCE_INVALID')
      expect(error.message).toContain('not a regular file')
    }
  })

  it('a binary file and invalid UTF-8 are LSP_SOURCE_INVALID (101)', async () => {
    const rig = await makeRig()
    writeFileSync(join(rig.ws, 'bin.ts'), Buffer.from([0x61, 0x00, 0x62]))
    writeFileSync(join(rig.ws, 'latin1.ts'), Buffer.from([0xff, 0xfe, 0x41]))
    expect((await refusedWithoutServer(rig, 'bin.ts', 'LSP_SOURCE_INVALID')).message).toMatch(/binary/)
    expect((await refusedWithoutServer(rig, 'latin1.ts', 'LSP_SOURCE_INVALID')).message).toMatch(/UTF-8/)
  })

  it('a source over maxDocumentBytes → LSP_SOURCE_INVALID; exactly the cap is accepted (99, 100)', async () => {
    const rig = await makeRig({ server: { maxDocumentBytes: 6 }, files: { 'big.ts': 'x'.repeat(100), 'euro.ts': '€abc', 'seven.ts': '€abcd' } })
    const error = await refusedWithoutServer(rig, 'big.ts', 'LSP_SOURCE_INVALID')
    expect(error.message).toContain('exceeds the 6-byte limit')
    await refusedWithoutServer(rig, 'seven.ts', 'LSP_SOURCE_INVALID')
    expect(await rig.query('goToDefinition', { filePath: 'euro.ts' })).toMatchObject({ kind: 'locations' })
    expect(fakeMessages(rig.entries(), 'in', 'textDocument/didOpen')[0]?.params.textDocument.text).toBe('€abc')
  })

  it('an unreadable source is LSP_SOURCE_INVALID', async () => {
    if (process.getuid?.() === 0) return // root reads anything
    const rig = await makeRig()
    chmodSync(join(rig.ws, 'a.ts'), 0)
    await refusedWithoutServer(rig, 'a.ts', 'LSP_SOURCE_INVALID')
  })

  it('a missing workspace or a file as workspace → LSP_WORKSPACE_INVALID (84, 86)', async () => {
    const rig = await makeRig()
    const missing = await refusedWithoutServer(rig, 'a.ts', 'LSP_WORKSPACE_INVALID', join(rig.ws, 'nope'))
    expect(missing.message).toContain('does not exist')
    const file = await refusedWithoutServer(rig, 'a.ts', 'LSP_WORKSPACE_INVALID', join(rig.ws, 'a.ts'))
    expect(file.message).toContain('not a directory')
  })

  it('sources through in-workspace symlinks open under their canonical URI (90)', async () => {
    const rig = await makeRig({ files: { 'real/c.ts': 'export const c = 3\n' } })
    symlinkSync(join(rig.ws, 'real'), join(rig.ws, 'linked'))
    await rig.query('hover', { filePath: 'linked/c.ts' })
    await rig.query('hover', { filePath: join(rig.ws, 'real', 'c.ts') })
    const opened = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen').map((m) => m.params.textDocument.uri)
    expect(opened).toEqual([`${rig.wsUrl}/real/c.ts`, `${rig.wsUrl}/real/c.ts`])
  })

  it('after a refused source, the next valid query starts the server normally', async () => {
    const rig = await makeRig()
    await refusedWithoutServer(rig, 'missing.ts', 'LSP_SOURCE_INVALID')
    expect(await rig.query('goToDefinition')).toMatchObject({ kind: 'locations', locations: [] })
    expect(rig.pids()).toHaveLength(1)
  })
})

describe('queueing and pooling', () => {
  it('three concurrent queries on one workspace are serialised through one process (139)', async () => {
    const rig = await makeRig({ fake: { delayMs: { 'textDocument/definition': 50 }, results: { 'textDocument/definition': [{ uri: 'file:///w/x.ts', range: range(0, 0) }] } } })
    const results = await Promise.all([rig.query('goToDefinition'), rig.query('goToDefinition'), rig.query('goToDefinition')])
    for (const result of results) expect(result).toMatchObject({ locations: [{ uri: 'file:///w/x.ts' }] })
    expect(rig.pids()).toHaveLength(1)
    const entries = await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/didClose').length === 3)
    const lifecycle = fakeMessages(entries, 'in')
      .map((m) => m.method)
      .filter((m) => m?.startsWith('textDocument/'))
    expect(lifecycle).toEqual(Array.from({ length: 3 }, () => ['textDocument/didOpen', 'textDocument/definition', 'textDocument/didClose']).flat())
  })

  it('a queued query reads its source at its turn: the didOpen texts are [old, new] (140)', async () => {
    const rig = await makeRig({ fake: { hang: ['textDocument/definition'], answerCancel: true }, files: { 'a.ts': 'old\n' } })
    const controller = new AbortController()
    const first = rig.query('goToDefinition', {}, controller.signal)
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    const second = rig.query('hover')
    writeFileSync(join(rig.ws, 'a.ts'), 'new\n')
    controller.abort(new Error('first is done'))
    await rejection(first)
    expect(await second).toMatchObject({ kind: 'hover' })
    const texts = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen').map((m) => m.params.textDocument.text)
    expect(texts).toEqual(['old\n', 'new\n'])
    expect(rig.pids()).toHaveLength(1)
  })

  it('an unchanged source is read once for many queries; a change is read at the next (issue 27 item 2)', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'old\n' } })
    // A file changed within SETTLE_MS could repeat its times: it is kept only once it has stood still that long.
    await clockPastSettle(SETTLE_MS)
    const fs = rig.app.get('fs')!
    // A small source is read in the call (readContainedTextNow), a larger one or one that must wait awaited.
    const spies = [vi.spyOn(fs, 'readContainedText'), vi.spyOn(fs, 'readContainedTextNow')]
    const reads = () => spies.reduce((sum, spy) => sum + spy.mock.results.filter((result) => result.type === 'return' && result.value !== undefined).length, 0)
    await rig.query('goToDefinition')
    await rig.query('hover')
    await rig.query('findReferences')
    expect(reads()).toBe(1)
    writeFileSync(join(rig.ws, 'a.ts'), 'new\n')
    await rig.query('hover')
    expect(reads()).toBe(2)
    const texts = fakeMessages(rig.entries(), 'in', 'textDocument/didOpen').map((m) => m.params.textDocument.text)
    expect(texts).toEqual(['old\n', 'old\n', 'old\n', 'new\n'])
  })

  it('an aborted waiter gives up at once without letting the next query overtake the running one', async () => {
    const rig = await makeRig({ fake: { delayMs: { 'textDocument/definition': 300 } } })
    const running = rig.query('goToDefinition')
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    const controller = new AbortController()
    const waiter = rig.query('hover', {}, controller.signal)
    const third = rig.query('findReferences')
    const reason = new Error('waiter gave up')
    controller.abort(reason)
    expect(await rejection(waiter)).toBe(reason)
    await Promise.all([running, third])
    const methods = fakeMessages(rig.entries(), 'in')
      .map((m) => m.method)
      .filter((m) => m === 'textDocument/definition' || m === 'textDocument/references' || m === 'textDocument/hover')
    expect(methods).toEqual(['textDocument/definition', 'textDocument/references'])
  })

  it('an abort during the filesystem phase starts nothing and does not poison the pool (147)', async () => {
    const rig = await makeRig()
    const controller = new AbortController()
    const pending = rig.query('goToDefinition', {}, controller.signal)
    controller.abort(new Error('early'))
    expect((await rejection(pending)).message).toBe('early')
    expect(await rig.query('goToDefinition')).toMatchObject({ kind: 'locations' })
    expect(rig.pids()).toHaveLength(1)
  })

  it('two workspaces get two processes, each in its own canonical directory (152)', async () => {
    const rig = await makeRig()
    const other = makeWorkspace({ 'a.ts': 'export const b = 2\n' })
    const [one, two] = await Promise.all([rig.query('goToDefinition'), rig.query('goToDefinition', { workspaceRoot: other })])
    expect(one).toMatchObject({ resolvedWorkspaceUri: rig.wsUrl })
    expect(two).toMatchObject({ resolvedWorkspaceUri: fileUrl(other) })
    const started = fakeEvents(rig.entries(), 'started')
    expect(started).toHaveLength(2)
    expect(new Set(started.map((s) => s.cwd))).toEqual(new Set([rig.ws, other]))
    expect(new Set(started.map((s) => s.pid)).size).toBe(2)
    // each keeps serving its own workspace
    await rig.query('hover', { workspaceRoot: other })
    await rig.query('hover')
    expect(rig.pids()).toHaveLength(2)
  })
})

describe('status', () => {
  it('idle before any query, starting during the handshake, ready after it', async () => {
    const rig = await makeRig({ fake: { delayMs: { initialize: 300 }, serverInfo: { name: 'fake-ls', version: '1.2' } } })
    expect(rig.provider.status()).toMatchObject({ state: 'idle' })
    const pending = rig.query('hover')
    await waitFor(() => rig.provider.status().state === 'starting', 'starting state')
    await pending
    const ready = rig.provider.status()
    expect(ready.state).toBe('ready')
    expect(ready.detail).toContain('fake-ls 1.2')
    expect(ready.detail).toContain(`pid ${rig.pids()[0]}`)
    expect(ready.detail).toMatch(/\[[^\]]*\.ts[^\]]*\]$/)
    expect(rig.reports).toContain('starting')
    expect(rig.reports).toContain('initialized')
  })

  it('after disposal the provider reports idle again', async () => {
    const rig = await makeRig()
    await rig.query('hover')
    await rig.provider.disposeAll()
    expect(rig.provider.status().state).toBe('idle')
  })
})

describe('teardown', () => {
  it('disposal lets the server finish shutdown and exit cleanly (119)', async () => {
    const rig = await makeRig({ fake: { exitDelayMs: 75 } })
    await rig.query('hover')
    const [pid] = rig.pids()
    await rig.provider.disposeAll()
    const entries = rig.entries()
    expect(fakeMessages(entries, 'in', 'shutdown')).toHaveLength(1)
    expect(fakeMessages(entries, 'in', 'exit')).toHaveLength(1)
    expect(fakeEvents(entries, 'exit-clean')).toHaveLength(1)
    expect(fakeEvents(entries, 'sigterm')).toHaveLength(0)
    expect(isAlive(pid!)).toBe(false)
  })

  it('a second disposeAll resolves; queries after disposal are LSP_DISPOSED and start nothing (120, 121)', async () => {
    const rig = await makeRig()
    await rig.query('hover')
    await rig.provider.disposeAll()
    await expect(rig.provider.disposeAll()).resolves.toBeUndefined()
    const error = await rejection(rig.query('hover'))
    expect(error.code).toBe('LSP_DISPOSED')
    expect(rig.pids()).toHaveLength(1)
  })

  // These two side by side, each its own rig torn down when it ends: each waits out a SIGTERM grace.
  it.concurrent('a server that ignores shutdown and traps SIGTERM is still disposed (123, 153)', async (context) => {
    const rig = await caseRigs(context).makeRig({ fake: { ignoreShutdown: true, trapSigterm: true, ignoreStdinEnd: true } })
    await rig.query('hover')
    const [pid] = rig.pids()
    await rig.provider.disposeAll()
    expect(isAlive(pid!)).toBe(false)
    expect(fakeEvents(rig.entries(), 'sigterm').length).toBeGreaterThan(0)
  })

  it.concurrent('a grandchild that traps SIGTERM is gone when each of two concurrent disposals resolves (124)', async (context) => {
    const rig = await caseRigs(context).makeRig({ fake: { grandchild: true } })
    await rig.query('hover')
    const grandchild = fakeEvents(rig.entries(), 'grandchild')[0]?.pid
    expect(grandchild).toBeTypeOf('number')
    expect(isAlive(grandchild!)).toBe(true)
    const first = rig.provider.disposeAll().then(() => isAlive(grandchild!))
    const second = rig.provider.disposeAll().then(() => isAlive(grandchild!))
    expect(await first).toBe(false)
    expect(await second).toBe(false)
  })

  it('disposal while a query is in flight rejects it with LSP_DISPOSED and leaves nothing running', async () => {
    const rig = await makeRig({ fake: { hang: ['textDocument/definition'] } })
    const pending = rig.query('goToDefinition')
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    await rig.provider.disposeAll()
    const error = await rejection(pending)
    expect(error.code).toBe('LSP_DISPOSED')
    expect(error.message).toContain('provider is disposed')
    expect(rig.pids().filter(isAlive)).toEqual([])
  })

  it('disposal while a server is still starting ends it too', async () => {
    const rig = await makeRig({ fake: { hang: ['initialize'] } })
    const pending = rig.query('goToDefinition')
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'initialize').length === 1)
    await rig.provider.disposeAll()
    expect((await rejection(pending)).code).toBe('LSP_DISPOSED')
    expect(rig.pids().filter(isAlive)).toEqual([])
  })

  it('disposal with queries waiting in the queue rejects all of them with LSP_DISPOSED', async () => {
    const rig = await makeRig({ fake: { delayMs: { 'textDocument/definition': 200 } } })
    const first = rig.query('goToDefinition')
    first.catch(() => {})
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    const queries = [first, rig.query('hover'), rig.query('findReferences')]
    const settled = Promise.allSettled(queries)
    await rig.provider.disposeAll()
    const outcomes = await settled
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected')
      expect((outcome as PromiseRejectedResult).reason.code).toBe('LSP_DISPOSED')
    }
    expect(fakeMessages(rig.entries(), 'in', 'textDocument/hover')).toHaveLength(0)
  })
})
