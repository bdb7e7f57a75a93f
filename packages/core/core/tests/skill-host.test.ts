import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { FileSystem, FsError, ReadinessService, SessionService, ToolRuntime, type Capability } from '../src/index.ts'
import { harnessRejection, harnessThrow, removeTempDirs, tempDir } from './helpers.ts'

// The host additions the skill surface needs: ctx.fs.listDir, FS_ABORTED, Session.visible(seq)
// with compaction ranges, and capabilities that report one row per thing found (probeRows).

let app: Context

beforeAll(async () => {
  app = new Context()
  app.plugin(ToolRuntime, {})
  app.plugin(FileSystem)
  app.plugin(SessionService)
  app.plugin(ReadinessService, { probeTimeoutMs: 500 })
  await app.start()
})

afterAll(async () => {
  await app.stop()
})

afterEach(async () => {
  await removeTempDirs()
})

describe('ctx.fs.listDir', () => {
  it('lists direct children sorted by code point, following symlinks for the type', async () => {
    const dir = await tempDir()
    const elsewhere = await tempDir()
    await mkdir(join(dir, 'b-dir'))
    await writeFile(join(dir, 'B.md'), 'x')
    await writeFile(join(dir, 'a.md'), 'x')
    await mkdir(join(elsewhere, 'target-dir'))
    await writeFile(join(elsewhere, 'target.md'), 'x')
    await symlink(join(elsewhere, 'target-dir'), join(dir, 'link-dir'))
    await symlink(join(elsewhere, 'target.md'), join(dir, 'link-file'))
    await symlink(join(elsewhere, 'gone'), join(dir, 'link-broken'))
    await symlink('/dev/null', join(dir, 'link-device'))
    const entries = await app.fs.listDir(dir)
    expect(entries).toEqual([
      { name: 'B.md', path: join(dir, 'B.md'), type: 'file', symlink: false },
      { name: 'a.md', path: join(dir, 'a.md'), type: 'file', symlink: false },
      { name: 'b-dir', path: join(dir, 'b-dir'), type: 'directory', symlink: false },
      { name: 'link-broken', path: join(dir, 'link-broken'), type: 'missing', symlink: true },
      { name: 'link-device', path: join(dir, 'link-device'), type: 'other', symlink: true },
      { name: 'link-dir', path: join(dir, 'link-dir'), type: 'directory', symlink: true },
      { name: 'link-file', path: join(dir, 'link-file'), type: 'file', symlink: true },
    ])
  })

  it('is FS_NOT_FOUND for a missing directory and FS_NOT_DIRECTORY for a file', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'file'), 'x')
    expect((await harnessRejection(app.fs.listDir(join(dir, 'missing')))).code).toBe('FS_NOT_FOUND')
    expect((await harnessRejection(app.fs.listDir(join(dir, 'file')))).code).toBe('FS_NOT_DIRECTORY')
  })

  it('lists an empty directory as no entries', async () => {
    expect(await app.fs.listDir(await tempDir())).toEqual([])
  })
})

describe('FS_ABORTED', () => {
  it('is the code of every fs call made with an aborted signal, the reason kept as cause', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'a.txt'), 'text')
    const reason = new Error('user pressed stop')
    const signal = AbortSignal.abort(reason)
    const calls = [
      app.fs.listDir(dir, signal),
      app.fs.stat(join(dir, 'a.txt'), signal),
      app.fs.resolve('a.txt', { cwd: dir, signal }),
      app.fs.readText(join(dir, 'a.txt'), { maxBytes: 100, signal }),
      app.fs.workspace(dir, signal),
    ]
    for (const call of calls) {
      const error = await harnessRejection(call)
      expect(error).toBeInstanceOf(FsError)
      expect(error.code).toBe('FS_ABORTED')
      expect(error.cause).toBe(reason)
      expect(error.message).toContain('user pressed stop')
    }
  })

  it('also codes an abort without a reason of its own', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await harnessRejection(app.fs.listDir(await tempDir(), controller.signal))
    expect(error.code).toBe('FS_ABORTED')
  })
})

describe('Session.visible', () => {
  it('is true for every logged event until a later event replaces its range', () => {
    const session = app.sessions.create({ cwd: '/tmp' })
    for (let i = 0; i < 5; i++) session.append('user/message', { n: i })
    expect([0, 1, 2, 3, 4].map((seq) => session.visible(seq))).toEqual([true, true, true, true, true])
    const summary = session.append('user/message', { summary: true }, { replaces: { start: 1, end: 3 } })
    expect(summary.seq).toBe(5)
    expect([0, 1, 2, 3, 4, 5].map((seq) => session.visible(seq))).toEqual([true, false, false, false, true, true])
    // The replaced events stay in the log: it is append-only.
    expect(session.events).toHaveLength(6)
  })

  it('is false for seqs that were never logged', () => {
    const session = app.sessions.create({ cwd: '/tmp' })
    session.append('a', 1)
    expect([-1, 1, 0.5, Number.NaN].map((seq) => session.visible(seq))).toEqual([false, false, false, false])
  })

  it('refuses a replaced range that is not a range of logged seqs, logging nothing', () => {
    const session = app.sessions.create({ cwd: '/tmp' })
    session.append('a', 1)
    session.append('b', 2)
    for (const replaces of [{ start: 1, end: 0 }, { start: 0, end: 2 }, { start: -1, end: 0 }, { start: 0.5, end: 1 }]) {
      expect(harnessThrow(() => session.append('c', 3, { replaces })).code).toBe('SESSION_INVALID_EVENT')
    }
    expect(session.events).toHaveLength(2)
    expect(session.visible(0)).toBe(true)
  })
})

describe('capabilities with probeRows', () => {
  const base = (overrides: Partial<Capability> & { id: string }): Capability => ({
    surface: 'things',
    configured: true,
    status: () => ({ state: 'idle', detail: 'not looked yet' }),
    ...overrides,
  })

  it('replace their own row with the rows found when probing, and show their own row otherwise', async () => {
    const dispose = app.readiness.register(
      base({
        id: 'finder',
        probeRows: async ({ cwd }) => [
          { id: 'first', state: 'ready', detail: `in ${cwd}` },
          { id: 'second', state: 'unavailable', detail: 'broken' },
        ],
      }),
    )
    const toolGone = app.tools.register({ name: 'thing', surface: 'things', description: 'A thing.', input: z.object({}), execute: async () => ({}) })
    try {
      expect(await app.readiness.report()).toEqual([{ surface: 'things', id: 'finder', configured: true, tools: ['thing'], state: 'idle', detail: 'not looked yet' }])
      expect(await app.readiness.report({ probe: true, cwd: '/w' })).toEqual([
        { surface: 'things', id: 'first', configured: true, tools: ['thing'], state: 'ready', detail: 'in /w' },
        { surface: 'things', id: 'second', configured: true, tools: ['thing'], state: 'unavailable', detail: 'broken' },
      ])
    } finally {
      dispose()
      toolGone()
    }
  })

  it('show nothing for an empty list, and one unavailable row when finding fails', async () => {
    const empty = app.readiness.register(base({ id: 'empty', probeRows: async () => [] }))
    const failing = app.readiness.register(
      base({
        id: 'failing',
        probeRows: async () => {
          throw new Error('cannot look')
        },
      }),
    )
    try {
      expect(await app.readiness.report({ probe: true })).toEqual([
        { surface: 'things', id: 'failing', configured: true, tools: [], state: 'unavailable', detail: 'cannot look' },
      ])
    } finally {
      empty()
      failing()
    }
  })
})
