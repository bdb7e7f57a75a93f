// Roots (issue 17 item 17): the client declares `roots` and answers roots/list with the workspace
// (the sessions' workspaces, else the host's), and says roots/list_changed when that changes. Against
// the real server-everything, whose get-roots-list exists only for clients with roots.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { eventually, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'

afterEach(stopRigs)

const ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-mcp-roots-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const everything: RowInput = { transport: 'stdio', serverName: 'everything', command: 'mcp-server-everything', args: ['stdio'], shutdownGraceMs: 500 }

describe('roots', () => {
  it('server-everything sees the host workspace, then the session workspaces as sessions come and go', async () => {
    const rig = await startRig()
    await rig.add(everything)
    expect(await rig.text('mcp__everything__get-roots-list')).toContain(`URI: ${pathToFileURL(process.cwd()).href}`)
    const session = rig.app.sessions.create({ cwd: scratch })
    await eventually(async () => {
      const text = await rig.text('mcp__everything__get-roots-list')
      expect(text).toContain(`URI: ${pathToFileURL(scratch).href}`)
      expect(text).toContain('(1 total)')
    })
    rig.app.sessions.end(session)
    await eventually(async () => expect(await rig.text('mcp__everything__get-roots-list')).toContain(`URI: ${pathToFileURL(process.cwd()).href}`))
  })

  it('dsh call: the root is --cwd', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env }
    delete env.INIT_CWD
    const child = spawn(process.execPath, [join(ROOT, 'packages/cli/cli/bin/dsh.mjs'), 'call', 'mcp__everything__get-roots-list', '--preset', 'base', '--config', join(ROOT, 'presets/overlays/everything.yml'), '--cwd', scratch], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    const code = await new Promise((done) => child.on('close', done))
    expect(code).toBe(0)
    expect(Buffer.concat(out).toString()).toContain(`URI: ${pathToFileURL(scratch).href}`)
  })
})
