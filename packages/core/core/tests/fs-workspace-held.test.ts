import { readdirSync, readlinkSync, statSync } from 'node:fs'
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSystem, untracked } from '../src/index.ts'
import { fsSyncCallsBy } from '../../../../test-support/fs-sync-calls.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 27 item 2: every lsp call proves its workspace again (`workspaceNow`): a realpath (a
// readlink per component) and a stat, on every diagnostics call after an edit. A canonical
// workspace proven there is held open (a directory descriptor): the next proof is the kernel's own
// name for that directory (one readlink of /proc/self/fd/N) and its fstat. Counted, not timed; and
// every way the directory can change under the held descriptor answers as the resolution does.
// Linux only: elsewhere open files are not named, nothing is held, and the proof is the resolution.

const linux = process.platform === 'linux'

describe.runIf(linux)('workspaceNow with the workspace directory held open', () => {
  let app: Context | undefined

  afterEach(async () => {
    await app?.stop()
    app = undefined
    await removeTempDirs()
  })

  async function setup() {
    const root = await tempDir()
    const ws = join(root, 'ws')
    const outside = join(root, 'outside')
    await mkdir(join(ws, 'src'), { recursive: true })
    await mkdir(outside)
    await writeFile(join(outside, 'secret.txt'), 'secret\n')
    app = new Context()
    app.plugin(FileSystem, { io: 'async' })
    await app.start()
    const fs = untracked(app.fs)
    await fs.workspace(ws)
    // The first proof on the event loop resolves, stats and holds the directory.
    fs.workspaceNow(ws)
    return { fs, root, ws, outside }
  }

  it('proves a warm workspace by the held directory: one openedPath and one fstat, no realpath or stat', async () => {
    const { fs, ws } = await setup()
    const N = 5
    const counted = await fsSyncCallsBy(fs, () => {
      for (let i = 0; i < N; i++) expect(fs.workspaceNow(ws)).toEqual({ path: ws, url: pathToFileURL(ws).href })
    })
    // 1 realpath and 1 stat per proof before (the realpath a readlink per component of the path).
    expect(Object.fromEntries(counted)).toEqual({ openedPath: N, fstat: N })
    expect(fs.provenWorkspaceInfo(fs.workspaceNow(ws)!)).toMatchObject({ type: 'directory', dev: statSync(ws).dev, ino: statSync(ws).ino })
  })

  it('the stat it answers is the directory now (an entry added shows in its mtime), as the root finder needs', async () => {
    const { fs, ws } = await setup()
    const before = fs.provenWorkspaceInfo(fs.workspaceNow(ws)!)!
    await new Promise((resolve) => setTimeout(resolve, 20))
    await writeFile(join(ws, 'package.json'), '{}\n')
    const after = fs.provenWorkspaceInfo(fs.workspaceNow(ws)!)!
    expect(after.mtimeMs).toBe(statSync(ws).mtimeMs)
    expect(after.mtimeMs).not.toBe(before.mtimeMs)
  })

  it('the workspace moved away and a file put at its name: FS_NOT_DIRECTORY; removed: FS_NOT_FOUND', async () => {
    const { fs, root, ws } = await setup()
    await rename(ws, join(root, 'ws-moved'))
    await writeFile(ws, 'now a file\n')
    expect(() => fs.workspaceNow(ws)).toThrow(expect.objectContaining({ code: 'FS_NOT_DIRECTORY' }))
    await rm(ws)
    expect(() => fs.workspaceNow(ws)).toThrow(expect.objectContaining({ code: 'FS_NOT_FOUND' }))
  })

  it('the workspace deleted under the held descriptor: FS_NOT_FOUND, not the deleted directory', async () => {
    const { fs, ws } = await setup()
    await rm(ws, { recursive: true })
    expect(() => fs.workspaceNow(ws)).toThrow(expect.objectContaining({ code: 'FS_NOT_FOUND' }))
  })

  it('the workspace swapped for a symlink out: the canonical target, as the resolution answers; never the held directory', async () => {
    const { fs, root, ws, outside } = await setup()
    await rename(ws, join(root, 'ws-moved'))
    await symlink(outside, ws)
    const swapped = fs.workspaceNow(ws)
    expect(swapped).toEqual({ path: outside, url: pathToFileURL(outside).href })
    expect(fs.provenWorkspaceInfo(swapped!)).toMatchObject({ ino: statSync(outside).ino })
    expect(fs.containedBelowNow(swapped!, 'secret.txt')?.path).toBe(join(outside, 'secret.txt'))
  })

  it('a directory above the workspace swapped for a symlink to another holding a ws: the path resolved anew, that directory answered', async () => {
    const { fs, root } = await setup()
    const parent = join(root, 'p')
    await mkdir(join(parent, 'ws'), { recursive: true })
    const top = await tempDir()
    const spelled = join(top, 'link', 'ws')
    await mkdir(join(top, 'real', 'ws'), { recursive: true })
    await symlink(join(top, 'real'), join(top, 'link'))
    // Proven and held through its canonical spelling only: a spelling through a symlink is never held.
    expect(fs.workspaceNow(spelled)).toBeUndefined()
    const canonical = join(top, 'real', 'ws')
    await fs.workspace(canonical)
    fs.workspaceNow(canonical)
    expect(fs.workspaceNow(canonical)).toEqual({ path: canonical, url: pathToFileURL(canonical).href })
    // Now `real` becomes a symlink to p: real/ws names p/ws, another directory.
    await rename(join(top, 'real'), join(top, 'real-was'))
    await symlink(parent, join(top, 'real'))
    const moved = fs.workspaceNow(canonical)
    expect(moved).toEqual({ path: join(parent, 'ws'), url: pathToFileURL(join(parent, 'ws')).href })
    expect(fs.provenWorkspaceInfo(moved!)).toMatchObject({ ino: statSync(join(parent, 'ws')).ino })
  })

  it('the workspace replaced by another directory of the same name: that directory answered (its inode), and held from then on', async () => {
    const { fs, root, ws } = await setup()
    await rename(ws, join(root, 'ws-old'))
    await mkdir(ws)
    const fresh = statSync(ws).ino
    expect(fs.provenWorkspaceInfo(fs.workspaceNow(ws)!)).toMatchObject({ ino: fresh })
    const counted = await fsSyncCallsBy(fs, () => expect(fs.provenWorkspaceInfo(fs.workspaceNow(ws)!)).toMatchObject({ ino: fresh }))
    expect(Object.fromEntries(counted)).toEqual({ openedPath: 1, fstat: 1 })
  })

  it('lets go of every held directory when the service goes', async () => {
    const { ws } = await setup()
    /** Descriptors of this process open on the workspace directory (the kernel's names for them). */
    const held = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === ws
        } catch {
          return false
        }
      }).length
    expect(held()).toBe(1)
    await app!.stop()
    app = undefined
    expect(held()).toBe(0)
  })
})
