import { execFileSync } from 'node:child_process'
import { mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SkillSummary } from 'dsh-skill'
import { fsHost, layout, put, removeTempDirs, skillMd, type FsHost } from './helpers.ts'

// What real collections contain, read as the Agent Skills integration guide asks: leniently, with a
// warning where a file strays from the spec, and a clear reason where it cannot be used.

let host: FsHost | undefined

afterEach(async () => {
  await host?.stop()
  host = undefined
  await removeTempDirs()
})

const byName = (skills: readonly SkillSummary[]) => Object.fromEntries(skills.map((skill) => [skill.name, skill]))

async function rowDetail(cwd: string, id: string): Promise<string> {
  const row = (await host!.app.readiness.report({ probe: true, cwd })).find((candidate) => candidate.surface === 'skill' && candidate.id === id)
  if (!row) throw new Error(`no status row ${id}`)
  return row.detail
}

describe('lenient reading, with warnings', () => {
  it('a name that differs from its directory or file loads under the frontmatter name, with a warning', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await put(join(root, 'template', 'SKILL.md'), skillMd({ name: 'template-skill', description: 'Anthropic names its template like this' }))
    await put(join(root, 'flat-file.md'), skillMd({ name: 'other-flat', description: 'A flat file named otherwise' }))
    host = await fsHost({ watch: false, userHome: home }, { tool: true })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(Object.keys(skills)).toEqual(['other-flat', 'template-skill'])
    expect((await host.app.skills.get('template-skill', { cwd: project }))?.content).toBe('Body.')
    const detail = await rowDetail(project, 'project-dsh')
    expect(detail).toContain('template/SKILL.md (name "template-skill" differs from its directory name "template"; loaded as "template-skill")')
    expect(detail).toContain('flat-file.md (name "other-flat" differs from its file name "flat-file"; loaded as "other-flat")')
    expect(detail).toMatch(/: 2 skills; 2 warnings: /)
  })

  it('a description over 1,024 characters loads whole, with a warning, and is cut at a character boundary in the catalog', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    const long = `${'Long words. '.repeat(90)}👍🏽 and the end`
    await put(join(root, 'long', 'SKILL.md'), skillMd({ name: 'long', description: JSON.stringify(long) }))
    // 1,000 characters, 2,000 UTF-16 units: within the limit, which counts characters.
    const astral = '𝒜'.repeat(1000)
    await put(join(root, 'astral', 'SKILL.md'), skillMd({ name: 'astral', description: astral }))
    host = await fsHost({ watch: false, userHome: home }, { tool: true, toolConfig: { catalogDescriptionMaxLength: 1024, catalogBudgetChars: 100_000 } })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(skills.long!.description).toBe(long)
    expect(skills.astral!.description).toBe(astral)
    const detail = await rowDetail(project, 'project-dsh')
    expect(detail).toContain(`long/SKILL.md (description has ${[...long].length} characters, over the limit of 1024; the catalog shows the first 1024)`)
    expect(detail).not.toContain('astral/SKILL.md')
    const session = host.app.sessions.create({ cwd: project })
    const { createUserMessage } = await import('dsh-core')
    const decision = await host.app.sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })])
    const catalog = decision.kind === 'enter' ? decision.messages.find((message) => message.source.kind === 'skill-catalog') : undefined
    const entries = catalog?.source.entries as { name: string; description: string }[]
    const shown = entries.find((entry) => entry.name === 'long')!.description
    expect([...shown].length).toBeLessThanOrEqual(1024)
    expect(shown.endsWith('...')).toBe(true)
    expect(long.startsWith(shown.slice(0, -3))).toBe(true)
    expect(entries.find((entry) => entry.name === 'astral')!.description).toBe(astral)
  })

  it('a --- line with trailing spaces or tabs opens and closes the frontmatter', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await put(join(root, 'spaced', 'SKILL.md'), '---  \nname: spaced\ndescription: Trailing spaces on the delimiters\n--- \t\nBody.\n')
    await put(join(root, 'crlf-spaced', 'SKILL.md'), '--- \r\nname: crlf-spaced\r\ndescription: And CRLF\r\n---\t\r\nBody.\r\n')
    host = await fsHost({ watch: false, userHome: home })
    expect(Object.keys(byName(await host.app.skills.list({ cwd: project })))).toEqual(['crlf-spaced', 'spaced'])
    expect((await host.app.skills.get('spaced', { cwd: project }))?.content).toBe('Body.')
  })

  it('a digits-only name is a name; a number where text is expected gets a reason that says so', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await put(join(root, '2048', 'SKILL.md'), skillMd({ name: '2048', description: 'The puzzle' }))
    await put(join(root, '0755', 'SKILL.md'), skillMd({ name: '0755', description: 'Leading zero kept' }))
    await put(join(root, 'numeric', 'SKILL.md'), skillMd({ name: 'numeric', description: '42' }))
    await put(join(root, 'float', 'SKILL.md'), skillMd({ name: '1.5', description: 'x' }))
    host = await fsHost({ watch: false, userHome: home })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['0755', '2048'])
    expect((await host.app.skills.get('2048', { cwd: project }))?.content).toBe('Body.')
    const detail = await rowDetail(project, 'project-dsh')
    expect(detail).toContain('numeric/SKILL.md (description is the number 42; quote it to make it text)')
    expect(detail).toContain('float/SKILL.md (name is the number 1.5; a skill name is text: lowercase letters, digits and single hyphens)')
  })
})

