import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dsh as run, killRunning } from '../../../cli/cli/tests/helpers.ts'
import { bundle, layout, put, removeTempDirs } from './helpers.ts'

// The `dsh` command end to end, as a real child process, with HOME (and the dsh home under it)
// pointing at a temporary user root so the real home's skills are never read.

function dsh(args: readonly string[], home: string) {
  return run([...args, '--preset', 'base'], { env: { HOME: home, DSH_HOME: join(home, '.dsh') } })
}

afterEach(async () => {
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
})
