import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BIN, dshIn as run, killRunning, ROOT } from '../../../cli/cli/tests/helpers.ts'
import { bundle, layout, removeTempDirs } from './helpers.ts'

// `dsh` with a symlink ring in the user's ~/.claude/skills: one-shot commands and the long-lived
// `dsh serve` must both keep working in every project. The one-shot commands run in the worker
// (dshIn: the same boot, skill roots and output); `dsh serve` is the real process that keeps watching.

const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

/** A project with a skill, and a home whose ~/.claude/skills holds a good skill and a ring a -> b -> a. */
async function ringInHome() {
  const place = await layout()
  const userRoot = join(place.home, '.claude', 'skills')
  await bundle(userRoot, 'from-home')
  await symlink(join(userRoot, 'b'), join(userRoot, 'a'))
  await symlink(join(userRoot, 'a'), join(userRoot, 'b'))
  await bundle(join(place.project, '.dsh', 'skills'), 'from-project')
  return { ...place, userRoot, env: { HOME: place.home, DSH_HOME: place.dshHome } }
}

describe('dsh with a symlink ring in ~/.claude/skills', () => {
  it('dsh context and dsh call answer, and dsh status names the ring without watching', async () => {
    const { project, env } = await ringInHome()
    const context = await run(['context', '--json', '--message', 'hi', '--preset', 'base', '--cwd', project], { env })
    expect(context.code, context.stderr).toBe(0)
    const catalog = (JSON.parse(context.stdout) as { messages: { source: string; text: string }[] }).messages.find((message) => message.source === 'skill-catalog')
    expect(catalog?.text).toContain('`from-home`')
    expect(catalog?.text).toContain('`from-project`')
    const call = await run(['call', 'skill', '{"name":"from-home"}', '--json', '--preset', 'base', '--cwd', project], { env })
    expect(call.code, call.stderr).toBe(0)
    const status = await run(['status', '--json', '--preset', 'base', '--cwd', project], { env })
    expect(status.code, status.stderr).toBe(0)
    const rows = (JSON.parse(status.stdout) as { capabilities: { surface: string; id: string; detail: string }[] }).capabilities.filter((row) => row.surface === 'skill')
    expect(rows.find((row) => row.id === 'filesystem')?.detail).toMatch(/^2 skills in 6 roots .*; not watching \(a one-shot command\)$/)
    expect(rows.find((row) => row.id === 'user-claude')?.detail).toMatch(/a \(a symbolic link loop\); b \(a symbolic link loop\)/)
  })

  it('dsh serve keeps serving and watching', async () => {
    const { project, userRoot, env } = await ringInHome()
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--preset', 'base', '--cwd', project], cwd: ROOT, stderr: 'pipe', env: { ...process.env, ...env } as Record<string, string> })
    const client = new Client({ name: 'dsh-skill-ring-test', version: '0' })
    await client.connect(transport)
    clients.push(client)
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['from-home', 'from-project'])
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()))
    await bundle(userRoot, 'added-later')
    await changed
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['added-later', 'from-home', 'from-project'])
    const result = await client.callTool({ name: 'skill', arguments: { name: 'added-later' } })
    expect(result.isError ?? false).toBe(false)
  })
})
