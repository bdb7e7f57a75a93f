import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SkillSummary } from 'dsh-skill'
import { bundle, fsHost, layout, put, removeTempDirs, skillMd, type FsHost } from './helpers.ts'

let host: FsHost | undefined

afterEach(async () => {
  await host?.stop()
  host = undefined
  await removeTempDirs()
})

const quiet = { watch: false }
const byName = (skills: readonly SkillSummary[]) => Object.fromEntries(skills.map((skill) => [skill.name, skill]))

describe('roots, ranks and shadowing', () => {
  it('resolves a name across every root: project .dsh > .agents > .claude > custom > user .dsh > .agents > .claude > bundled', async () => {
    const { base, project, home, dshHome } = await layout()
    const custom = join(base, 'custom')
    const bundled = join(base, 'bundled')
    const roots = [
      ['project-dsh', join(project, '.dsh', 'skills')],
      ['project-agents', join(project, '.agents', 'skills')],
      ['project-claude', join(project, '.claude', 'skills')],
      ['custom', custom],
      ['user-dsh', join(dshHome, 'skills')],
      ['user-agents', join(home, '.agents', 'skills')],
      ['user-claude', join(home, '.claude', 'skills')],
      ['bundled', bundled],
    ] as const
    // Skill `s<i>` exists in root i and every later root: root i must win it.
    for (let i = 0; i < roots.length; i++) {
      for (let j = i; j < roots.length; j++) await bundle(roots[j]![1], `s${i}`, `s${i} from ${roots[j]![0]}`)
    }
    host = await fsHost({ ...quiet, userHome: home, dshHome, customRoots: [custom], bundledRoot: bundled })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    roots.forEach(([source], i) => {
      expect(skills[`s${i}`]).toMatchObject({ source, description: `s${i} from ${source}` })
    })
    expect((await host.app.skills.get('s7', { cwd: project }))?.content).toBe('Body of s7.')
  })

  it('finds the project root from a subdirectory by its .git, and uses the cwd itself when there is none', async () => {
    const { base, project, sub, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'from-root')
    await bundle(join(sub, '.dsh', 'skills'), 'from-sub')
    const loose = join(base, 'loose', 'inner')
    await bundle(join(loose, '.dsh', 'skills'), 'loose-skill')
    await bundle(join(base, 'loose', '.dsh', 'skills'), 'above-loose')
    host = await fsHost({ ...quiet, userHome: home })
    // (The subdirectory's own skills count too: see nested.test.ts.)
    expect((await host.app.skills.list({ cwd: sub })).map((s) => s.name)).toEqual(['from-root', 'from-sub'])
    expect((await host.app.skills.list({ cwd: loose })).map((s) => s.name)).toEqual(['loose-skill'])
  })

  it('a git worktree or submodule (.git is a file) marks the project root too', async () => {
    const { base, home } = await layout()
    const worktree = join(base, 'worktree')
    await put(join(worktree, '.git'), 'gitdir: /elsewhere\n')
    await bundle(join(worktree, '.agents', 'skills'), 'wt')
    host = await fsHost({ ...quiet, userHome: home })
    expect((await host.app.skills.list({ cwd: join(worktree) })).map((s) => s.name)).toEqual(['wt'])
  })

  it('without a cwd scans no project roots but still the user, custom and bundled ones', async () => {
    const { base, project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'project-only')
    await bundle(join(home, '.agents', 'skills'), 'user-one')
    await bundle(join(base, 'custom'), 'custom-one')
    host = await fsHost({ ...quiet, userHome: home, customRoots: [join(base, 'custom')] })
    expect((await host.app.skills.list()).map((s) => s.name)).toEqual(['custom-one', 'user-one'])
  })

  it('includeDefaultRoots: false lists only the custom and bundled roots', async () => {
    const { base, project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'project-one')
    await bundle(join(home, '.agents', 'skills'), 'user-one')
    await bundle(join(base, 'custom'), 'custom-one')
    host = await fsHost({ ...quiet, userHome: home, customRoots: [join(base, 'custom')], includeDefaultRoots: false })
    expect((await host.app.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['custom-one'])
  })

  it('honours HOME and DSH_HOME when the config names no homes', async () => {
    const { home, dshHome } = await layout()
    await bundle(join(home, '.claude', 'skills'), 'via-home')
    await bundle(join(dshHome, 'elsewhere', 'skills'), 'via-dsh-home')
    const saved = { HOME: process.env.HOME, DSH_HOME: process.env.DSH_HOME }
    process.env.HOME = home
    process.env.DSH_HOME = join(dshHome, 'elsewhere')
    try {
      host = await fsHost(quiet)
    } finally {
      process.env.HOME = saved.HOME
      if (saved.DSH_HOME === undefined) delete process.env.DSH_HOME
      else process.env.DSH_HOME = saved.DSH_HOME
    }
    expect((await host.app.skills.list()).map((s) => `${s.name}:${s.source}`)).toEqual(['via-dsh-home:user-dsh', 'via-home:user-claude'])
  })

  it('a runtime skill sits between project and custom skills in the same layer', async () => {
    const { base, project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'both', 'project')
    await bundle(join(base, 'custom'), 'rt', 'custom')
    host = await fsHost({ ...quiet, userHome: home, customRoots: [join(base, 'custom')] })
    host.app.skills.register({ name: 'both', description: 'runtime', content: '' })
    host.app.skills.register({ name: 'rt', description: 'runtime', content: '' })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect([skills.both?.description, skills.rt?.description]).toEqual(['project', 'runtime'])
  })
})

describe('layout inside a root', () => {
  it('finds bundles and flat files with their resource bases; policies default to both true', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'bundled-one')
    await put(join(root, 'flat-one.md'), skillMd({ name: 'flat-one', description: 'Flat.' }))
    host = await fsHost({ ...quiet, userHome: home })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(skills['bundled-one']).toMatchObject({ invocation: { modelInvocable: true, userInvocable: true }, resourceBase: { kind: 'directory', path: join(root, 'bundled-one') }, provider: 'filesystem' })
    expect(skills['flat-one']!.resourceBase).toEqual({ kind: 'directory', path: root })
    expect(await host.app.skills.get('flat-one', { cwd: project })).toMatchObject({ content: 'Body.', path: join(root, 'flat-one.md') })
  })

  it('ignores non-.md files, directories without SKILL.md, nested SKILL.md and the user .system directory', async () => {
    const { project, home, dshHome } = await layout()
    const root = join(project, '.dsh', 'skills')
    await put(join(root, 'notes.txt'), 'x')
    await mkdir(join(root, 'empty-dir'), { recursive: true })
    await bundle(join(root, 'group'), 'nested')
    await bundle(join(dshHome, 'skills', '.system'), 'internal')
    await bundle(join(dshHome, 'skills'), 'visible')
    host = await fsHost({ ...quiet, userHome: home, dshHome })
    expect((await host.app.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['visible'])
    const rows = await host.app.readiness.report({ probe: true, cwd: project })
    expect(rows.find((row) => row.id === 'project-dsh')).toBeUndefined()
  })

  it('reports a flat .md file without frontmatter (a README beside the skills) instead of skipping it silently', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'real')
    await put(join(root, 'README.md'), '# About these skills\n')
    await put(join(root, 'deploy.md'), 'Deploy with care: run the checks first.\n')
    host = await fsHost({ ...quiet, userHome: home })
    expect((await host.app.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['real'])
    const row = (await host.app.readiness.report({ probe: true, cwd: project })).find((r) => r.id === 'project-dsh')!
    expect(row.state).toBe('ready')
    expect(row.detail).toBe(`${root}: 1 skill; 2 rejected: README.md (no frontmatter: the first line must be exactly ---); deploy.md (no frontmatter: the first line must be exactly ---)`)
  })

  it('follows symlinked skill directories and files, inside and outside the project; broken links are diagnostics', async () => {
    const { base, project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await mkdir(root, { recursive: true })
    const outside = join(base, 'shared-skills')
    await bundle(outside, 'outside-dir')
    await put(join(outside, 'outside-flat.md'), skillMd({ name: 'outside-flat', description: 'Flat outside.' }))
    await bundle(join(project, 'tools'), 'inside-dir')
    await symlink(join(outside, 'outside-dir'), join(root, 'outside-dir'))
    await symlink(join(outside, 'outside-flat.md'), join(root, 'outside-flat.md'))
    await symlink(join(project, 'tools', 'inside-dir'), join(root, 'inside-dir'))
    await symlink(join(base, 'nowhere'), join(root, 'dangling'))
    await symlink('/dev/null', join(root, 'device.md'))
    host = await fsHost({ ...quiet, userHome: home })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(Object.keys(skills)).toEqual(['inside-dir', 'outside-dir', 'outside-flat'])
    expect(skills['outside-dir']!.resourceBase).toEqual({ kind: 'directory', path: join(root, 'outside-dir') })
    expect((await host.app.skills.get('outside-dir', { cwd: project }))?.content).toBe('Body of outside-dir.')
    const rows = await host.app.readiness.report({ probe: true, cwd: project })
    expect(rows.find((row) => row.id === 'project-dsh')?.detail).toMatch(/dangling \(a broken symbolic link: its target does not exist\)/)
  })
})

