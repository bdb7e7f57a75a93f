import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FileSystem } from '../src/index.ts'

/** One rename fails once this many have succeeded (undefined: never): a fault the disk cannot be made to produce for root. */
const faults = vi.hoisted(() => ({ renamesBeforeFailure: undefined as number | undefined }))
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>()
  return {
    ...real,
    rename: async (from: string, to: string) => {
      if (faults.renamesBeforeFailure !== undefined && faults.renamesBeforeFailure-- <= 0) {
        faults.renamesBeforeFailure = undefined
        throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' })
      }
      return real.rename(from, to)
    },
  }
})
// Test files share a worker's module registry (vitest.config.ts: isolate off), so dsh-core may
// already be loaded with the real node:fs/promises: load a fresh copy, which sees the mock.
vi.resetModules()
const { FileSystem: FileSystemService } = await import('../src/index.ts')
const { harnessRejection, removeTempDirs, tempDir } = await import('./helpers.ts')

// ctx.fs.replaceContainedTexts: the all-or-nothing rewrite the LSP rename applies its edits with.
describe('replaceContainedTexts', () => {
  let app: Context
  let fs: FileSystem

  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystemService, { io: 'sync' })
    await app.start()
    fs = app.fs
  })
  afterAll(() => app.stop())
  afterEach(() => removeTempDirs())

  async function layout() {
    const root = await tempDir()
    const ws = join(root, 'ws')
    await mkdir(join(ws, 'src'), { recursive: true })
    await mkdir(join(root, 'outside'))
    await writeFile(join(ws, 'src', 'a.ts'), 'a\n')
    await writeFile(join(ws, 'src', 'b.ts'), 'b\n')
    await writeFile(join(root, 'outside', 'c.ts'), 'c\n')
    await symlink(join(root, 'outside'), join(ws, 'linked'))
    return { root, ws, workspace: await fs.workspace(ws) }
  }
  const read = (path: string) => readFile(path, 'utf8')

  it('writes every file, keeps each mode and leaves no temporary file behind', async () => {
    const { ws, workspace } = await layout()
    await chmod(join(ws, 'src', 'b.ts'), 0o755)
    const written = await fs.replaceContainedTexts(workspace, [
      { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
      { filePath: join(ws, 'src', 'b.ts'), expected: 'b\n', text: 'B\n' },
    ], { maxBytes: 1000 })
    expect(written).toEqual([join(ws, 'src', 'a.ts'), join(ws, 'src', 'b.ts')])
    expect([await read(join(ws, 'src', 'a.ts')), await read(join(ws, 'src', 'b.ts'))]).toEqual(['A\n', 'B\n'])
    expect((await stat(join(ws, 'src', 'b.ts'))).mode & 0o777).toBe(0o755)
    expect((await readdir(join(ws, 'src'))).sort()).toEqual(['a.ts', 'b.ts'])
  })

  it('keeps a leading byte-order mark, which the texts compared and given do not hold', async () => {
    const { ws, workspace } = await layout()
    // The read drops the mark; the rename that wrote this file wrote it without one.
    await writeFile(join(ws, 'src', 'bom.ts'), '\uFEFFconst bom = 1;\n')
    await fs.replaceContainedTexts(workspace, [
      { filePath: 'src/bom.ts', expected: 'const bom = 1;\n', text: 'const bom2 = 1;\n' },
      { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
    ], { maxBytes: 1_000_000 })
    expect(await readFile(join(ws, 'src', 'bom.ts'))).toEqual(Buffer.from('\uFEFFconst bom2 = 1;\n'))
    expect(await readFile(join(ws, 'src', 'a.ts'))).toEqual(Buffer.from('A\n'))
  })

  it('writes nothing when one file no longer holds the expected text (FS_CONFLICT)', async () => {
    const { ws, workspace } = await layout()
    const error = await harnessRejection(fs.replaceContainedTexts(workspace, [
      { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
      { filePath: 'src/b.ts', expected: 'b before\n', text: 'B\n' },
    ], { maxBytes: 1000 }))
    expect(error.code).toBe('FS_CONFLICT')
    expect([await read(join(ws, 'src', 'a.ts')), await read(join(ws, 'src', 'b.ts'))]).toEqual(['a\n', 'b\n'])
  })

  it('refuses the whole set when one file leads outside the workspace through a symlink', async () => {
    const { root, ws, workspace } = await layout()
    const error = await harnessRejection(fs.replaceContainedTexts(workspace, [
      { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
      { filePath: 'linked/c.ts', expected: 'c\n', text: 'C\n' },
    ], { maxBytes: 1000 }))
    expect(error.code).toBe('FS_OUTSIDE_WORKSPACE')
    expect([await read(join(ws, 'src', 'a.ts')), await read(join(root, 'outside', 'c.ts'))]).toEqual(['a\n', 'c\n'])
  })

  it('refuses one file named twice (through an alias) as a conflict', async () => {
    const { ws, workspace } = await layout()
    await symlink(join(ws, 'src', 'a.ts'), join(ws, 'alias.ts'))
    const error = await harnessRejection(fs.replaceContainedTexts(workspace, [
      { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
      { filePath: 'alias.ts', expected: 'a\n', text: 'AA\n' },
    ], { maxBytes: 1000 }))
    expect(error.code).toBe('FS_CONFLICT')
    expect(await read(join(ws, 'src', 'a.ts'))).toBe('a\n')
  })

  it('puts back the files already replaced when a later rename fails', async () => {
    const { ws, workspace } = await layout()
    // Put back with its byte-order mark, as it was.
    await writeFile(join(ws, 'src', 'a.ts'), '\uFEFFa\n')
    faults.renamesBeforeFailure = 1
    try {
      const error = await harnessRejection(fs.replaceContainedTexts(workspace, [
        { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
        { filePath: 'src/b.ts', expected: 'b\n', text: 'B\n' },
      ], { maxBytes: 1000 }))
      expect(error.code).toBe('FS_IO_ERROR')
      expect(error.message).toContain('put back')
    } finally {
      faults.renamesBeforeFailure = undefined
    }
    expect([await read(join(ws, 'src', 'a.ts')), await read(join(ws, 'src', 'b.ts'))]).toEqual(['\uFEFFa\n', 'b\n'])
    expect((await readdir(join(ws, 'src'))).sort()).toEqual(['a.ts', 'b.ts'])
  })

  it('writes nothing when the signal has aborted', async () => {
    const { ws, workspace } = await layout()
    const error = await harnessRejection(fs.replaceContainedTexts(workspace, [{ filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' }], { maxBytes: 1000, signal: AbortSignal.abort() }))
    expect(error.code).toBe('FS_ABORTED')
    expect(await read(join(ws, 'src', 'a.ts'))).toBe('a\n')
  })

  it('creates and deletes files in the same all-or-nothing set (expected null: a new file; text null: a deletion)', async () => {
    const { ws, workspace } = await layout()
    const touched = await fs.replaceContainedTexts(workspace, [
      { filePath: 'src/a.ts', expected: 'a\n', text: null },
      { filePath: 'src/moved.ts', expected: null, text: 'a, moved\n' },
      { filePath: 'src/b.ts', expected: 'b\n', text: 'B\n' },
    ], { maxBytes: 1000 })
    expect(touched).toEqual([join(ws, 'src', 'a.ts'), join(ws, 'src', 'moved.ts'), join(ws, 'src', 'b.ts')])
    expect((await readdir(join(ws, 'src'))).sort()).toEqual(['b.ts', 'moved.ts'])
    expect(await read(join(ws, 'src', 'moved.ts'))).toBe('a, moved\n')
  })

  it('refuses a new file where one exists, a deletion of a changed file, and a new file outside the workspace; nothing is touched', async () => {
    const { ws, workspace } = await layout()
    const exists = await harnessRejection(fs.replaceContainedTexts(workspace, [
      { filePath: 'src/a.ts', expected: 'a\n', text: null },
      { filePath: 'src/b.ts', expected: null, text: 'clobbered\n' },
    ], { maxBytes: 1000 }))
    expect(exists.code).toBe('FS_CONFLICT')
    const changed = await harnessRejection(fs.replaceContainedTexts(workspace, [{ filePath: 'src/a.ts', expected: 'not a\n', text: null }], { maxBytes: 1000 }))
    expect(changed.code).toBe('FS_CONFLICT')
    const outside = await harnessRejection(fs.replaceContainedTexts(workspace, [{ filePath: 'linked/new.ts', expected: null, text: 'x\n' }], { maxBytes: 1000 }))
    expect(outside.code).toBe('FS_OUTSIDE_WORKSPACE')
    expect((await readdir(join(ws, 'src'))).sort()).toEqual(['a.ts', 'b.ts'])
    expect(await read(join(ws, 'src', 'a.ts'))).toBe('a\n')
  })

  it('puts a deleted file back when a later step fails', async () => {
    const { ws, workspace } = await layout()
    // writes rename first, then deletions move the file aside: the second rename is the deletion's
    faults.renamesBeforeFailure = 1
    try {
      const error = await harnessRejection(fs.replaceContainedTexts(workspace, [
        { filePath: 'src/b.ts', expected: 'b\n', text: null },
        { filePath: 'src/a.ts', expected: 'a\n', text: 'A\n' },
        { filePath: 'src/c.ts', expected: null, text: 'c\n' },
      ], { maxBytes: 1000 }))
      expect(error.code).toBe('FS_IO_ERROR')
    } finally {
      faults.renamesBeforeFailure = undefined
    }
    expect((await readdir(join(ws, 'src'))).sort()).toEqual(['a.ts', 'b.ts'])
    expect([await read(join(ws, 'src', 'a.ts')), await read(join(ws, 'src', 'b.ts'))]).toEqual(['a\n', 'b\n'])
  })
})
