import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, FileSystem, type Host } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// Issue 16, item 11: a long-lived host (dsh serve, an application that boots a preset) makes its
// filesystem calls on the threadpool by default, so one hung mount cannot freeze every session; a
// one-shot command keeps the event-loop calls. One setting, the fs row's `io`, says it for the host.

const hosts: Host[] = []

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()))
  await removeTempDirs()
})

async function boot(fsConfig: string, lifetime?: 'one-shot' | 'long-lived'): Promise<Host> {
  const dir = await tempDir('dsh-fs-io-')
  await writeFile(join(dir, 'preset.yml'), `- id: fs\n  name: dsh-core/fs\n${fsConfig}`)
  const host = await bootPreset({ preset: join(dir, 'preset.yml'), ...(lifetime ? { lifetime } : {}) })
  hosts.push(host)
  return host
}

describe("the fs row's io default", () => {
  it('is async in a long-lived host (bootPreset, dsh serve) and sync in a one-shot command', async () => {
    expect((await boot('')).app.fs.ioMode).toBe('async')
    expect((await boot('', 'long-lived')).app.fs.ioMode).toBe('async')
    expect((await boot('', 'one-shot')).app.fs.ioMode).toBe('sync')
  })

  it('an explicit io wins either way', async () => {
    expect((await boot('  config: { io: sync }\n', 'long-lived')).app.fs.ioMode).toBe('sync')
    expect((await boot('  config: { io: async }\n', 'one-shot')).app.fs.ioMode).toBe('async')
  })

  it('an app that never says how long it runs is long-lived: async', async () => {
    const app = new Context()
    app.plugin(FileSystem)
    await app.start()
    expect(app.fs.ioMode).toBe('async')
    await app.stop()
  })
})