describe('frontmatter and validation (S1)', () => {
  it('reads both policies and the lenient boolean spellings; bodies load trimmed', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'user-only', 'x', { 'disable-model-invocation': true }, '\n\n  Body with space.  \n\n')
    await bundle(root, 'model-only', 'x', { 'user-invocable': false })
    await bundle(root, 'off-yes', 'x', { 'disable-model-invocation': 'off', 'user-invocable': 'YES' })
    const spellings: [string, boolean][] = [['true', true], ['TRUE', true], ['"true"', true], ['yes', true], ['ON', true], ['1', true], ['"1"', true], ['false', false], ['No', false], ['off', false], ['0', false], ['"0"', false]]
    for (const [index, [spelling]] of spellings.entries()) await bundle(root, `spelling-${index}`, 'x', { 'disable-model-invocation': spelling })
    await bundle(root, 'extras', 'x', { whenToUse: 'when asked', 'metadata': '{ owner: team, tags: [a, b] }' })
    host = await fsHost({ ...quiet, userHome: home })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(skills['user-only']!.invocation).toEqual({ modelInvocable: false, userInvocable: true })
    expect(skills['model-only']!.invocation).toEqual({ modelInvocable: true, userInvocable: false })
    expect(skills['off-yes']!.invocation).toEqual({ modelInvocable: true, userInvocable: true })
    spellings.forEach(([spelling, value], index) => expect(skills[`spelling-${index}`]!.invocation.modelInvocable, spelling).toBe(!value))
    expect((await host.app.skills.get('user-only', { cwd: project }))?.content).toBe('Body with space.')
    expect(await host.app.skills.get('extras', { cwd: project })).toMatchObject({ whenToUse: 'when asked', metadata: { owner: 'team', tags: ['a', 'b'] } })
  })

  it('rejects each malformed file with its reason, keeps its valid siblings, and never crashes discovery', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    // A status row names ten rejected files; the rest are spread over two more roots.
    const roots = [root, join(project, '.agents', 'skills'), join(project, '.claude', 'skills')]
    let placed = 0
    const file = (name: string, text: string | Buffer) => put(join(roots[Math.floor(placed++ / 9)]!, name, 'SKILL.md'), text)
    await bundle(root, 'valid')
    await file('unclosed-quote', '---\nname: unclosed-quote\ndescription: "never closed\n---\nx\n')
    await file('tabs', '---\nname: tabs\n\tdescription: indented with a tab\n---\nx\n')
    await file('unterminated', '---\nname: unterminated\ndescription: never closed\n')
    await file('four-dashes', '---\nname: four-dashes\ndescription: closed by four\n----\nx\n')
    await file('no-frontmatter', '# Just a heading\n')
    await file('yaml-tag', '---yaml\nname: yaml-tag\ndescription: x\n---\nx\n')
    await file('empty', '---\n---\nx\n')
    await file('a-list', '---\n- name\n- description\n---\nx\n')
    await file('no-letters', skillMd({ name: '___', description: 'x' }))
    await file('binary-description', '---\nname: binary-description\ndescription: !!binary aGVsbG8=\n---\nx\n')
    await file('no-description', skillMd({ name: 'no-description' }))
    await file('maybe', skillMd({ name: 'maybe', description: 'x', 'disable-model-invocation': 'maybe' }))
    await file('null-policy', skillMd({ name: 'null-policy', description: 'x', 'user-invocable': 'null' }))
    await file('legacy', skillMd({ name: 'legacy', description: 'x', modelInvocable: false }))
    await file('duplicate-key', '---\nname: duplicate-key\nname: again\ndescription: x\n---\n')
    await file('bom', '\ufeff---\nname: bom\ndescription: Saved by Notepad\n---\nBody.\n')
    await file('invalid-utf8', Buffer.concat([Buffer.from('---\nname: invalid-utf8\ndescription: '), Buffer.from([0xc3, 0x28]), Buffer.from('\n---\n')]))
    await file('too-big', `${skillMd({ name: 'too-big', description: 'x' })}${'z'.repeat(10 * 1024 * 1024)}`)
    await mkdir(join(roots[2]!, 'dir-named', 'SKILL.md'), { recursive: true })
    host = await fsHost({ ...quiet, userHome: home })
    const snapshot = await host.app.skills.snapshot({ cwd: project })
    expect(snapshot).toMatchObject({ complete: true })
    expect(snapshot.skills.map((s) => s.name)).toEqual(['valid'])
    const rows = (await host.app.readiness.report({ probe: true, cwd: project })).filter((r) => r.id.startsWith('project-'))
    expect(rows.map((r) => `${r.id}:${r.state}`)).toEqual(['project-agents:unavailable', 'project-claude:unavailable', 'project-dsh:ready'])
    const items = rows.flatMap((r) => r.detail.split('; '))
    const expectations: Record<string, RegExp> = {
      'unclosed-quote': /not valid YAML: Missing closing "quote/,
      tabs: /not valid YAML: Tabs/,
      unterminated: /not closed/,
      'four-dashes': /not closed/,
      'no-frontmatter': /no frontmatter/,
      'yaml-tag': /no frontmatter/,
      empty: /empty or not a mapping/,
      'a-list': /empty or not a mapping/,
      'no-letters': /name "___": .*no letter or digit of a-z, 0-9 is left/,
      'binary-description': /description is binary data \(a !!binary tag\)/,
      'no-description': /description is missing/,
      maybe: /disable-model-invocation: "maybe" is not a boolean/,
      'null-policy': /user-invocable: null is not a boolean/,
      legacy: /"modelInvocable" is not supported, use "disable-model-invocation"/,
      'duplicate-key': /Map keys must be unique/,
      bom: /starts with a UTF-8 byte-order mark/,
      'invalid-utf8': /not UTF-8 text/,
      'too-big': /over the maxSkillFileBytes limit/,
      'dir-named': /not a regular file/,
    }
    for (const [name, reason] of Object.entries(expectations)) {
      const item = items.find((part) => part.replace(/^\d+ rejected: /, '').startsWith(`${name}/SKILL.md (`))
      expect(item, `${name} is reported`).toMatch(reason)
    }
    expect(rows.map((r) => r.detail.replace(/^.*?: /, '').split(':')[0])).toEqual(['0 skills; 9 rejected', '0 skills; 1 rejected', '1 skill; 9 rejected'])
  })

  it('accepts CRLF, a "----" value, a date, a block scalar description and a file that ends at the closing line', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await put(join(root, 'crlf', 'SKILL.md'), '---\r\nname: crlf\r\ndescription: Windows line ends\r\n---\r\nLine one.\r\nLine two.\r\n')
    await put(join(root, 'dashes', 'SKILL.md'), '---\nname: dashes\ndescription: "----"\n---\nBody.\n')
    await put(join(root, 'dated', 'SKILL.md'), '---\nname: dated\ndescription: 2024-01-02\ncreated: 2024-01-02\n---\n')
    await put(join(root, 'block', 'SKILL.md'), '---\nname: block\ndescription: |\n  Two lines\n  of description\n---\nBody.')
    await put(join(root, 'bare', 'SKILL.md'), '---\nname: bare\ndescription: No body\n---')
    host = await fsHost({ ...quiet, userHome: home })
    const skills = byName(await host.app.skills.list({ cwd: project }))
    expect(Object.keys(skills)).toEqual(['bare', 'block', 'crlf', 'dashes', 'dated'])
    expect(skills.dashes!.description).toBe('----')
    expect(skills.dated!.description).toBe('2024-01-02')
    expect(skills.block!.description).toBe('Two lines\nof description\n')
    expect((await host.app.skills.get('crlf', { cwd: project }))?.content).toBe('Line one.\nLine two.')
    expect((await host.app.skills.get('bare', { cwd: project }))?.content).toBe('')
  })

  it('loads the body fresh each time, and a file deleted after listing loads undefined', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'fresh', 'x', {}, 'first body')
    host = await fsHost({ ...quiet, userHome: home })
    expect((await host.app.skills.get('fresh', { cwd: project }))?.content).toBe('first body')
    await writeFile(join(root, 'fresh', 'SKILL.md'), skillMd({ name: 'fresh', description: 'x' }, 'second body'))
    expect((await host.app.skills.get('fresh', { cwd: project }))?.content).toBe('second body')
    const { rm } = await import('node:fs/promises')
    await rm(join(root, 'fresh'), { recursive: true })
    expect(await host.app.skills.get('fresh', { cwd: project })).toBeUndefined()
  })

  it("reads only as far as the frontmatter, in either of ctx.fs's io modes: long frontmatters, characters across read boundaries, limits", async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    // A description of 1,000 two-byte characters puts the closing line past the first read.
    await bundle(root, 'long-front', 'é'.repeat(1000))
    // A three-byte character straddling byte 2,048, in a comment before the closing line.
    await put(join(root, 'straddle', 'SKILL.md'), `---\nname: straddle\ndescription: x\n# ${'a'.repeat(2048 - 37)}€\n---\nBody.\n`)
    await put(join(root, 'bad-late', 'SKILL.md'), Buffer.concat([Buffer.from(`---\nname: bad-late\ndescription: x\n# ${'a'.repeat(3000)}`), Buffer.from([0xff]), Buffer.from('\n---\n')]))
    await put(join(root, 'never-closed', 'SKILL.md'), `---\nname: never-closed\ndescription: x\n${'# filler\n'.repeat(20000)}`)
    await put(join(root, 'binary', 'SKILL.md'), Buffer.from('---\nname: binary\n\0\0\0\n---\n'))
    const expected = {
      skills: ['long-front', 'straddle'],
      rejected: /bad-late\/SKILL.md \(the file is not UTF-8 text\); binary\/SKILL.md \(the file is not UTF-8 text\); never-closed\/SKILL.md \(no frontmatter closed within 65536 bytes\)$/,
    }
    for (const io of ['sync', 'async'] as const) {
      host = await fsHost({ ...quiet, userHome: home, readConcurrency: 2 }, { fsIo: io })
      const skills = await host.app.skills.list({ cwd: project })
      expect(skills.map((s) => s.name), io).toEqual(expected.skills)
      expect(skills[0]!.description).toBe('é'.repeat(1000))
      const row = (await host.app.readiness.report({ probe: true, cwd: project })).find((r) => r.id === 'project-dsh')!
      expect(row.detail, io).toMatch(expected.rejected)
      await host.stop()
      host = undefined
    }
  })

  it('remembers parsed frontmatters by size and mtime, at most parsedCacheMaxEntries of them', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    const first = await bundle(root, 'first', 'old words')
    await bundle(root, 'second', 'two')
    // A whole second, so setting it again gives exactly the same mtime.
    const mtime = new Date('2026-01-01T00:00:00Z')
    await utimes(first, mtime, mtime)
    // Same size, same mtime, new words: only a file that is not remembered shows the new words.
    const sneak = async () => {
      await writeFile(first, skillMd({ name: 'first', description: 'new words' }, 'Body of first.'))
      await utimes(first, mtime, mtime)
      host!.app.skills.fileChanged(first)
      return (await host!.app.skills.list({ cwd: project })).find((s) => s.name === 'first')!.description
    }
    host = await fsHost({ ...quiet, userHome: home })
    await host.app.skills.list({ cwd: project })
    expect(await sneak()).toBe('old words')
    await host.stop()
    await writeFile(first, skillMd({ name: 'first', description: 'old words' }, 'Body of first.'))
    await utimes(first, mtime, mtime)
    host = await fsHost({ ...quiet, userHome: home, parsedCacheMaxEntries: 1 })
    await host.app.skills.list({ cwd: project })
    expect(await sneak()).toBe('new words')
  })

  it('a byte-order mark added after listing makes the load undefined, like discovery', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    const path = await bundle(root, 'later-bom')
    host = await fsHost({ ...quiet, userHome: home })
    expect((await host.app.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['later-bom'])
    await writeFile(path, `\ufeff${skillMd({ name: 'later-bom', description: 'x' })}`)
    expect(await host.app.skills.get('later-bom', { cwd: project })).toBeUndefined()
  })

  it('refuses bad config at load, naming the field', async () => {
    const { Config } = await import('../src/index.ts')
    for (const [field, value] of [['watchMaxProjects', 0], ['watchPollIntervalMs', 1.5], ['watchStabilityThresholdMs', 0], ['providerName', ''], ['customRoots', 'one'], ['readConcurrency', 0], ['parsedCacheMaxEntries', 0]] as const) {
      expect(() => Config({ [field]: value }), field).toThrow(new RegExp(field))
    }
    expect(Config({}).providerName).toBe('filesystem')
    // How the files are read is the fs row's one setting; a second one here could disagree with it.
    expect(() => Config({ io: 'async' })).toThrow(/io/)
  })

  it("reads the way ctx.fs is set to: the threadpool in a long-lived host, the event loop in a one-shot command", async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'one', 'The one skill.')
    for (const [lifetime, mode] of [['long-lived', 'async'], ['one-shot', 'sync']] as const) {
      host = await fsHost({ ...quiet, userHome: home }, { lifetime })
      expect(host.app.fs.ioMode, lifetime).toBe(mode)
      expect((await host.app.skills.list({ cwd: project })).map((s) => s.name)).toEqual(['one'])
      await host.stop()
      host = undefined
    }
  })
})

describe('dsh status rows', () => {
  it('shows a summary row and one row per root with skills or rejected files', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'good')
    await put(join(home, '.agents', 'skills', 'broken', 'SKILL.md'), '---\nname: broken\n')
    host = await fsHost({ watch: false, userHome: home }, { tool: true })
    const rows = await host.app.readiness.report({ probe: true, cwd: project })
    expect(rows.map((row) => [row.surface, row.id, row.state, row.tools])).toEqual([
      ['skill', 'filesystem', 'ready', ['skill']],
      ['skill', 'project-dsh', 'ready', ['skill']],
      ['skill', 'user-agents', 'unavailable', ['skill']],
    ])
    expect(rows[0]!.detail).toMatch(/^1 skill in 6 roots \(project .*\); not watching \(watch: false\)$/)
    expect(rows[2]!.detail).toBe(`${join(home, '.agents', 'skills')}: 0 skills; 1 rejected: broken/SKILL.md (the frontmatter is not closed: no later line is exactly ---)`)
  })
})
