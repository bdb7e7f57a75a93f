import module from 'node:module'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { dsh, killRunning, removeTempDirs, tempDir } from './helpers.ts'

afterEach(killRunning)
afterAll(removeTempDirs)

// Node 22.1+ (module.enableCompileCache) keeps compiled modules between runs; dsh turns it on in
// its bin (issue 27 item 5). Node 20 has no such cache: there these are skipped, and CI runs them on
// Node 22 and 24 (.ci/current-node.sh).
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function'

/** The files under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name)
}

describe.skipIf(!hasCompileCache)("dsh keeps Node's compile cache in the user's cache home", () => {
  it('writes it under $XDG_CACHE_HOME/dsh/node-compile-cache', async () => {
    const cacheHome = await tempDir()
    const run = await dsh(['--help'], { env: { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: '' } })
    expect(run.code, run.stderr).toBe(0)
    expect(filesUnder(join(cacheHome, 'dsh', 'node-compile-cache')).length).toBeGreaterThan(0)
  })

  it('writes none with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const cacheHome = await tempDir()
    const run = await dsh(['--help'], { env: { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '1' } })
    expect(run.code, run.stderr).toBe(0)
    expect(filesUnder(cacheHome)).toEqual([])
  })

  it('writes it where NODE_COMPILE_CACHE says', async () => {
    const [cacheHome, chosen] = [await tempDir(), await tempDir()]
    const run = await dsh(['--help'], { env: { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: chosen } })
    expect(run.code, run.stderr).toBe(0)
    expect(filesUnder(chosen).length).toBeGreaterThan(0)
    expect(filesUnder(cacheHome)).toEqual([])
  })
})