describe('the loaded block', () => {
  it('names the base directory as a usable path, R&D included', async () => {
    const { base, home } = await layout()
    const project = join(base, 'R&D <lab>', 'project')
    await mkdir(join(project, '.git'), { recursive: true })
    const root = join(project, '.dsh', 'skills')
    await put(join(root, 'a', 'SKILL.md'), skillMd({ name: 'a', description: 'x' }))
    const plain = join(base, 'R&D', 'project')
    await mkdir(join(plain, '.git'), { recursive: true })
    await put(join(plain, '.dsh', 'skills', 'b', 'SKILL.md'), skillMd({ name: 'b', description: 'x' }))
    host = await fsHost({ watch: false, userHome: home }, { tool: true })
    const line = async (cwd: string, name: string) => {
      const result = await host!.app.tools.execute({ name: 'skill', arguments: { name }, session: host!.app.sessions.create({ cwd }) })
      return result.content[0]!.text.split('\n')[2]!
    }
    expect(await line(plain, 'b')).toBe(`Base directory: ${join(plain, '.dsh', 'skills', 'b')}`)
    // `<` could end the block early: the path is then a JSON string, which still names it exactly.
    const quoted = (await line(project, 'a')).slice('Base directory: '.length)
    expect(JSON.parse(quoted)).toBe(join(root, 'a'))
    expect((await stat(JSON.parse(quoted) as string)).isDirectory()).toBe(true)
  })
})

