// Issue 27 item 2: a warm diagnostics call after an edit proves its file with the workspace's
// canonical path and the file's name relative to it. node:path's resolve and relative normalise
// every argument first, and were a sixth of that call's instructions (bench/RESULTS.md,
// seventeenth session); plain spellings are joined and compared as strings (dsh-core fs/paths.ts).
// Counted, not timed.
import * as path from 'node:path'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

vi.mock('node:path', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:path')>()
  return { ...actual, relative: vi.fn(actual.relative), resolve: vi.fn(actual.resolve) }
})

// The workspace runs its files in one process (isolate: false): dsh-core and this package may be
// loaded already with the real node:path. Fresh copies see the mock (as core's fs-replace.test.ts).
vi.resetModules()
const { default: FileSystem } = await import('dsh-core/fs')
const { CallProofs } = await import('../src/index.ts')

describe('CallProofs on plain paths', () => {
  let app: Context
  let dir: string
  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystem)
    await app.start()
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'call-proofs-paths-')))
    mkdirSync(path.join(dir, 'src'))
    writeFileSync(path.join(dir, 'src/a.ts'), 'export const a = 1\n')
  })
  afterAll(async () => {
    await app.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it("a warm call's workspace and file proof calls neither path.resolve nor path.relative", async () => {
    const fs = app.get('fs')!
    // Warm: the workspace resolved once, then held open by the first proof made in the call.
    const first = new CallProofs(fs, dir)
    await first.workspace()
    const warm = new CallProofs(fs, dir)
    expect(warm.containedNow(warm.workspaceNow()!, 'src/a.ts')).toBe(path.join(dir, 'src/a.ts'))
    const resolve = vi.mocked(path.resolve)
    const relative = vi.mocked(path.relative)
    resolve.mockClear()
    relative.mockClear()
    const proofs = new CallProofs(fs, dir)
    const workspace = proofs.workspaceNow()!
    expect(workspace.path).toBe(dir)
    expect(proofs.containedNow(workspace, 'src/a.ts')).toBe(path.join(dir, 'src/a.ts'))
    expect(fs.contains(workspace.path, path.join(dir, 'src/a.ts'))).toBe(true)
    expect({ resolve: resolve.mock.calls.length, relative: relative.mock.calls.length }).toEqual({ resolve: 0, relative: 0 })
    // A spelling that is not plain still goes through node:path: spelled outside, it is not answered
    // on the event loop, and its proof refuses it.
    expect(proofs.containedNow(workspace, '../outside.ts')).toBeUndefined()
    expect(resolve).toHaveBeenCalled()
    await expect(proofs.contained(workspace, '../outside.ts')).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })
})
