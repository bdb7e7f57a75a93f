import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { bootPreset, hostWorkspace, SessionService, type Host, type Session } from '../src/index.ts'
import * as where from './fixtures/where.ts'
import { removeTempDirs, tempDir } from './helpers.ts'

// What a plugin learns about where it runs: its row's files (rowOrigin), the host's workspace
// (hostWorkspace), and sessions as they are created (session/create).

const WHERE = fileURLToPath(new URL('./fixtures/where.ts', import.meta.url))
const hosts: Host[] = []

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()))
  await removeTempDirs()
})

async function answer(host: Host, tool: string): Promise<Record<string, unknown>> {
  const result = await host.app.tools.execute({ name: tool, arguments: {} })
  if (result.isError) throw new Error(result.error.message)
  return result.value as Record<string, unknown>
}

describe('rowOrigin', () => {
  it('names the file of each key: the preset, or the overlay that patched it; relative paths resolve there', async () => {
    const dir = await tempDir('dsh-origin-')
    await mkdir(join(dir, 'overlays'))
    const preset = join(dir, 'preset.yml')
    const overlay = join(dir, 'overlays', 'more.yml')
    await writeFile(preset, `- id: tools\n  name: dsh-core/tools\n- id: where\n  name: ${WHERE}\n  config: { tool: here, path: data }\n`)
    await writeFile(overlay, `- id: where\n  config: { path: ../shared/x }\n- id: added\n  name: ${WHERE}\n  config: { tool: added }\n`)
    const host = await bootPreset({ preset, overlays: [overlay], workspace: join(dir, 'ws') })
    hosts.push(host)
    expect(await answer(host, 'here')).toEqual({ id: 'where', file: overlay, toolFile: preset, path: join(dir, 'shared/x'), workspace: join(dir, 'ws') })
    expect(await answer(host, 'added')).toEqual({ id: 'added', file: overlay, toolFile: overlay, path: join(dir, 'overlays'), workspace: join(dir, 'ws') })
  })

  it('is undefined for a plugin added by code; the workspace is then the process directory', async () => {
    const app = new Context()
    const { ToolRuntime } = await import('../src/index.ts')
    app.plugin(ToolRuntime)
    app.plugin(where, { tool: 'coded' })
    await app.start()
    try {
      const result = await app.tools.execute({ name: 'coded', arguments: {} })
      expect(result.isError === false && result.value).toEqual({ id: null, file: null, toolFile: null, path: null, workspace: process.cwd() })
      expect(hostWorkspace(app)).toBe(process.cwd())
    } finally {
      await app.stop()
    }
  })
})

describe('session/create', () => {
  it('is emitted for every new session', async () => {
    const app = new Context()
    app.plugin(SessionService)
    await app.start()
    const created: Session[] = []
    app.on('session/create', (session) => void created.push(session))
    const session = app.sessions.create({ cwd: '/tmp' })
    expect(created).toEqual([session])
    await app.stop()
  })
})
