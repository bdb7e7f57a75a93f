import { renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSystem, untracked } from '../src/index.ts'
import { harnessRejection, removeTempDirs, tempDir } from './helpers.ts'

// Issue 16, item 9: containment is proven on the real path, then the file is opened by name. A
// component swapped for a symlink between the two must not let the read leave the workspace: the
// final component is opened with O_NOFOLLOW and the opened file must be the one proven (dev/ino).
// The swap is made deterministic by doing it inside the open call of the fs row's system calls:
// the thread pool's, the event loop's, and those of a small proven file read in one go.
// A small proven file is proven by what it opened where the system names open files (Linux's
// /proc/self/fd: `descriptor`), else by `identify`'s stat and realpath before the open: every
// case runs both ways.

type Io = { open(path: string, flags: number): Promise<number> }
type SyncCalls = { open(path: string, flags: number): number; namesOpenedFiles(): boolean; openedPath(fd: number): string | undefined }

const PROOFS = process.platform === 'linux' ? (['descriptor', 'identify'] as const) : (['identify'] as const)
const CASES = (['sync', 'async'] as const).flatMap((mode) => PROOFS.map((proof) => [mode, proof] as const))

describe.each(CASES)('io: %s, a small proven file proven by %s', (mode, proof) => {
  let app: Context | undefined

  afterEach(async () => {
    await app?.stop()
    app = undefined
    await removeTempDirs()
  })

  /** A workspace with src/a.ts, a secret outside it, and a FileSystem whose next open first runs `swap`. */
  async function setup(): Promise<{ fs: FileSystem; root: string; ws: string; beforeOpen(swap: () => void): void }> {
    const root = await tempDir()
    const ws = join(root, 'ws')
    await mkdir(join(ws, 'src'), { recursive: true })
    await writeFile(join(ws, 'src', 'a.ts'), 'export const inside = 1\n')
    await mkdir(join(root, 'outside'))
    await writeFile(join(root, 'outside', 'a.ts'), 'SECRET\n')
    app = new Context()
    app.plugin(FileSystem, { io: mode })
    await app.start()
    const fs = untracked(app.fs)
    let pending: (() => void) | undefined
    const swapNow = () => {
      const swap = pending
      pending = undefined
      swap?.()
    }
    // Every flavour: a proven path is opened on the event loop whatever the mode (eventLoopReadBytes),
    // a small one in one go (provenCalls).
    const calls = fs as unknown as { io: Io; proven: Io; provenCalls: SyncCalls }
    for (const field of ['io', 'proven'] as const) {
      const io = calls[field]
      calls[field] = Object.create(io, {
        open: {
          value: async (path: string, flags: number) => {
            swapNow()
            return io.open(path, flags)
          },
        },
      }) as Io
    }
    const read = calls.provenCalls
    calls.provenCalls = Object.create(read, {
      open: {
        value: (path: string, flags: number) => {
          swapNow()
          return read.open(path, flags)
        },
      },
      ...(proof === 'identify' ? { namesOpenedFiles: { value: () => false } } : {}),
    }) as SyncCalls
    return { fs, root, ws, beforeOpen: (swap) => (pending = swap) }
  }

  it('a file swapped for a symlink out of the workspace is refused', async () => {
    const { fs, root, ws, beforeOpen } = await setup()
    const workspace = await fs.workspace(ws)
    beforeOpen(() => {
      rmSync(join(ws, 'src', 'a.ts'))
      symlinkSync(join(root, 'outside', 'a.ts'), join(ws, 'src', 'a.ts'))
    })
    const error = await harnessRejection(fs.readContainedText(workspace, 'src/a.ts', { maxBytes: 1000 }))
    expect(error.code).toBe('FS_OUTSIDE_WORKSPACE')
    expect(error.message).not.toContain('SECRET')
  })

  it('streamContainedText: a file swapped for a symlink out of the workspace is refused', async () => {
    const { fs, root, ws, beforeOpen } = await setup()
    const workspace = await fs.workspace(ws)
    beforeOpen(() => {
      rmSync(join(ws, 'src', 'a.ts'))
      symlinkSync(join(root, 'outside', 'a.ts'), join(ws, 'src', 'a.ts'))
    })
    const read = async () => {
      let text = ''
      for await (const chunk of fs.streamContainedText(workspace, 'src/a.ts')) text += chunk.text
      return text
    }
    const error = await harnessRejection(read())
    expect(error.code).toBe('FS_OUTSIDE_WORKSPACE')
  })

  it('proven: a canonical path proven earlier, its file then swapped for a symlink out, is refused (checked again, not trusted)', async () => {
    const { fs, root, ws, beforeOpen } = await setup()
    const workspace = await fs.workspace(ws)
    const path = await fs.contained(workspace, 'src/a.ts')
    beforeOpen(() => {
      rmSync(join(ws, 'src', 'a.ts'))
      symlinkSync(join(root, 'outside', 'a.ts'), join(ws, 'src', 'a.ts'))
    })
    const error = await harnessRejection(fs.readContainedText(workspace, path, { maxBytes: 1000, proven: true }))
    expect(error.code).toBe('FS_OUTSIDE_WORKSPACE')
    expect(error.message).not.toContain('SECRET')
  })

  it('proven: a directory of the proven path swapped for a symlink out, before or at the open, is refused', async () => {
    for (const when of ['before', 'open'] as const) {
      const { fs, root, ws, beforeOpen } = await setup()
      const workspace = await fs.workspace(ws)
      const path = await fs.contained(workspace, 'src/a.ts')
      const swap = () => {
        renameSync(join(ws, 'src'), join(root, `moved-${when}`))
        symlinkSync(join(root, 'outside'), join(ws, 'src'))
      }
      if (when === 'before') swap()
      else beforeOpen(swap)
      expect((await harnessRejection(fs.readContainedText(workspace, path, { maxBytes: 1000, proven: true }))).code).toBe('FS_OUTSIDE_WORKSPACE')
      await app?.stop()
      app = undefined
    }
  })

  it('proven: a path outside the workspace is proven as any, not trusted', async () => {
    const { fs, root, ws } = await setup()
    const workspace = await fs.workspace(ws)
    expect((await harnessRejection(fs.readContainedText(workspace, join(root, 'outside', 'a.ts'), { maxBytes: 1000, proven: true }))).code).toBe('FS_OUTSIDE_WORKSPACE')
  })

  it('a directory swapped for a symlink out of the workspace is refused', async () => {
    const { fs, root, ws, beforeOpen } = await setup()
    const workspace = await fs.workspace(ws)
    beforeOpen(() => {
      renameSync(join(ws, 'src'), join(root, 'moved'))
      symlinkSync(join(root, 'outside'), join(ws, 'src'))
    })
    expect((await harnessRejection(fs.readContainedText(workspace, 'src/a.ts', { maxBytes: 1000 }))).code).toBe('FS_OUTSIDE_WORKSPACE')
  })

  it('a file replaced by another file in the workspace (an editor saving) is read as it is now', async () => {
    const { fs, ws, beforeOpen } = await setup()
    const workspace = await fs.workspace(ws)
    beforeOpen(() => {
      writeFileSync(join(ws, 'src', 'a.ts.tmp'), 'export const saved = 2\n')
      renameSync(join(ws, 'src', 'a.ts.tmp'), join(ws, 'src', 'a.ts'))
    })
    expect((await fs.readContainedText(workspace, 'src/a.ts', { maxBytes: 1000 })).text).toBe('export const saved = 2\n')
  })
})

