import * as path from 'node:path'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FileSystem } from '../src/index.ts'

// `contains` compares two plain absolute paths as strings and leaves every other spelling to
// `path.relative`, as before (a warm diagnostics call asks it five times; bench/RESULTS.md,
// seventeenth session). The answers must be the ones `path.relative` gives.
vi.mock('node:path', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:path')>()
  return { ...actual, relative: vi.fn(actual.relative) }
})

// The workspace runs its files in one process (isolate: false): dsh-core may already be loaded with
// the real node:path. A fresh copy sees the mock (as fs-replace.test.ts does).
vi.resetModules()
const { FileSystem: FileSystemService } = await import('../src/index.ts')

/** The definition before the string comparison. */
const byRelative = (parent: string, child: string) => {
  const rel = path.posix.relative(parent, child)
  return rel === '' || (!path.posix.isAbsolute(rel) && rel !== '..' && !rel.startsWith('../'))
}

describe('fs.contains', () => {
  let app: Context
  let fs: FileSystem
  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystemService, {})
    await app.start()
    fs = (app as any).fs
  })
  afterAll(() => app.stop())

  it('answers as path.relative does, for plain and other spellings', () => {
    const names = ['/', '/a', '/a/b', '/a/b/c', '/a/bc', '/a/b..c', '/a/b/..hidden', '/a/b/.git/x', '/a/b/', '/a//b/c', '/a/b/../c', '/a/b/./c', '/a/./b', '/a/b/..', '/ab', '/x/b', 'a/b', '.', '..', '/a/b/c/', '/.a', '/a/.b/c']
    for (const parent of names) {
      for (const child of names) expect([parent, child, fs.contains(parent, child)]).toEqual([parent, child, byRelative(parent, child)])
    }
  })

  it('compares two canonical paths without path.relative', () => {
    const relative = vi.mocked(path.relative)
    relative.mockClear()
    expect(fs.contains('/work/ws', '/work/ws/src/main.ts')).toBe(true)
    expect(fs.contains('/work/ws', '/work/ws')).toBe(true)
    expect(fs.contains('/work/ws', '/work/wsx/main.ts')).toBe(false)
    expect(fs.contains('/', '/work')).toBe(true)
    expect(relative).not.toHaveBeenCalled()
    // A spelling that is not plain is still normalised.
    expect(fs.contains('/work/ws', '/work/ws/../secret')).toBe(false)
    expect(relative).toHaveBeenCalledTimes(1)
  })
})
