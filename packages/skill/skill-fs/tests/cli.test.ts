import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BIN, dshIn, killRunning, ROOT } from '../../../cli/cli/tests/helpers.ts'
import { bundle, layout, put, removeTempDirs } from './helpers.ts'

// The `dsh` command end to end, with HOME (and the dsh home under it) pointing at a temporary user
// root so the real home's skills are never read: `dsh serve` as a real child process, the one-shot
// commands through the CLI's main in this worker (test-support/dsh-in-process.ts).

function dsh(args: readonly string[], home: string) {
  return dshIn([...args, '--preset', 'base'], { env: { HOME: home, DSH_HOME: join(home, '.dsh') } })
}

const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

interface ContextJson {
  messages: { role: string; source: string; text: string }[]
}

describe('dsh with skills', () => {
  it('a project skill shadows a user skill of the same name in the catalog and in dsh call', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'a', 'The project version of a', {}, 'Project body.')
    await bundle(join(home, '.agents', 'skills'), 'a', 'The user version of a', {}, 'User body.')
    const context = await dsh(['context', '--json', '--message', 'hi', '--cwd', project], home)
    expect(context.code).toBe(0)
    const { messages } = JSON.parse(context.stdout) as ContextJson
    const catalog = messages.find((message) => message.source === 'skill-catalog')!
    expect(catalog.text).toContain('- `a`: The project version of a')
    expect(catalog.text).not.toContain('The user version')
    const call = await dsh(['call', 'skill', '{"name":"a"}', '--json', '--cwd', project], home)
    expect(call.code).toBe(0)
    expect(JSON.parse(call.stdout)).toMatchObject({ isError: false, value: { name: 'a', content: 'Project body.', resourceBase: { path: join(project, '.dsh', 'skills', 'a') } } })
  })

  it('a disable-model-invocation skill is not in the catalog, is refused by the tool, and /name still expands it', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'visible')
    await bundle(join(project, '.dsh', 'skills'), 'manual', 'Run by hand only', { 'disable-model-invocation': true }, 'Manual steps.')
    const context = await dsh(['context', '--json', '--message', '/manual do it', '--cwd', project], home)
    // The prompt sections (web, lsp, skill guidance) come first; after them, what the pre-step entered.
    const messages = (JSON.parse(context.stdout) as ContextJson).messages.filter((message) => message.source !== 'prompt')
    expect(messages.map((message) => `${message.role}:${message.source}`)).toEqual(['user:user', 'user:skill-catalog', 'user:skill-invocation'])
    expect(messages[1]!.text).not.toContain('manual')
    expect(messages[2]!.text).toMatch(/^<skill_content name="manual">/)
    expect(messages[2]!.text).toContain('Manual steps.')
    const call = await dsh(['call', 'skill', '{"name":"manual"}', '--json', '--cwd', project], home)
    expect(call.code).toBe(1)
    expect(JSON.parse(call.stdout).error.code).toBe('SKILL_NOT_MODEL_INVOCABLE')
  })

  it('a skill whose frontmatter does not parse is absent from the catalog and named with its reason in dsh status', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'fine')
    await put(join(project, '.dsh', 'skills', 'broken', 'SKILL.md'), '---\nname: broken\ndescription: "Use it whenever\n---\nBody.\n')
    const context = await dsh(['context', '--json', '--message', 'hi', '--cwd', project], home)
    const catalog = (JSON.parse(context.stdout) as ContextJson).messages.find((message) => message.source === 'skill-catalog')!
    expect(catalog.text).toContain('`fine`')
    expect(catalog.text).not.toContain('broken')
    const status = await dsh(['status', '--json', '--cwd', project], home)
    expect(status.code).toBe(0)
    const rows = (JSON.parse(status.stdout) as { capabilities: { surface: string; id: string; detail: string }[] }).capabilities
    const row = rows.find((capability) => capability.surface === 'skill' && capability.id === 'project-dsh')!
    expect(row.detail).toMatch(/1 rejected: broken\/SKILL\.md \(the frontmatter is not valid YAML: Missing closing "quote at line 3, column \d+\)/)
  })

  it('two directories named café, one with its accent a separate character (NFD): one skill "cafe", and dsh status tells the two paths apart', async () => {
    const { project, home } = await layout()
    const root = join(home, '.agents', 'skills')
    const [nfc, nfd] = ['caf\u00e9', 'cafe\u0301']
    await put(join(root, nfc, 'SKILL.md'), `---\nname: ${nfc}\ndescription: composed\n---\nComposed body.\n`)
    await put(join(root, nfd, 'SKILL.md'), `---\nname: ${nfd}\ndescription: decomposed\n---\nDecomposed body.\n`)
    const status = await dsh(['status', '--json', '--cwd', project], home)
    expect(status.code, status.stderr).toBe(0)
    const rows = (JSON.parse(status.stdout) as { capabilities: { surface: string; id: string; detail: string }[] }).capabilities
    const row = rows.find((capability) => capability.surface === 'skill' && capability.id === 'user-agents')!
    // Code-unit order puts the decomposed spelling ("e" + U+0301) first: it wins, the composed one is shadowed.
    expect(row.detail).toContain(`1 shadowed: ${nfc}/SKILL.md (by ${nfd}/SKILL.md [NFD: its accents are separate characters])`)
    const call = await dsh(['call', 'skill', '{"name":"cafe"}', '--json', '--cwd', project], home)
    expect(JSON.parse(call.stdout)).toMatchObject({ isError: false, value: { name: 'cafe', content: 'Decomposed body.' } })
  })

  it('dsh status names ten rejections on a row; --json carries every one, up to statusItemsMax, and counts the rest', async () => {
    // Issue 33 item 5: the row said "and N more" with no way to list the rest.
    const { base, project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'fine')
    const broken = Array.from({ length: 14 }, (_, i) => `broken-${String(i).padStart(2, '0')}`)
    for (const name of broken) await put(join(root, name, 'SKILL.md'), `---\nname: ${name}\n---\nNo description.\n`)
    await bundle(join(home, '.agents', 'skills'), 'fine', 'shadowed by the project')
    type Row = { surface: string; id: string; detail: string; items?: { kind: string; path: string; reason: string }[]; itemsOmitted?: number }
    const rowOf = async (args: string[], id: string) => {
      const status = await dsh(['status', '--json', '--cwd', project, ...args], home)
      expect(status.code).toBe(0)
      return (JSON.parse(status.stdout) as { capabilities: Row[] }).capabilities.find((row) => row.surface === 'skill' && row.id === id)!
    }
    const row = await rowOf([], 'project-dsh')
    expect(row.detail).toMatch(/14 rejected: broken-00\/SKILL\.md \(.*; and 4 more \(dsh status --json lists them\)$/)
    expect(row.items?.map((item) => item.path)).toEqual(broken.map((name) => join(root, name, 'SKILL.md')))
    expect(row.items?.[0]).toEqual({ kind: 'rejected', path: join(root, 'broken-00', 'SKILL.md'), reason: expect.stringMatching(/description/) })
    expect(row.itemsOmitted).toBe(0)
    expect((await rowOf([], 'user-agents')).items).toEqual([{ kind: 'shadowed', path: join(home, '.agents', 'skills', 'fine', 'SKILL.md'), reason: `shadowed by ${join(root, 'fine', 'SKILL.md')}` }])
    const overlay = await put(join(base, 'cap.yml'), '- id: skill-fs\n  config:\n    statusItemsMax: 12\n')
    const capped = await rowOf(['--config', overlay], 'project-dsh')
    expect(capped.items).toHaveLength(12)
    expect(capped.itemsOmitted).toBe(2)
  })

  it('dsh serve with watch: false tells the client when a rescan finds a new skill, without being asked to list', async () => {
    // Issue 33 item 5: a skill found by a rescan sent no notifications/prompts/list_changed.
    const { base, project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'first')
    const overlay = await put(join(base, 'unwatched.yml'), '- id: skill-fs\n  config:\n    watch: false\n    rescanMs: 200\n')
    const env = { ...process.env, HOME: home, DSH_HOME: join(home, '.dsh') } as Record<string, string>
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--preset', 'base', '--config', overlay, '--cwd', project], cwd: ROOT, stderr: 'pipe', env })
    const client = new Client({ name: 'dsh-skill-rescan-test', version: '0' })
    await client.connect(transport)
    clients.push(client)
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['first'])
    let changes = 0
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      changes++
    })
    await bundle(join(project, '.dsh', 'skills'), 'second')
    // A bound as a failure guard only: the rescan comes some rescanMs later.
    await vi.waitFor(() => expect(changes).toBe(1), { timeout: 30_000, interval: 50 })
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['first', 'second'])
    expect(changes).toBe(1)
  })
})
