import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { FileSystem } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 27 item 2: with `io: async` every system call of ctx.fs was a thread-pool round trip, a
// dozen per lsp call. A path ctx.fs has just resolved lies on a file system that answers, so what
// follows on it — the stat of the canonical path, the identity check, the open and read of a small
// regular file, a name looked up in a directory the proof walked — runs on the event loop. Only
// the resolution itself (and anything large, or behind a symlink) stays on the thread pool. The
// thread-pool requests are counted as libuv creates them (FSREQCALLBACK / FSREQPROMISE): a count,
// not a timing.

/** How many thread-pool file-system requests `work` made. */
const threadPoolRequests = (work: () => Promise<unknown>) => asyncInitsOf(work, ['FSREQCALLBACK', 'FSREQPROMISE'])

/** How many promises `work` created: each is a microtask turn and a hook call in a host with async hooks. */
const promisesMade = (work: () => Promise<unknown>) => asyncInitsOf(work)

describe('ctx.fs with io: async: the thread pool only for resolution', () => {
  let app: Context
  let fs: FileSystem

  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystem, { io: 'async', eventLoopReadBytes: 64 * 1024 })
    await app.start()
    fs = app.fs
  })
  afterAll(() => app.stop())
  afterEach(() => removeTempDirs())

  async function workspace() {
    const ws = await tempDir()
    await mkdir(join(ws, 'src'))
    await writeFile(join(ws, 'src', 'main.ts'), 'export const a = 1\n')
    await writeFile(join(ws, 'package-lock.json'), '{}\n')
    return fs.workspace(ws)
  }

  it('workspace(): one request (the resolution); the stat of the canonical directory follows on the event loop', async () => {
    const ws = await tempDir()
    expect(await threadPoolRequests(() => fs.workspace(ws))).toBe(1)
  })

  it('workspace() again of a canonical directory that answered before: resolved again, on the event loop (issue 27 item 2: one hop per lsp call less)', async () => {
    const ws = await tempDir()
    await fs.workspace(ws)
    expect(await threadPoolRequests(() => fs.workspace(ws))).toBe(0)
    // Resolved and checked in the call: its own promise beside an awaited async function's (8 more before).
    const awaiting = await promisesMade(async () => await (async () => '')())
    expect((await promisesMade(async () => await fs.workspace(ws))) - awaiting).toBeLessThanOrEqual(0)
    // still a resolution, not a cache: a directory that went away is refused
    await rm(ws, { recursive: true })
    await expect(fs.workspace(ws)).rejects.toMatchObject({ code: 'FS_NOT_FOUND' })
  })

  it('readContainedText of a small file spelled inside the workspace: no request at all', async () => {
    const ws = await workspace()
    let text = ''
    expect(await threadPoolRequests(async () => (text = (await fs.readContainedText(ws, 'src/main.ts', { maxBytes: 1024 })).text))).toBe(0)
    expect(text).toBe('export const a = 1\n')
  })

  it('readContainedText of a small file already proven: read whole in one go, not through the chunk stream (issue 27 item 2: about 20 promises per read of a changed source file before)', async () => {
    const ws = await workspace()
    const path = await fs.contained(ws, 'src/main.ts')
    const read = () => fs.readContainedText(ws, path, { maxBytes: 1024, proven: true })
    await read()
    let text = ''
    // Beside what awaiting any async function costs here: its own promise, nothing more (32 before).
    const awaiting = await promisesMade(async () => await (async () => '')())
    expect((await promisesMade(async () => (text = (await read()).text))) - awaiting).toBeLessThanOrEqual(1)
    expect(text).toBe('export const a = 1\n')
    // The same checks and errors as the chunked read.
    await writeFile(join(ws.path, 'src', 'main.ts'), 'x'.repeat(2000))
    await expect(read()).rejects.toMatchObject({ code: 'FS_TOO_LARGE', message: expect.stringContaining('reading stopped after 2000 bytes') })
    await writeFile(join(ws.path, 'src', 'main.ts'), Buffer.from([0x61, 0, 0x62]))
    await expect(read()).rejects.toMatchObject({ code: 'FS_NOT_TEXT', message: expect.stringContaining('binary') })
    await writeFile(join(ws.path, 'src', 'main.ts'), Buffer.from([0x61, 0xe2, 0x82]))
    await expect(read()).rejects.toMatchObject({ code: 'FS_NOT_TEXT', message: expect.stringContaining('UTF-8') })
    await writeFile(join(ws.path, 'src', 'main.ts'), '')
    expect((await read()).text).toBe('')
    await expect(fs.readContainedText(ws, path, { maxBytes: 1024, proven: true, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'FS_ABORTED' })
  })

  it('a path spelled outside the workspace is resolved on the thread pool (and refused)', async () => {
    const ws = await workspace()
    const outside = await tempDir()
    await writeFile(join(outside, 'b.ts'), 'b\n')
    let code: unknown
    expect(await threadPoolRequests(() => fs.readContainedText(ws, join(outside, 'b.ts'), { maxBytes: 1024 }).catch((error) => (code = error.code)))).toBe(1)
    expect(code).toBe('FS_OUTSIDE_WORKSPACE')
  })

  it('proofsOnEventLoop: false keeps every containment proof on the thread pool', async () => {
    const other = new Context()
    other.plugin(FileSystem, { io: 'async', proofsOnEventLoop: false })
    await other.start()
    try {
      const ws = await workspace()
      expect(await threadPoolRequests(() => other.fs.readContainedText(ws, 'src/main.ts', { maxBytes: 1024 }))).toBe(1)
    } finally {
      await other.stop()
    }
  })

  it('a file over eventLoopReadBytes is read on the thread pool', async () => {
    const ws = await workspace()
    await writeFile(join(ws.path, 'big.ts'), 'x'.repeat(100 * 1024))
    expect(await threadPoolRequests(() => fs.readContainedText(ws, 'big.ts', { maxBytes: 1024 * 1024 }))).toBeGreaterThan(2)
  })

  it('streamContainedText of a small file: no request, and the lines as they are now', async () => {
    const ws = await workspace()
    const read = async () => {
      let text = ''
      for await (const chunk of fs.streamContainedText(ws, 'src/main.ts')) text += chunk.text
      return text
    }
    let text = ''
    expect(await threadPoolRequests(async () => (text = await read()))).toBe(0)
    expect(text).toBe('export const a = 1\n')
    // Same size, same second: nothing is cached, the next read sees the change.
    await writeFile(join(ws.path, 'src', 'main.ts'), 'export const b = 2\n')
    expect(await read()).toBe('export const b = 2\n')
  })

  it('streamContainedText refuses a path that leads out of the workspace', async () => {
    const ws = await workspace()
    const outside = await tempDir()
    await writeFile(join(outside, 'secret.ts'), 'secret\n')
    await symlink(join(outside, 'secret.ts'), join(ws.path, 'link.ts'))
    const consume = async () => {
      for await (const _ of fs.streamContainedText(ws, 'link.ts')) void _
    }
    await expect(consume()).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })

  it('statBesideProven: a name in a directory just resolved costs no request; a symlink is followed on the thread pool', async () => {
    const ws = await workspace()
    expect(await threadPoolRequests(() => fs.statBesideProven(join(ws.path, 'package-lock.json')))).toBe(0)
    expect(await threadPoolRequests(() => fs.statBesideProven(join(ws.path, 'yarn.lock')))).toBe(0)
    expect(await fs.statBesideProven(join(ws.path, 'yarn.lock'))).toBeUndefined()
    expect(await fs.statBesideProven(join(ws.path, 'package-lock.json'))).toMatchObject({ type: 'file' })
    const target = await tempDir()
    await writeFile(join(target, 'lock'), '')
    await symlink(join(target, 'lock'), join(ws.path, 'bun.lock'))
    let info
    expect(await threadPoolRequests(async () => (info = await fs.statBesideProven(join(ws.path, 'bun.lock'))))).toBe(1)
    expect(info).toMatchObject({ type: 'file' })
    // Its twin without a promise answers the same, and leaves the symlink to its caller.
    expect(fs.lstatBesideProven(join(ws.path, 'yarn.lock'))).toBeUndefined()
    expect(fs.lstatBesideProven(join(ws.path, 'package-lock.json'))).toMatchObject({ type: 'file' })
    expect(fs.lstatBesideProven(join(ws.path, 'bun.lock'))).toBe('symlink')
  })
})