describe('limits and encodings, the same at discovery and at load', () => {
  it('maxFrontmatterBytes is enforced even when the frontmatter closes within the first read, and at load', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await put(join(root, 'small', 'SKILL.md'), skillMd({ name: 'small', description: 'x' }))
    const bigFront = skillMd({ name: 'big-front', description: 'y'.repeat(300) })
    await put(join(root, 'big-front', 'SKILL.md'), bigFront)
    const later = await put(join(root, 'grows', 'SKILL.md'), skillMd({ name: 'grows', description: 'short' }))
    host = await fsHost({ watch: false, userHome: home, maxFrontmatterBytes: 200 }, { tool: true })
    expect(Object.keys(byName(await host.app.skills.list({ cwd: project })))).toEqual(['grows', 'small'])
    expect(await rowDetail(project, 'project-dsh')).toContain('big-front/SKILL.md (no frontmatter closed within 200 bytes)')
    // Grown past the limit after it was listed: the load refuses it the same way.
    await writeFile(later, skillMd({ name: 'grows', description: 'z'.repeat(300) }))
    const session = host.app.sessions.create({ cwd: project })
    const result = await host.app.tools.execute({ name: 'skill', arguments: { name: 'grows' }, session })
    expect(result.isError).toBe(true)
  })

  it('invalid UTF-8 is reported the same way wherever it is: at discovery within what discovery reads, else at load, and then in status', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    const bad = Buffer.from([0xc3, 0x28])
    const front = skillMd({ name: 'early', description: 'x' }, '')
    await put(join(root, 'early', 'SKILL.md'), Buffer.concat([Buffer.from(front), Buffer.from('a'.repeat(100)), bad, Buffer.from('\n')]))
    const lateFront = skillMd({ name: 'late', description: 'x' }, '')
    await put(join(root, 'late', 'SKILL.md'), Buffer.concat([Buffer.from(lateFront), Buffer.from('a'.repeat(5000)), bad, Buffer.from('\n')]))
    host = await fsHost({ watch: false, userHome: home, rescanMs: 600_000 }, { tool: true })
    expect(await rowDetail(project, 'project-dsh')).toContain('early/SKILL.md (the file is not UTF-8 text)')
    const session = host.app.sessions.create({ cwd: project })
    const result = await host.app.tools.execute({ name: 'skill', arguments: { name: 'late' }, session })
    expect(result).toMatchObject({ isError: true, error: { code: 'FS_NOT_TEXT', message: expect.stringContaining('the file is not UTF-8 text') } })
    expect(Object.keys(byName(await host.app.skills.list({ cwd: project, scope: session })))).toEqual([])
    expect(await rowDetail(project, 'project-dsh')).toContain('late/SKILL.md (the file is not UTF-8 text)')
  })

  it('a listed SKILL.md that became a FIFO, a link to itself or too large before it loads: the load says so as discovery does, coded, and the skill leaves the catalog', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    for (const name of ['fifo', 'loop', 'large', 'kept']) await put(join(root, name, 'SKILL.md'), skillMd({ name, description: name }))
    host = await fsHost({ watch: false, userHome: home, rescanMs: 600_000, maxSkillFileBytes: 10_000 }, { tool: true })
    const session = host.app.sessions.create({ cwd: project })
    expect(Object.keys(byName(await host.app.skills.list({ cwd: project, scope: session }))).sort()).toEqual(['fifo', 'kept', 'large', 'loop'])
    const file = (name: string) => join(root, name, 'SKILL.md')
    const changes: Record<string, [() => Promise<unknown>, string, string]> = {
      fifo: [async () => (await rm(file('fifo')), execFileSync('mkfifo', [file('fifo')])), 'FS_NOT_REGULAR_FILE', 'not a regular file'],
      loop: [async () => (await rm(file('loop')), await symlink('SKILL.md', file('loop'))), 'FS_IO_ERROR', 'a symbolic link loop'],
      large: [() => writeFile(file('large'), skillMd({ name: 'large', description: 'large' }, 'x'.repeat(20_000))), 'FS_TOO_LARGE', 'the file has over 10000 bytes, the maxSkillFileBytes limit'],
    }
    for (const [name, [change, code, reason]] of Object.entries(changes)) {
      // Listed as it was; changed after the listing, before the load.
      expect(Object.keys(byName(await host.app.skills.list({ cwd: project, scope: session })))).toContain(name)
      await change()
      const result = await host.app.tools.execute({ name: 'skill', arguments: { name }, session })
      expect(result, name).toMatchObject({ isError: true, error: { code, message: `skill file ${file(name)}: ${reason}` } })
    }
    // Never waited on the FIFO; the listing looked again and rejects each file itself.
    expect(Object.keys(byName(await host.app.skills.list({ cwd: project, scope: session })))).toEqual(['kept'])
    const detail = await rowDetail(project, 'project-dsh')
    for (const name of ['fifo', 'loop', 'large']) expect(detail).toContain(`${name}/SKILL.md (`)
  })
})

