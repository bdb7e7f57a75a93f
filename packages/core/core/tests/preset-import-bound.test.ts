import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { bootPreset, type BootOptions } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// A row whose module import never settles (a top-level await waiting for good) hung the boot: the
// imports were awaited outside startTimeoutMs and the caller's signal, so `dsh` waited for good and
// its SIGTERM (which aborts the boot's signal) did not end it. Now both bound the imports too.

const NEVER = fileURLToPath(new URL('./fixtures/never-loads.mjs', import.meta.url))
afterAll(removeTempDirs)

async function bootFailure(options: BootOptions): Promise<{ code?: string; message: string }> {
  try {
    const host = await bootPreset(options)
    await host.stop()
  } catch (error) {
    return error as { code?: string; message: string }
  }
  throw new Error('expected the boot to fail')
}

async function preset(): Promise<string> {
  const file = join(await tempDir('dsh-preset-import-'), 'preset.yml')
  await writeFile(file, `- id: stuck\n  name: ${JSON.stringify(NEVER)}\n`)
  return file
}

// In this order: the module starts loading (and calls back) once per worker; the second case needs no callback.
describe('a row whose module never finishes loading', () => {
  it('the caller\'s abort ends the boot with PRESET_BOOT_ABORTED', { timeout: 30_000 }, async () => {
    const controller = new AbortController()
    ;(globalThis as { dshNeverLoadsStarted?: () => void }).dshNeverLoadsStarted = () => controller.abort()
    expect(await bootFailure({ preset: await preset(), signal: controller.signal })).toMatchObject({ code: 'PRESET_BOOT_ABORTED' })
  })

  it('startTimeoutMs ends it with PRESET_PLUGIN_TIMEOUT naming the row', { timeout: 30_000 }, async () => {
    const file = await preset()
    expect(await bootFailure({ preset: file, startTimeoutMs: 300 })).toMatchObject({ code: 'PRESET_PLUGIN_TIMEOUT', message: `row "stuck" (${NEVER}) in ${file}: plugin did not finish loading within 300 ms` })
  })
})