// Issue 27, diagnostics after a change: `identify` proved a small proven file by a stat and a
// realpath (a readlink per component of the path) before its open, on every read of a changed file.
// Where the system names open files, what was opened proves it: its name must be the proven path.
describe.runIf(process.platform === 'linux')('a small proven file, proven by what it opened', () => {
  let app: Context | undefined

  afterEach(async () => {
    await app?.stop()
    app = undefined
    await removeTempDirs()
  })

  type Counted = Record<string, (...args: never[]) => unknown>

  /** ctx.fs over a workspace with src/a.ts; its event-loop calls counted by name, `openedPath` answering `named` when given. */
  async function setup(named?: (actual: string | undefined) => string | undefined) {
    const root = await tempDir()
    const ws = join(root, 'ws')
    await mkdir(join(ws, 'src'), { recursive: true })
    await writeFile(join(ws, 'src', 'a.ts'), 'export const inside = 1\n')
    app = new Context()
    app.plugin(FileSystem, { io: 'async' })
    await app.start()
    const fs = untracked(app.fs)
    const holder = fs as unknown as { provenCalls: Counted }
    const calls = holder.provenCalls
    const counts = new Map<string, number>()
    const counted: Counted = {}
    for (const name of Object.keys(calls)) {
      const call = calls[name] as (...args: unknown[]) => unknown
      counted[name] = (...args: unknown[]) => {
        counts.set(name, (counts.get(name) ?? 0) + 1)
        const value = call(...args)
        return name === 'openedPath' && named ? named(value as string | undefined) : value
      }
    }
    holder.provenCalls = counted
    return { fs, ws, counts }
  }

  it('makes no stat or realpath of the path: one open, fstat, readlink of the descriptor, read and close', async () => {
    const { fs, ws, counts } = await setup()
    const workspace = await fs.workspace(ws)
    const path = await fs.contained(workspace, 'src/a.ts')
    counts.clear()
    expect((await fs.readContainedText(workspace, path, { maxBytes: 1000, proven: true })).text).toBe('export const inside = 1\n')
    // stat 1 and realpath 1 before (identify), then open, fstat, read, close.
    expect(Object.fromEntries(counts)).toEqual({ namesOpenedFiles: 1, open: 1, fstat: 1, openedPath: 1, read: 1, close: 1 })
  })

  it('a descriptor named otherwise (a name the kernel spells differently) is proven as before, by identify: same text', async () => {
    const { fs, ws, counts } = await setup(() => '/somewhere/else/a.ts')
    const workspace = await fs.workspace(ws)
    const path = await fs.contained(workspace, 'src/a.ts')
    counts.clear()
    expect((await fs.readContainedText(workspace, path, { maxBytes: 1000, proven: true })).text).toBe('export const inside = 1\n')
    expect(counts.get('stat')).toBe(1)
    expect(counts.get('realpath')).toBe(1)
  })

  it('a directory of the path replaced by a symlink to another inside the workspace before the open: the name shows it, the read goes where the path leads now', async () => {
    const { fs, ws } = await setup()
    await mkdir(join(ws, 'other'))
    await writeFile(join(ws, 'other', 'a.ts'), 'export const other = 2\n')
    const workspace = await fs.workspace(ws)
    const path = await fs.contained(workspace, 'src/a.ts')
    renameSync(join(ws, 'src'), join(ws, 'moved'))
    symlinkSync(join(ws, 'other'), join(ws, 'src'))
    // Proven afresh, as identify's check would have it: the canonical path is the other file's.
    const read = await fs.readContainedText(workspace, path, { maxBytes: 1000, proven: true })
    expect(read).toMatchObject({ path: join(ws, 'other', 'a.ts'), text: 'export const other = 2\n' })
  })
})
