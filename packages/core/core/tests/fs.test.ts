import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { syncCalls } from '../src/fs/io.ts'
import { FileSystem, FsError, type PathInfo, type Workspace } from '../src/index.ts'
import { harnessRejection, removeTempDirs, tempDir } from './helpers.ts'

// Every behaviour holds for both ways of making the system calls (see src/fs/io.ts).
describe.each(['sync', 'async'] as const)('io: %s', (mode) => {
  let app: Context
  let fs: FileSystem

  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystem, { io: mode })
    await app.start()
    fs = app.fs
  })

  afterAll(async () => {
    await app.stop()
  })

  afterEach(async () => {
    await removeTempDirs()
  })

  it('readHead: the first maxBytes bytes undecoded (a byte-order mark kept), whether that is the whole file; a FIFO, a directory and a missing file are coded', async () => {
    const dir = await tempDir()
    const file = join(dir, 'SKILL.md')
    await writeFile(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('---\nname: x\n---\n'), Buffer.alloc(10_000, 0x61)]))
    const head = await fs.readHead(file, { maxBytes: 2048 })
    expect([head.bytes.length, head.size, head.complete]).toEqual([2048, 10_019, false])
    expect([...head.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const whole = await fs.readHead(file, { maxBytes: 1_000_000 })
    expect([whole.bytes.length, whole.complete]).toEqual([10_019, true])
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    await expect(fs.readHead(fifo, { maxBytes: 10 })).rejects.toMatchObject({ code: 'FS_NOT_REGULAR_FILE' })
    await expect(fs.readHead(dir, { maxBytes: 10 })).rejects.toMatchObject({ code: 'FS_NOT_REGULAR_FILE' })
    await expect(fs.readHead(join(dir, 'gone.md'), { maxBytes: 10 })).rejects.toMatchObject({ code: 'FS_NOT_FOUND' })
  })

  /**
   * root/
   *   ws/            the workspace
   *     inside.txt
   *     sub/deep.txt
   *     link-inside -> ws/sub/deep.txt
   *     escape      -> root/outside/secret.txt   (a file symlink leaving the workspace)
   *     escape-dir  -> root/outside              (a directory symlink leaving the workspace)
   *   ws-sibling/x.txt                            (shares the workspace's name as a prefix)
   *   outside/secret.txt
   *   ws-link -> ws                               (the workspace through a symlink)
   */
  async function layout() {
    const root = await tempDir()
    const ws = join(root, 'ws')
    const outside = join(root, 'outside')
    await mkdir(join(ws, 'sub'), { recursive: true })
    await mkdir(outside)
    await mkdir(join(root, 'ws-sibling'))
    await writeFile(join(ws, 'inside.txt'), 'inside\n')
    await writeFile(join(ws, 'sub', 'deep.txt'), 'deep\n')
    await writeFile(join(outside, 'secret.txt'), 'secret\n')
    await writeFile(join(root, 'ws-sibling', 'x.txt'), 'x\n')
    await symlink(join(ws, 'sub', 'deep.txt'), join(ws, 'link-inside'))
    await symlink(join(outside, 'secret.txt'), join(ws, 'escape'))
    await symlink(outside, join(ws, 'escape-dir'))
    await symlink(ws, join(root, 'ws-link'))
    return { root, ws, outside, workspace: await fs.workspace(join(root, 'ws-link')) }
  }

  async function fsCode(promise: Promise<unknown>): Promise<string> {
    const error = await harnessRejection(promise)
    expect(error).toBeInstanceOf(FsError)
    return error.code
  }

  describe('workspace', () => {
    it('canonicalises a workspace reached through a symlinked directory', async () => {
      const { ws, workspace } = await layout()
      expect(workspace.path).toBe(ws)
      expect(workspace.url).toBe(pathToFileURL(ws).href)
    })

    it('canonicalises a relative spelling with dot segments', async () => {
      const { root, ws } = await layout()
      const workspace = await fs.workspace(join(root, 'ws', 'sub', '..', '.'))
      expect(workspace.path).toBe(ws)
    })

    it('refuses a missing directory with FS_NOT_FOUND', async () => {
      const { root } = await layout()
      expect(await fsCode(fs.workspace(join(root, 'does-not-exist')))).toBe('FS_NOT_FOUND')
    })

    it('refuses a file with FS_NOT_DIRECTORY', async () => {
      const { ws } = await layout()
      expect(await fsCode(fs.workspace(join(ws, 'inside.txt')))).toBe('FS_NOT_DIRECTORY')
    })

    it('refuses when the signal is already aborted', async () => {
      const { ws } = await layout()
      await expect(fs.workspace(ws, AbortSignal.abort(new Error('stop')))).rejects.toThrow('stop')
    })
  })

  describe('workspaceNow (issue 27: the warm workspace proof in the call)', () => {
    it('answers only for a canonical workspace resolved before, with what workspace answers, and refuses as it does', async () => {
      const { root, ws } = await layout()
      const fresh = join(root, 'ws-sibling')
      // Never resolved here: left to workspace (on the thread pool under io: async).
      expect(fs.workspaceNow(fresh)).toBeUndefined()
      // A spelling through a symlink is never remembered: always left to workspace.
      expect(fs.workspaceNow(join(root, 'ws-link'))).toBeUndefined()
      const proven = await fs.workspace(ws)
      const now = fs.workspaceNow(ws)
      expect(now).toEqual(proven)
      expect(now).toEqual({ path: ws, url: pathToFileURL(ws).href })
      // Each answer is a fresh proof: a directory below it is proven against it by lstats.
      expect(fs.containedBelowNow(now!, 'sub/deep.txt')?.info).toMatchObject({ type: 'file' })
      expect(() => fs.workspaceNow(ws, AbortSignal.abort(new Error('stop')))).toThrow('stop')
    })

    it('keeps the stat each proof took, by the workspace it answered: provenWorkspaceInfo (none for a workspace it did not make)', async () => {
      const { ws } = await layout()
      const proven = await fs.workspace(ws)
      const now = fs.workspaceNow(ws)!
      expect(fs.provenWorkspaceInfo(proven)).toMatchObject({ type: 'directory', dev: statSync(ws).dev, ino: statSync(ws).ino })
      expect(fs.provenWorkspaceInfo(now)).toMatchObject({ type: 'directory', ino: statSync(ws).ino })
      expect(fs.provenWorkspaceInfo({ ...now })).toBeUndefined()
    })

    it('sees the workspace swapped since: for a file, FS_NOT_DIRECTORY; for a symlink out, the canonical target', async () => {
      const { root, ws, outside } = await layout()
      await fs.workspace(ws)
      await rename(ws, join(root, 'ws-moved'))
      await writeFile(ws, 'now a file\n')
      expect(() => fs.workspaceNow(ws)).toThrow(expect.objectContaining({ code: 'FS_NOT_DIRECTORY' }))
      await rm(ws)
      expect(() => fs.workspaceNow(ws)).toThrow(expect.objectContaining({ code: 'FS_NOT_FOUND' }))
      await symlink(outside, ws)
      const swapped = fs.workspaceNow(ws)
      expect(swapped).toEqual({ path: outside, url: pathToFileURL(outside).href })
      // A file below the old name is proven against the directory it is now, never the one before.
      expect(fs.containedBelowNow(swapped!, 'secret.txt')?.path).toBe(join(outside, 'secret.txt'))
    })
  })

  describe('contained', () => {
    it('accepts relative and absolute paths inside the workspace', async () => {
      const { ws, workspace } = await layout()
      expect(await fs.contained(workspace, 'inside.txt')).toBe(join(ws, 'inside.txt'))
      expect(await fs.contained(workspace, 'sub/deep.txt')).toBe(join(ws, 'sub', 'deep.txt'))
      expect(await fs.contained(workspace, './sub/../inside.txt')).toBe(join(ws, 'inside.txt'))
      expect(await fs.contained(workspace, join(ws, 'sub', 'deep.txt'))).toBe(join(ws, 'sub', 'deep.txt'))
      expect(await fs.contained(workspace, '.')).toBe(ws)
    })

    it('accepts an absolute path spelled through the symlinked workspace and returns it canonical', async () => {
      const { root, ws, workspace } = await layout()
      expect(await fs.contained(workspace, join(root, 'ws-link', 'inside.txt'))).toBe(join(ws, 'inside.txt'))
    })

    it('accepts a symlink inside that points inside, returning its target', async () => {
      const { ws, workspace } = await layout()
      expect(await fs.contained(workspace, 'link-inside')).toBe(join(ws, 'sub', 'deep.txt'))
    })

    it('accepts a missing file inside (for files about to be created)', async () => {
      const { ws, workspace } = await layout()
      expect(await fs.contained(workspace, 'sub/new/file.txt')).toBe(join(ws, 'sub', 'new', 'file.txt'))
    })

    it.each([
      ['a .. escape', '../outside/secret.txt'],
      ['a .. escape to the parent itself', '..'],
      ['a deep .. escape', 'sub/../../outside/secret.txt'],
      ['a .. escape to a missing file', '../outside/missing.txt'],
      ['a sibling whose name starts with the workspace name', '../ws-sibling/x.txt'],
    ])('refuses %s with FS_OUTSIDE_WORKSPACE', async (_label, path) => {
      const { workspace } = await layout()
      expect(await fsCode(fs.contained(workspace, path))).toBe('FS_OUTSIDE_WORKSPACE')
    })

    it('refuses an absolute path outside with FS_OUTSIDE_WORKSPACE', async () => {
      const { outside, workspace } = await layout()
      expect(await fsCode(fs.contained(workspace, join(outside, 'secret.txt')))).toBe('FS_OUTSIDE_WORKSPACE')
      expect(await fsCode(fs.contained(workspace, '/'))).toBe('FS_OUTSIDE_WORKSPACE')
    })

    it('refuses an in-workspace symlink that points outside with FS_OUTSIDE_WORKSPACE', async () => {
      const { ws, workspace } = await layout()
      expect(await fsCode(fs.contained(workspace, 'escape'))).toBe('FS_OUTSIDE_WORKSPACE')
      expect(await fsCode(fs.contained(workspace, join(ws, 'escape')))).toBe('FS_OUTSIDE_WORKSPACE')
    })

    it('refuses a path through an in-workspace directory symlink that points outside', async () => {
      const { workspace } = await layout()
      expect(await fsCode(fs.contained(workspace, 'escape-dir/secret.txt'))).toBe('FS_OUTSIDE_WORKSPACE')
      expect(await fsCode(fs.contained(workspace, 'escape-dir'))).toBe('FS_OUTSIDE_WORKSPACE')
      // Also for a file that does not exist yet behind the escaping directory.
      expect(await fsCode(fs.contained(workspace, 'escape-dir/not-yet.txt'))).toBe('FS_OUTSIDE_WORKSPACE')
    })

    it('readContainedText refuses an escaping symlink before reading anything', async () => {
      const { workspace } = await layout()
      expect(await fsCode(fs.readContainedText(workspace, 'escape', { maxBytes: 1000 }))).toBe('FS_OUTSIDE_WORKSPACE')
      const read = await fs.readContainedText(workspace, 'link-inside', { maxBytes: 1000 })
      expect(read).toEqual({ path: join(workspace.path, 'sub', 'deep.txt'), url: pathToFileURL(join(workspace.path, 'sub', 'deep.txt')).href, text: 'deep\n' })
    })
  })

  describe('containedNow (issue 27 item 2: the proof on the event loop, in the call)', () => {
    it('answers what contained answers for a path spelled inside, without a promise', async () => {
      const { root, ws, workspace } = await layout()
      for (const path of ['inside.txt', 'sub/deep.txt', './sub/../inside.txt', join(ws, 'sub', 'deep.txt'), '.', 'link-inside', 'sub/new/file.txt']) {
        const now = fs.containedNow(workspace, path)
        expect(typeof now).toBe('string')
        expect(now).toBe(await fs.contained(workspace, path))
      }
      // Spelled outside (through the symlinked workspace, or away from it): left to contained, on the thread pool.
      expect(fs.containedNow(workspace, join(root, 'ws-link', 'inside.txt'))).toBeUndefined()
      expect(fs.containedNow(workspace, '../outside/secret.txt')).toBeUndefined()
      expect(fs.containedNow(workspace, '/')).toBeUndefined()
      // With the proofs kept off the event loop (proofsOnEventLoop: false), never answered here.
      const off = new Context()
      off.plugin(FileSystem, { io: mode, proofsOnEventLoop: false })
      await off.start()
      try {
        expect(off.fs.containedNow(workspace, 'inside.txt')).toBeUndefined()
        expect(await off.fs.contained(workspace, 'inside.txt')).toBe(join(ws, 'inside.txt'))
      } finally {
        await off.stop()
      }
    })

    it.each([
      ['an in-workspace symlink pointing outside', 'escape'],
      ['a path through a directory symlink pointing outside', 'escape-dir/secret.txt'],
      ['a missing file behind a directory symlink pointing outside', 'escape-dir/not-yet.txt'],
      ['the escaping directory itself', 'escape-dir'],
    ])('throws FS_OUTSIDE_WORKSPACE for %s, as contained rejects (containedBelowNow too)', async (_label, path) => {
      const { workspace } = await layout()
      expect(() => fs.containedNow(workspace, path)).toThrow(expect.objectContaining({ code: 'FS_OUTSIDE_WORKSPACE' }))
      expect(() => fs.containedBelowNow(workspace, path)).toThrow(expect.objectContaining({ code: 'FS_OUTSIDE_WORKSPACE' }))
      expect(await fsCode(fs.contained(workspace, path))).toBe('FS_OUTSIDE_WORKSPACE')
    })

    it('refuses a component swapped for a symlink out of the workspace after an earlier proof (containedBelowNow too)', async () => {
      const { ws, workspace, outside } = await layout()
      await mkdir(join(ws, 'swapped'))
      await writeFile(join(ws, 'swapped', 'secret.txt'), 'inside\n')
      expect(fs.containedNow(workspace, 'swapped/secret.txt')).toBe(join(ws, 'swapped', 'secret.txt'))
      expect(fs.containedBelowNow(workspace, 'swapped/secret.txt')?.path).toBe(join(ws, 'swapped', 'secret.txt'))
      await rm(join(ws, 'swapped'), { recursive: true })
      await symlink(outside, join(ws, 'swapped'))
      expect(() => fs.containedNow(workspace, 'swapped/secret.txt')).toThrow(expect.objectContaining({ code: 'FS_OUTSIDE_WORKSPACE' }))
      expect(() => fs.containedBelowNow(workspace, 'swapped/secret.txt')).toThrow(expect.objectContaining({ code: 'FS_OUTSIDE_WORKSPACE' }))
    })
  })

  describe('containedBelowNow (issue 27 item 2: a file below a workspace just proven, by lstats below it)', () => {
    /** The event loop's lstat and realpath calls `work` made (the shared SyncCalls of ctx.fs). */
    function callsOf(work: () => unknown): { lstat: number; realpath: number } {
      const lstat = vi.spyOn(syncCalls, 'lstat')
      const realpath = vi.spyOn(syncCalls, 'realpath')
      try {
        work()
        return { lstat: lstat.mock.calls.length, realpath: realpath.mock.calls.length }
      } finally {
        lstat.mockRestore()
        realpath.mockRestore()
      }
    }

    it('answers what containedNow answers for every spelling inside, with the lstat of what exists', async () => {
      const { root, ws, workspace } = await layout()
      await mkdir(join(ws, 'sub', 'deeper'))
      for (const path of ['inside.txt', 'sub/deep.txt', './sub/../inside.txt', join(ws, 'sub', 'deep.txt'), '.', 'sub', 'link-inside', 'sub/new/file.txt', 'sub/deeper/missing.txt', 'inside.txt/under-a-file', 'missing-dir/x/y.txt']) {
        const below = fs.containedBelowNow(workspace, path)
        expect(below?.path, path).toBe(fs.containedNow(workspace, path))
        expect(below?.path, path).toBe(await fs.contained(workspace, path))
      }
      expect(fs.containedBelowNow(workspace, 'sub/deep.txt')?.info).toMatchObject({ type: 'file', size: 5 })
      expect(fs.containedBelowNow(workspace, 'sub/missing.txt')?.info).toBeUndefined()
      // A symlink is resolved instead (its info would be the link's): no info.
      expect(fs.containedBelowNow(workspace, 'link-inside')).toEqual({ path: join(ws, 'sub', 'deep.txt'), info: undefined })
      // Spelled outside: left to contained, as containedNow.
      expect(fs.containedBelowNow(workspace, join(root, 'ws-link', 'inside.txt'))).toBeUndefined()
      expect(fs.containedBelowNow(workspace, '../outside/secret.txt')).toBeUndefined()
    })

    it('proves a file with an lstat of the workspace and of each name below it, not a resolution from /', async () => {
      const { ws, workspace } = await layout()
      await mkdir(join(ws, 'a', 'b'), { recursive: true })
      await writeFile(join(ws, 'a', 'b', 'c.ts'), 'c\n')
      // Before: one realpath of the whole path (one readlink per name from /).
      expect(callsOf(() => fs.containedNow(workspace, 'a/b/c.ts'))).toEqual({ lstat: 0, realpath: 1 })
      expect(callsOf(() => fs.containedBelowNow(workspace, 'a/b/c.ts'))).toEqual({ lstat: 4, realpath: 0 })
      // The workspace directory looked at earlier in the same piece of work (a call's second file): the names below it only.
      expect(callsOf(() => fs.containedBelowNow(workspace, 'a/b/c.ts', { workspaceChecked: true }))).toEqual({ lstat: 3, realpath: 0 })
      expect(fs.containedBelowNow(workspace, 'a/b/c.ts', { workspaceChecked: true })?.path).toBe(join(ws, 'a', 'b', 'c.ts'))
      // The directories the walk passed, with their lstats: a caller looking at them in the same pass needs no second one.
      const directories = new Map<string, PathInfo>()
      fs.containedBelowNow(workspace, 'a/b/c.ts', { directories })
      expect([...directories.keys()]).toEqual([ws, join(ws, 'a'), join(ws, 'a', 'b')])
      expect([...directories.values()].every((info) => info.type === 'directory')).toBe(true)
      // A workspace this ctx.fs did not answer with is resolved as containedNow resolves.
      expect(callsOf(() => fs.containedBelowNow({ ...workspace }, 'a/b/c.ts'))).toEqual({ lstat: 0, realpath: 1 })
    })

    it('sees the workspace directory itself swapped after its proof: moved away and replaced by a symlink out, or by another directory', async () => {
      const { root, ws, outside } = await layout()
      const workspace = await fs.workspace(ws)
      expect(fs.containedBelowNow(workspace, 'inside.txt')?.path).toBe(join(ws, 'inside.txt'))
      await writeFile(join(outside, 'inside.txt'), 'outside\n')
      await rename(ws, join(root, 'ws-moved'))
      await symlink(outside, ws)
      // The workspace's own lstat shows the symlink: resolved from /, and refused.
      expect(() => fs.containedBelowNow(workspace, 'inside.txt')).toThrow(expect.objectContaining({ code: 'FS_OUTSIDE_WORKSPACE' }))
      await rm(ws)
      await mkdir(ws)
      await writeFile(join(ws, 'inside.txt'), 'another\n')
      // Another directory under the same name: not the one proven (device and inode), so resolved as containedNow does.
      expect(callsOf(() => fs.containedBelowNow(workspace, 'inside.txt'))).toEqual({ lstat: 1, realpath: 1 })
    })
  })

  describe('contains', () => {
    it('is true for the directory itself and descendants only', () => {
      expect(fs.contains('/a/b', '/a/b')).toBe(true)
      expect(fs.contains('/a/b', '/a/b/c/d')).toBe(true)
      expect(fs.contains('/a/b', '/a/b..c')).toBe(false)
      expect(fs.contains('/a/b', '/a/bc')).toBe(false)
      expect(fs.contains('/a/b', '/a')).toBe(false)
      expect(fs.contains('/a/b', '/x/b')).toBe(false)
    })

    it('keeps a descendant whose name starts with two dots inside', () => {
      expect(fs.contains('/a/b', '/a/b/..hidden')).toBe(true)
    })
  })

  describe('resolve', () => {
    it('returns the realpath of the nearest existing ancestor plus the missing tail', async () => {
      const { root, ws } = await layout()
      expect(await fs.resolve('nope/deeper/file.txt', { cwd: join(root, 'ws-link') })).toBe(join(ws, 'nope', 'deeper', 'file.txt'))
      expect(await fs.resolve(join(root, 'ws-link', 'sub', 'missing.txt'))).toBe(join(ws, 'sub', 'missing.txt'))
    })

    it('resolves an existing symlink to its target', async () => {
      const { ws, outside } = await layout()
      expect(await fs.resolve('escape', { cwd: ws })).toBe(join(outside, 'secret.txt'))
    })

    it('treats a path below a regular file as missing below that file', async () => {
      const { ws } = await layout()
      expect(await fs.resolve('inside.txt/child', { cwd: ws })).toBe(join(ws, 'inside.txt', 'child'))
    })

    it('rejects when the signal is already aborted', async () => {
      const { ws } = await layout()
      await expect(fs.resolve('inside.txt', { cwd: ws, signal: AbortSignal.abort(new Error('halt')) })).rejects.toThrow('halt')
    })
  })

  describe('stat', () => {
    it('reports type and size, and undefined for a missing path', async () => {
      const { ws } = await layout()
      expect(await fs.stat(join(ws, 'inside.txt'))).toMatchObject({ type: 'file', size: 7 })
      expect(await fs.stat(join(ws, 'sub'))).toMatchObject({ type: 'directory' })
      expect(await fs.stat(join(ws, 'missing'))).toBeUndefined()
    })
  })

  // Issue 27, diagnostics after a change: a small file read whole in one read (readContainedText's
  // read on the event loop) is decoded in one go (isUtf8, then the bytes as UTF-8) instead of through
  // a streaming TextDecoder made per file. The text and the refusals are the streaming decoder's.
  describe('readContainedText of a small file, decoded whole', () => {
    const CASES: [string, string | Buffer][] = [
      ['text', 'line one\r\nligne deux — ünïcödé 😀\n\ttabbed\n'],
      ['empty', ''],
      ['byte-order mark, dropped as the decoder drops it', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\ufeffafter')])],
      ['a literal U+FFFD', 'before \uFFFD after'],
      ['binary', Buffer.from([0x68, 0x69, 0x00, 0x21])],
      ['invalid UTF-8', Buffer.from([0x61, 0xff, 0xfe, 0x62])],
      ['a truncated sequence at the end', Buffer.from([0x61, 0xf0, 0x9f, 0x98])],
      ['an encoded surrogate', Buffer.from([0x61, 0xed, 0xa0, 0x80])],
    ]

    it.each(CASES)('%s: the answer readText gives (its streaming decoder)', async (_name, content) => {
      const dir = await tempDir()
      await writeFile(join(dir, 'f.txt'), content)
      const workspace = await fs.workspace(dir)
      const settle = (work: Promise<string>) => work.then((text) => ({ text }), (error: FsError) => ({ code: error.code }))
      const whole = await settle(fs.readContainedText(workspace, 'f.txt', { maxBytes: 1000 }).then((read) => read.text))
      expect(whole).toEqual(await settle(fs.readText(join(dir, 'f.txt'), { maxBytes: 1000 })))
    })

    // The reads on the event loop share one buffer (opened-text.ts): nothing of one read may show in the next.
    it('reads in a row each answer their own file: a shorter file after a longer, a file rewritten with the same length, a binary or invalid file after a text, a file of several chunks', async () => {
      const dir = await tempDir()
      const workspace = await fs.workspace(dir)
      const read = (name: string) => fs.readContainedText(workspace, name, { maxBytes: 300_000 }).then((answer) => answer.text, (error: FsError) => error.code)
      const long = `${'x'.repeat(3000)}\n`
      const several = Array.from({ length: 9000 }, (_, index) => `line ${index}\n`).join('')
      await writeFile(join(dir, 'long.ts'), long)
      await writeFile(join(dir, 'short.ts'), 'short\n')
      await writeFile(join(dir, 'nul.ts'), Buffer.from([0x61, 0x00, 0x62]))
      await writeFile(join(dir, 'bad.ts'), Buffer.from([0x61, 0xff, 0x62]))
      await writeFile(join(dir, 'several.ts'), several)
      expect(await read('long.ts')).toBe(long)
      expect(await read('short.ts')).toBe('short\n')
      await writeFile(join(dir, 'short.ts'), 'SHORT\n')
      expect(await read('short.ts')).toBe('SHORT\n')
      expect(await read('nul.ts')).toBe('FS_NOT_TEXT')
      expect(await read('short.ts')).toBe('SHORT\n')
      expect(await read('bad.ts')).toBe('FS_NOT_TEXT')
      expect(await read('several.ts')).toBe(several)
      expect(await read('short.ts')).toBe('SHORT\n')
      expect(await read('long.ts')).toBe(long)
    })

    it('makes no TextDecoder', async () => {
      const dir = await tempDir()
      await writeFile(join(dir, 'f.ts'), 'export const a = 1\n')
      const workspace = await fs.workspace(dir)
      const made = vi.spyOn(globalThis, 'TextDecoder')
      try {
        expect((await fs.readContainedText(workspace, 'f.ts', { maxBytes: 1000 })).text).toBe('export const a = 1\n')
        // 1 before: a fatal streaming decoder per file read.
        expect(made).toHaveBeenCalledTimes(0)
      } finally {
        made.mockRestore()
      }
    })
  })

  describe('readText', () => {
    async function file(name: string, content: string | Buffer) {
      const dir = await tempDir()
      const path = join(dir, name)
      await writeFile(path, content)
      return path
    }

    it('returns the exact text', async () => {
      const text = 'line one\r\nligne deux — ünïcödé 😀\n\ttabbed\n'
      expect(await fs.readText(await file('a.txt', text), { maxBytes: 1000 })).toBe(text)
    })

    it('reads an empty file as the empty string', async () => {
      expect(await fs.readText(await file('empty.txt', ''), { maxBytes: 0 })).toBe('')
    })

    it('accepts a file of exactly maxBytes bytes', async () => {
      const text = 'é'.repeat(50) // 100 bytes
      const path = await file('cap.txt', text)
      expect(await fs.readText(path, { maxBytes: 100 })).toBe(text)
    })

    it('refuses a file one byte over the cap with FS_TOO_LARGE', async () => {
      const path = await file('over.txt', 'x'.repeat(101))
      const error = await harnessRejection(fs.readText(path, { maxBytes: 100 }))
      expect(error.code).toBe('FS_TOO_LARGE')
      expect(error.message).toContain('exceeds the 100-byte limit')
      expect(error.message).toContain('reading stopped after 101 bytes')
    })

    it('stops reading a large file early instead of reading all of it', async () => {
      const size = 4 * 1024 * 1024
      const path = await file('large.txt', Buffer.alloc(size, 'a'))
      const error = await harnessRejection(fs.readText(path, { maxBytes: 10 }))
      expect(error.code).toBe('FS_TOO_LARGE')
      const stoppedAfter = Number(/reading stopped after (\d+) bytes/.exec(error.message)?.[1])
      expect(stoppedAfter).toBeGreaterThan(10)
      expect(stoppedAfter).toBeLessThan(size)
    })

    it('keeps a multi-byte character that straddles a read chunk', async () => {
      const text = `${'a'.repeat(64 * 1024 - 1)}😀${'b'.repeat(10)}`
      expect(await fs.readText(await file('straddle.txt', text), { maxBytes: 1_000_000 })).toBe(text)
    })

    it('reads a file whose size says 0 (procfs) whole, in chunks sized independently of that', async () => {
      const text = await fs.readText('/proc/self/status', { maxBytes: 1_000_000 })
      expect(text).toMatch(/^Name:/)
      expect(text).toContain('VmRSS:')
    })

    it('refuses binary content (a NUL byte) with FS_NOT_TEXT', async () => {
      const path = await file('bin.dat', Buffer.from([0x68, 0x69, 0x00, 0x21]))
      expect(await fsCode(fs.readText(path, { maxBytes: 1000 }))).toBe('FS_NOT_TEXT')
    })

    it('refuses invalid UTF-8 (bytes FF FE) with FS_NOT_TEXT', async () => {
      const path = await file('latin.txt', Buffer.from([0x61, 0xff, 0xfe, 0x62]))
      expect(await fsCode(fs.readText(path, { maxBytes: 1000 }))).toBe('FS_NOT_TEXT')
    })

    it('refuses a file that ends in a truncated multi-byte sequence with FS_NOT_TEXT', async () => {
      const path = await file('cut.txt', Buffer.from([0x61, 0xf0, 0x9f, 0x98]))
      expect(await fsCode(fs.readText(path, { maxBytes: 1000 }))).toBe('FS_NOT_TEXT')
    })

    it('preserves a literal U+FFFD', async () => {
      const text = 'before \uFFFD after'
      const path = await file('fffd.txt', text)
      expect(await fs.readText(path, { maxBytes: 1000 })).toBe(text)
    })

    it('refuses a directory with FS_NOT_REGULAR_FILE', async () => {
      const dir = await tempDir()
      expect(await fsCode(fs.readText(dir, { maxBytes: 1000 }))).toBe('FS_NOT_REGULAR_FILE')
    })

    it('refuses a FIFO with no writer with FS_NOT_REGULAR_FILE without blocking', async () => {
      const dir = await tempDir()
      const fifo = join(dir, 'pipe')
      execFileSync('mkfifo', [fifo])
      expect(await fsCode(fs.readText(fifo, { maxBytes: 1000 }))).toBe('FS_NOT_REGULAR_FILE')
    })

    it('refuses a missing file with FS_NOT_FOUND', async () => {
      const dir = await tempDir()
      expect(await fsCode(fs.readText(join(dir, 'missing.txt'), { maxBytes: 1000 }))).toBe('FS_NOT_FOUND')
    })

    it('rejects when the signal is already aborted', async () => {
      const path = await file('a.txt', 'text')
      await expect(fs.readText(path, { maxBytes: 1000, signal: AbortSignal.abort(new Error('cancelled read')) })).rejects.toThrow('cancelled read')
    })

    it('stops between chunks when the signal aborts during a read', async () => {
      const path = await file('big.txt', Buffer.alloc(1024 * 1024, 'a'))
      const controller = new AbortController()
      const stream = fs.streamText(path, controller.signal)
      const first = await stream.next()
      expect(first.done).toBe(false)
      controller.abort(new Error('enough'))
      await expect(stream.next()).rejects.toThrow('enough')
    })
  })

  describe('fileUrl', () => {
    it('percent-encodes # and spaces and round-trips', async () => {
      const url = fs.fileUrl('/tmp/a dir/c#d.txt')
      expect(url).toBe('file:///tmp/a%20dir/c%23d.txt')
      expect(fileURLToPath(url)).toBe('/tmp/a dir/c#d.txt')
    })

    it('gives a workspace with # and a space in its name a URL that round-trips', async () => {
      const root = await tempDir()
      const dir = join(root, 'my #1 project')
      await mkdir(dir)
      const workspace: Workspace = await fs.workspace(dir)
      expect(workspace.url).toContain('my%20%231%20project')
      expect(fileURLToPath(workspace.url)).toBe(dir)
    })
  })
})
