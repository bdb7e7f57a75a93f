import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AppearanceWatches } from '../src/appearance.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// The wait for a missing root segment, on its own. The caller has just seen the path missing; an
// entry created at once after the watch starts must still be told.

let watches: AppearanceWatches | undefined

afterEach(async () => {
  watches?.close()
  watches = undefined
  await removeTempDirs()
})

describe('AppearanceWatches', () => {
  for (const usePolling of [false, true]) {
    it(`${usePolling ? 'polling' : 'OS watch'}: an entry created right after the watch starts is told`, async () => {
      watches = new AppearanceWatches({ usePolling, pollIntervalMs: 20 })
      // Many at once: a stat poll whose first look comes after the entry appeared takes it as the
      // baseline and never tells (it missed about one in four before the poll knew the path was missing).
      const told = new Set<number>()
      for (let index = 0; index < 20; index++) {
        const directory = await tempDir()
        watches.watch(directory, 'late', { appeared: () => told.add(index), failed: (error) => { throw error } })
        mkdirSync(join(directory, 'late'))
      }
      await vi.waitFor(() => expect(told.size).toBe(20), { timeout: 60_000, interval: 50 })
    })
  }
})