// Issue 33 items 1 and 2: the shapes public collections have that dsh refused. Each file below is
// written for this test in the shape of the real skills that showed the fault (not a copy of them):
// CRLF frontmatter ending in a quoted value or a list/map (as `ml-training-recipes`); names with
// uppercase letters, spaces or underscores, or over 64 characters (223 skills, 10.6 % of one
// collection); a description with an unquoted `: ` (13 skills).
describe('the lenient reading of the Agent Skills client guide (issue 33 items 1, 2)', () => {
  const crlf = (lines: string[]) => lines.join('\r\n') + '\r\n'

  it('CRLF frontmatter whose last line is quoted, a list or a map loads', async () => {
    const { project, home } = await layout()
    const root = join(home, '.claude', 'skills')
    await put(join(root, 'crlf-quoted', 'SKILL.md'), crlf(['---', 'name: crlf-quoted', 'description: "Training recipes, quoted last"', '---', 'Line one.', 'Line two.']))
    await put(join(root, 'crlf-list', 'SKILL.md'), crlf(['---', 'name: crlf-list', 'description: A list on the last line', 'tags: [PyTorch, Training]', '---', 'Body.']))
    await put(join(root, 'crlf-map', 'SKILL.md'), crlf(['---', 'name: crlf-map', "description: 'A map on the last lines'", 'metadata:', '  version: "1.0.0"', '  author: someone', '---', 'Body.']))
    host = await fsHost({ watch: false, userHome: home })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(Object.keys(skills)).toEqual(['crlf-list', 'crlf-map', 'crlf-quoted'])
    expect(skills['crlf-quoted']!.description).toBe('Training recipes, quoted last')
    expect((await host.app.skills.get('crlf-quoted', { cwd: project }))?.content).toBe('Line one.\nLine two.')
    expect((await host.app.skills.get('crlf-map', { cwd: project }))?.content).toBe('Body.')
  })

  it('names the spec refuses load under their normalised name with a warning in status; /name and the skill tool take it', async () => {
    const { project, home } = await layout()
    const root = join(home, '.claude', 'skills')
    const long = 'comprehensive-scientific-literature-review-and-systematic-meta-analysis-assistant'
    await put(join(root, 'pdf-processing', 'SKILL.md'), skillMd({ name: 'PDF Processing', description: 'Uppercase and a space' }, 'PDF body.'))
    await put(join(root, 'my_helper_skill', 'SKILL.md'), skillMd({ name: 'my_helper_skill', description: 'Underscores, as the directory' }))
    await put(join(root, long, 'SKILL.md'), skillMd({ name: long, description: 'Over 64 characters' }))
    await put(join(root, 'use-when', 'SKILL.md'), skillMd({ name: 'use-when', description: 'Use when: the user asks for a review: code or docs' }))
    host = await fsHost({ watch: false, userHome: home }, { tool: true })
    const names = Object.keys(byName(await host.app.skills.list({ cwd: project })))
    const cut = long.slice(0, 64).replace(/-+$/, '')
    expect(names).toEqual([cut, 'my-helper-skill', 'pdf-processing', 'use-when'].sort())
    expect(byName(await host.app.skills.list({ cwd: project }))['use-when']!.description).toBe('Use when: the user asks for a review: code or docs')
    const detail = await rowDetail(project, 'user-claude')
    expect(detail).toMatch(/: 4 skills; 4 warnings: /)
    expect(detail).toContain('pdf-processing/SKILL.md (name "PDF Processing": a skill name uses lowercase letters a-z and digits, with single hyphens between them (no leading, trailing or double hyphen); loaded as "pdf-processing" (the name /pdf-processing and the skill tool take))')
    expect(detail).toContain(`name "${long}": a skill name has at most 64 characters (this one has ${long.length}); loaded as "${cut}"`)
    expect(detail).toContain('use-when/SKILL.md (description: an unquoted ": " in the value, which YAML reads as a mapping; read as if quoted (quote the value to silence this))')

    const session = host.app.sessions.create({ cwd: project })
    for (const name of ['pdf-processing', 'PDF Processing']) {
      const result = await host.app.tools.execute({ name: 'skill', arguments: { name }, session })
      expect(result.isError, name).toBe(false)
      expect(result.content[0]!.text).toContain('PDF body.')
    }
    const { createUserMessage } = await import('dsh-core')
    const decision = await host.app.sessions.runPreStep(host.app.sessions.create({ cwd: project }), [createUserMessage('/my-helper-skill please', { kind: 'user' })])
    const invoked = decision.kind === 'enter' ? decision.messages.find((message) => message.source.kind === 'skill-invocation') : undefined
    expect(invoked?.content[0]).toMatchObject({ text: expect.stringMatching(/^<skill_content name="my-helper-skill">/) })
  })
})
