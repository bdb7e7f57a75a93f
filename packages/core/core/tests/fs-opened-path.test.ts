import { closeSync, constants, openSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { syncCalls } from '../src/fs/io.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// `openedPath` (the kernel's name for an open fd, /proc/self/fd) backs the held-workspace proof and
// the event-loop read of a proven file. One failed readlink (an fd closed under it: the race a
// concurrent close makes) used to turn it off for the whole process, so every later proof paid its
// full resolution for good. Now that call falls back alone; /proc answers the next. Real fds, no fake.

afterAll(removeTempDirs)

describe.runIf(process.platform === 'linux')('openedPath after one failed readlink', () => {
  it('a closed fd answers undefined for that call only: the next open fd is named, and open files are still named', async () => {
    const dir = await tempDir()
    const file = join(dir, 'a.txt')
    await writeFile(file, 'a\n')
    const closed = openSync(file, constants.O_RDONLY)
    closeSync(closed)
    expect(syncCalls.openedPath(closed)).toBeUndefined()
    expect(syncCalls.namesOpenedFiles()).toBe(true)
    const fd = openSync(file, constants.O_RDONLY)
    try {
      expect(syncCalls.openedPath(fd)).toBe(file)
    } finally {
      closeSync(fd)
    }
  })
})
