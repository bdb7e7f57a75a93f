import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import FileSystem from 'dsh-core/fs'
import type { FileSystem as FileSystemService } from 'dsh-core'
import { afterAll, afterEach, beforeAll, vi } from 'vitest'

/**
 * The real `ctx.fs` in a host of its own for the file's tests, and canonical temporary directories
 * removed after each test (spies restored with them). Call at the top of a `describe`.
 */
export function useFsHost(prefix: string): { fs: () => FileSystemService; tempDir: () => string } {
  let app: Context
  let fs: FileSystemService | undefined
  const dirs: string[] = []
  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystem)
    await app.start()
    fs = app.get('fs')!
  })
  afterAll(() => app.stop())
  afterEach(() => {
    vi.restoreAllMocks()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return {
    fs: () => fs!,
    tempDir: () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
      dirs.push(dir)
      return dir
    },
  }
}
