import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { captureLogs } from '../../skill/tests/helpers.ts'
import { bundle, fsHost, layout, put, removeTempDirs, skillMd, type FsHost } from './helpers.ts'

// Every file that looks like a skill and is not offered gets a line saying why, and the lines stay
// bounded however many such files a root holds.

let host: FsHost | undefined
let logs: ReturnType<typeof captureLogs> | undefined

afterEach(async () => {
  logs?.stop()
  logs = undefined
  await host?.stop()
  host = undefined
  await removeTempDirs()
})

async function rows(cwd: string) {
  return (await host!.app.readiness.report({ probe: true, cwd })).filter((row) => row.surface === 'skill')
}

describe('diagnostics', () => {
  it('a bundle or flat file whose name is not UTF-8 is rejected by name instead of vanishing', async () => {
    // Node names directory entries in UTF-8: a byte 0xFE comes back as U+FFFD, a path that does not
    // exist, so the skill was dropped without a word.
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'fine')
    const rootBytes = Buffer.from(root)
    const bundleDir = Buffer.concat([rootBytes, Buffer.from('/latin'), Buffer.from([0xfe])])
    await mkdir(bundleDir)
    await writeFile(Buffer.concat([bundleDir, Buffer.from('/SKILL.md')]), skillMd({ name: 'latin', description: 'x' }))
    await writeFile(Buffer.concat([rootBytes, Buffer.from('/flat'), Buffer.from([0xff]), Buffer.from('.md')]), skillMd({ name: 'flat', description: 'x' }))
    host = await fsHost({ watch: false, userHome: home })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['fine'])
    const [, row] = await rows(project)
    const reason = 'its name is not valid UTF-8 (shown as \uFFFD), so it cannot be opened by name; rename it'
    expect(row!.detail).toBe(`${root}: 1 skill; 2 rejected: flat\uFFFD.md (${reason}); latin\uFFFD/SKILL.md (${reason})`)
  })

  it('a dangling SKILL.md link, a lowercase skill.md, a FIFO and a flat file shadowed by a bundle each get a line', async () => {
    const { base, project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'fine')
    await mkdir(join(root, 'dangling'), { recursive: true })
    await symlink(join(base, 'nowhere', 'SKILL.md'), join(root, 'dangling', 'SKILL.md'))
    await put(join(root, 'lower', 'skill.md'), skillMd({ name: 'lower', description: 'x' }))
    execFileSync('mkfifo', [join(root, 'pipe.md')])
    await bundle(root, 'twice', 'the bundle')
    await put(join(root, 'twice.md'), skillMd({ name: 'twice', description: 'the flat file' }))
    // A directory without any SKILL.md (resources kept beside the skills) stays silent.
    await put(join(root, 'assets', 'logo.txt'), 'x')
    host = await fsHost({ watch: false, userHome: home })
    const skills = await host.app.skills.list({ cwd: project })
    expect(skills.map((skill) => `${skill.name}:${skill.description}`)).toEqual(['fine:fine from ' + root, 'twice:the bundle'])
    const [summary, row] = await rows(project)
    expect(summary!.detail).toMatch(/^2 skills in 6 roots \(project .*\); 1 shadowed; not watching/)
    expect(row!.detail).toBe(
      `${root}: 2 skills; 1 shadowed: twice.md (by twice/SKILL.md); 3 rejected: ` +
        'dangling/SKILL.md (a broken symbolic link: its target does not exist); ' +
        'lower/skill.md (the file must be named SKILL.md, in capitals); ' +
        'pipe.md (not a regular file)',
    )
  })

  it('a skill shadowed by a better-ranked root is counted once, and said on the losing root', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'same', 'project')
    await bundle(join(home, '.claude', 'skills'), 'same', 'user')
    await bundle(join(home, '.claude', 'skills'), 'other', 'user')
    host = await fsHost({ watch: false, userHome: home })
    const all = await rows(project)
    expect(all[0]!.detail).toMatch(/^2 skills in 6 roots .*; 1 shadowed; /)
    expect(all.find((row) => row.id === 'user-claude')?.detail).toBe(`${join(home, '.claude', 'skills')}: 1 skill; 1 shadowed: same/SKILL.md (by ${join(project, '.dsh', 'skills', 'same', 'SKILL.md')})`)
  })

  it('3,000 notes that are not skills give a bounded status row and one summary warning', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'real')
    await mkdir(root, { recursive: true })
    // Written synchronously: 3,000 awaited writes each wait a threadpool round trip (0.79 s against 0.63 s, measured alone).
    for (let i = 0; i < 3000; i++) writeFileSync(join(root, `note-${String(i).padStart(4, '0')}.md`), `# Note ${i}\n`)
    logs = captureLogs()
    // (Above the default maxRootEntries, 2,000: every note is looked at.)
    host = await fsHost({ watch: false, userHome: home, maxRootEntries: 5000 })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['real'])
    const row = (await rows(project)).find((candidate) => candidate.id === 'project-dsh')!
    expect(row.detail).toMatch(/^.*: 1 skill; 3,000 rejected: note-0000\.md \(no frontmatter: the first line must be exactly ---\); (?:[^;]+; ){9}and 2,990 more \(dsh status --json lists them\)$/)
    // The JSON carries the first statusItemsMax (1,000) of them and counts the rest.
    expect(row.items).toHaveLength(1000)
    expect(row.items?.[0]).toEqual({ kind: 'rejected', path: join(root, 'note-0000.md'), reason: 'no frontmatter: the first line must be exactly ---' })
    expect(row.itemsOmitted).toBe(2000)
    const warnings = logs.lines.filter((line) => line.includes(root))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/3,000 files rejected.*note-0000\.md.*dsh status/)
  })

  it('a root of many empty folders is looked at up to maxRootEntries in name order, and says how many it passed over, once', async () => {
    // Each folder without a SKILL.md costs a stat and a listing at every rebuild: 20,000 of them took 1.3 s.
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'alpha')
    for (let i = 0; i < 300; i++) mkdirSync(join(root, `empty-${String(i).padStart(3, '0')}`))
    await bundle(root, 'zulu')
    // Files that cannot be skills cost nothing and are not counted.
    await put(join(root, 'notes.txt'), 'not a skill\n')
    logs = captureLogs()
    host = await fsHost({ watch: false, rescanMs: 0, userHome: home, maxRootEntries: 100 })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['alpha'])
    const note = '202 more folders and .md files not looked at (past maxRootEntries, in name order): skills among them are not offered'
    const row = (await rows(project)).find((candidate) => candidate.id === 'project-dsh')!
    expect(row.detail).toBe(`${root}: 1 skill; ${note}`)
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['alpha'])
    expect(logs.lines.filter((line) => line.includes(root))).toEqual([expect.stringContaining(`skill root ${root}: ${note}`)])
  })
})
