import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bootPreset } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// A row naming a plugin file that is not a regular file: Node's loader read a FIFO (`name: ./x.mjs`
// made a FIFO) until a writer came, and a device (`name: /dev/zero`) without end, so the boot never
// finished (and ignored SIGTERM meanwhile). Now it is PRESET_PLUGIN_INVALID naming the row and file.

const fifos: string[] = []
afterAll(async () => {
  // A loader the old code left blocked on a FIFO gets its end of file, so the worker can exit.
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
    } catch {
      // No reader waiting.
    }
  }
  await removeTempDirs()
})

function mkfifo(path: string): boolean {
  try {
    execFileSync('mkfifo', [path], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function bootFailure(preset: string): Promise<{ code?: string; message: string }> {
  try {
    const host = await bootPreset({ preset })
    await host.stop()
  } catch (error) {
    return error as { code?: string; message: string }
  }
  throw new Error('expected the boot to fail')
}

describe.runIf(process.platform !== 'win32')('a row whose plugin file is not a regular file', () => {
  it('a FIFO: PRESET_PLUGIN_INVALID at once, naming the row and the file', { timeout: 30_000 }, async () => {
    const dir = await tempDir('dsh-preset-file-')
    const fifo = join(dir, 'plugin.mjs')
    if (!mkfifo(fifo)) return
    fifos.push(fifo)
    await writeFile(join(dir, 'preset.yml'), '- id: piped\n  name: ./plugin.mjs\n')
    expect(await bootFailure(join(dir, 'preset.yml'))).toMatchObject({ code: 'PRESET_PLUGIN_INVALID', message: `row "piped" (./plugin.mjs) in ${join(dir, 'preset.yml')}: plugin file ${fifo} is not a regular file` })
  })

  it('a device (/dev/zero): PRESET_PLUGIN_INVALID at once', async () => {
    const dir = await tempDir('dsh-preset-file-')
    await writeFile(join(dir, 'preset.yml'), '- id: zero\n  name: /dev/zero\n')
    expect(await bootFailure(join(dir, 'preset.yml'))).toMatchObject({ code: 'PRESET_PLUGIN_INVALID', message: expect.stringContaining('plugin file /dev/zero is not a regular file') })
  })
})
