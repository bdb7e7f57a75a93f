import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, hostLifetime, type Host } from '../src/index.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// A plugin learns how long its host runs (`ctx.dshHost.lifetime`), so work that only pays off over
// time (a file watcher) can be skipped by a one-shot command.

const PROBE = fileURLToPath(new URL('./fixtures/lifetime-probe.mjs', import.meta.url))
const PRESET = `- id: tools
  name: dsh-core/tools
- id: lifetime
  name: ${JSON.stringify(PROBE)}
`

const hosts: Host[] = []

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()))
  await removeTempDirs()
})

async function lifetimeSeen(lifetime?: 'one-shot' | 'long-lived'): Promise<unknown> {
  const dir = await tempDir('dsh-lifetime-')
  await writeFile(join(dir, 'preset.yml'), PRESET)
  const host = await bootPreset({ preset: join(dir, 'preset.yml'), ...(lifetime ? { lifetime } : {}) })
  hosts.push(host)
  const result = await host.app.tools.execute({ name: 'host_lifetime', arguments: {} })
  return !result.isError && result.value
}

describe('the host lifetime', () => {
  it('bootPreset tells every plugin, long-lived unless asked for one-shot', async () => {
    expect(await lifetimeSeen()).toEqual({ lifetime: 'long-lived' })
    expect(await lifetimeSeen('one-shot')).toEqual({ lifetime: 'one-shot' })
  })

  it('a host that says nothing (an embedding app) is long-lived', () => {
    expect(hostLifetime(new Context())).toBe('long-lived')
    const app = new Context()
    app.set('dshHost', { lifetime: 'one-shot' })
    expect(hostLifetime(app)).toBe('one-shot')
  })
})
