import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dshIn, killRunning } from '../../../cli/cli/tests/helpers.ts'
import { bundle, layout, put, removeTempDirs } from './helpers.ts'

// A careless or hostile skill author, and a model that passes odd names, through the real `dsh`
// with real SKILL.md files (HOME a temporary stand-in, so the real home's skills are never read).

function dsh(args: readonly string[], home: string) {
  return dshIn([...args, '--preset', 'base'], { env: { HOME: home, DSH_HOME: join(home, '.dsh') } })
}

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

type Row = { surface: string; id: string; detail: string; items?: { kind: string; path: string; reason: string }[] }

describe('dsh with hostile skills', () => {
  it('a huge body is cut at a line end for the model, with a note saying how much, from which line, and the file to read the rest from', async () => {
    const { base, project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    const lines = Array.from({ length: 4000 }, (_, i) => `Step ${i + 1}: do the thing number ${i + 1} carefully.`)
    const file = await bundle(root, 'huge', 'A skill with a very long body', {}, lines.join('\n'))
    const overlay = await put(join(base, 'cap.yml'), '- id: skill\n  config:\n    loadMaxChars: 20000\n')
    const call = await dsh(['call', 'skill', '{"name":"huge"}', '--json', '--cwd', project, '--config', overlay], home)
    expect(call.code, call.stderr).toBe(0)
    const { value } = JSON.parse(call.stdout) as { value: { content: string } }
    expect(value.content.length).toBeLessThanOrEqual(20_000)
    const [shown, note] = value.content.split('\n\n[')
    expect(shown!.endsWith('carefully.')).toBe(true)
    const kept = shown!.split('\n').length
    expect(note).toBe(
      `Cut at loadMaxChars 20000: ${shown!.length} characters (${kept} of ${lines.length} lines) of the skill's instructions shown; ` +
        `the rest, from line ${kept + 1}, is in ${file}; read it from there when the task needs it.]`,
    )
    // /name enters the same cut block.
    const context = await dsh(['context', '--json', '--message', '/huge now', '--cwd', project, '--config', overlay], home)
    const invoked = (JSON.parse(context.stdout) as { messages: { source: string; text: string }[] }).messages.find((message) => message.source === 'skill-invocation')!
    expect(invoked.text).toContain(`the rest, from line ${kept + 1}, is in ${file}`)
  })

  it('a name with a path separator is refused as a path, never resolved to another skill by normalising it', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'good')
    for (const name of ['../good', 'good/SKILL.md', '..\\good', './good']) {
      const call = await dsh(['call', 'skill', JSON.stringify({ name }), '--json', '--cwd', project], home)
      expect(call.code, name).toBe(1)
      const { error } = JSON.parse(call.stdout) as { error: { code: string; message: string } }
      expect(error.code, name).toBe('SKILL_INVALID_NAME')
      expect(error.message).toContain(`${JSON.stringify(name)} is a path, not a skill name: use a name from the skill list`)
    }
    // A spelling with spaces or capitals still finds the skill, as the docs say.
    const lenient = await dsh(['call', 'skill', '{"name":" Good "}', '--json', '--cwd', project], home)
    expect(JSON.parse(lenient.stdout)).toMatchObject({ isError: false, value: { name: 'good' } })
  })

  it('a 5,000-character name is quoted short in dsh status, whole in no line', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    const long = 'a'.repeat(5000)
    await put(join(root, 'long', 'SKILL.md'), `---\nname: ${long}\ndescription: x\n---\nBody.\n`)
    await put(join(root, 'flag', 'SKILL.md'), `---\nname: flag\ndescription: x\nuser-invocable: ${'b'.repeat(5000)}\n---\nBody.\n`)
    const status = await dsh(['status', '--json', '--cwd', project], home)
    expect(status.code, status.stderr).toBe(0)
    const row = (JSON.parse(status.stdout) as { capabilities: Row[] }).capabilities.find((r) => r.surface === 'skill' && r.id === 'project-dsh')!
    expect(row.detail.length).toBeLessThan(1500)
    expect(row.detail).toContain(`long/SKILL.md (name "${'a'.repeat(199)}…" (5000 characters): a skill name has at most 64 characters (this one has 5000)`)
    expect(row.detail).toContain(`flag/SKILL.md (user-invocable: "${'b'.repeat(199)}…" (5000 characters) is not a boolean`)
  })
})
