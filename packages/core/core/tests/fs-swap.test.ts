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

type Io = { open(path: string, flags: number): Promise<number> }
type SyncCalls = { open(path: string, flags: number): number }

describe.each(['sync', 'async'] as const)('io: %s', (mode) => {
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
