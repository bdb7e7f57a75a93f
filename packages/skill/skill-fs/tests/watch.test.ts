import { mkdirSync } from 'node:fs'
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import chokidar from 'chokidar'
import { createUserMessage, type UserMessage } from 'dsh-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bundle, FAST_WATCH, fsHost, inotifyWatches, layout, put, removeTempDirs, skillMd, until, type FsHost } from './helpers.ts'

// Real chokidar watchers on real directories in a running host. Timings are never asserted: each
// expectation waits (bounded) for the catalog to converge.

let host: FsHost | undefined

afterEach(async () => {
  vi.restoreAllMocks()
  await host?.stop()
  host = undefined
  await removeTempDirs()
})


/** What the view of `cwd` (and `scope`, when given) lists now. */
async function names(cwd: string, scope?: object): Promise<string[]> {
  return (await host!.app.skills.list({ cwd, ...(scope ? { scope } : {}) })).map((skill) => skill.name)
}

describe('watching a running host', () => {
  it('picks up a created, edited, renamed and deleted skill', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'first')
    host = await fsHost({ ...FAST_WATCH, userHome: home })
    expect(await names(project)).toEqual(['first'])
    await bundle(root, 'second')
    await until(async () => expect(await names(project)).toEqual(['first', 'second']))
    await writeFile(join(root, 'second', 'SKILL.md'), skillMd({ name: 'second', description: 'edited description' }))
    await until(async () => expect((await host!.app.skills.list({ cwd: project }))[1]?.description).toBe('edited description'))
    await put(join(root, 'flat.md'), skillMd({ name: 'flat', description: 'flat' }))
    await until(async () => expect(await names(project)).toEqual(['first', 'flat', 'second']))
    // The name comes from the frontmatter: a renamed directory moves the skill, it does not rename it.
    await rename(join(root, 'first'), join(root, 'renamed'))
    await until(async () => expect((await host!.app.skills.list({ cwd: project }))[0]?.resourceBase).toEqual({ kind: 'directory', path: join(root, 'renamed') }))
    await rm(join(root, 'second'), { recursive: true })
    await until(async () => expect(await names(project)).toEqual(['first', 'flat']))
  })

  it('notices a root that does not exist yet once it appears, and a root deleted and created again', async () => {
    const { project, home } = await layout()
    host = await fsHost({ ...FAST_WATCH, userHome: home })
    expect(await names(project)).toEqual([])
    // Neither .agents nor .agents/skills exists: the watcher waits one segment at a time.
    await bundle(join(project, '.agents', 'skills'), 'late')
    await until(async () => expect(await names(project)).toEqual(['late']))
    await rm(join(project, '.agents'), { recursive: true })
    await until(async () => expect(await names(project)).toEqual([]))
    await bundle(join(project, '.agents', 'skills'), 'again')
    await until(async () => expect(await names(project)).toEqual(['again']))
    // The user roots are watched too.
    await bundle(join(home, '.claude', 'skills'), 'from-home')
    await until(async () => expect(await names(project)).toEqual(['again', 'from-home']))
  })

  it('with watchUsePolling, a root that does not exist yet is noticed once it appears', async () => {
    const { project, home } = await layout()
    host = await fsHost({ ...FAST_WATCH, watchUsePolling: true, userHome: home })
    expect(await names(project)).toEqual([])
    await bundle(join(project, '.claude', 'skills'), 'polled')
    await until(async () => expect(await names(project)).toEqual(['polled']))
  })

  it('refreshes a skill reached through a symlinked directory', async () => {
    const { base, project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await mkdir(root, { recursive: true })
    await bundle(join(base, 'elsewhere'), 'linked', 'before')
    await symlink(join(base, 'elsewhere', 'linked'), join(root, 'linked'))
    host = await fsHost({ ...FAST_WATCH, userHome: home })
    expect((await host.app.skills.list({ cwd: project }))[0]?.description).toBe('before')
    await writeFile(join(base, 'elsewhere', 'linked', 'SKILL.md'), skillMd({ name: 'linked', description: 'after' }))
    await until(async () => expect((await host!.app.skills.list({ cwd: project }))[0]?.description).toBe('after'))
  })

  it('with watchMaxProjects 1, alternating between two projects still sees an edit in the first', async () => {
    const one = await layout()
    const two = await layout()
    await bundle(join(one.project, '.dsh', 'skills'), 'one')
    await bundle(join(two.project, '.dsh', 'skills'), 'two')
    host = await fsHost({ ...FAST_WATCH, userHome: one.home, watchMaxProjects: 1 })
    expect(await names(one.project)).toEqual(['one'])
    expect(await names(two.project)).toEqual(['two'])
    await bundle(join(one.project, '.dsh', 'skills'), 'one-more')
    await until(async () => expect(await names(one.project)).toEqual(['one', 'one-more']))
  })

  it('a root of thousands of folders holds watches for what maxRootEntries looks at, not for every folder; the bound moves with the root', async () => {
    // chokidar watched every folder at depth 1 and every file in them: 600 folders, 600 inotify
    // watches (20,000 folders: 20,000, past the default budget of 8,192 of some systems). Counted, never timed.
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'a-first')
    await put(join(root, 'a-first', 'notes.txt'), 'a resource: nothing the catalog reads')
    for (let index = 0; index < 600; index++) mkdirSync(join(root, `f${String(index).padStart(4, '0')}`))
    const before = inotifyWatches()
    host = await fsHost({ ...FAST_WATCH, userHome: home, maxRootEntries: 50 })
    expect(await names(project)).toEqual(['a-first'])
    // The root, its first 50 folders (a-first, f0000 … f0048), a-first's SKILL.md (not notes.txt), and the few
    // directories the missing user roots wait in.
    expect(inotifyWatches() - before).toBeLessThanOrEqual(60)
    // f0049 is the 51st: its skill is not looked at, nor watched.
    await bundle(root, 'f0049')
    // A folder before the bound is watched as it comes: its skill is seen.
    await bundle(root, 'a-second')
    await until(async () => expect(await names(project)).toEqual(['a-first', 'a-second']))
    // Two folders within the bound go: f0049 and f0050 come into it, f0049 is seen and watched.
    await rm(join(root, 'f0000'), { recursive: true })
    await rm(join(root, 'f0001'), { recursive: true })
    await until(async () => expect(await names(project)).toEqual(['a-first', 'a-second', 'f0049']))
    await writeFile(join(root, 'f0049', 'SKILL.md'), skillMd({ name: 'f0049', description: 'edited inside the moved bound' }))
    await until(async () => expect((await host!.app.skills.list({ cwd: project }))[2]?.description).toBe('edited inside the moved bound'))
    expect(inotifyWatches() - before).toBeLessThanOrEqual(60)
  })

  it('with watch: false still lists, without watchers', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'a')
    const watch = vi.spyOn(chokidar, 'watch')
    host = await fsHost({ watch: false, userHome: home })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'a' })] })
    expect(watch).not.toHaveBeenCalled()
  })

  it('ctx.skills.fileChanged: a writer invalidates at once for skill paths, not for resources or other files', async () => {
    const { base, project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'a')
    // Unwatched, so only the writer's call can make the change visible.
    host = await fsHost({ watch: false, userHome: home })
    await names(project)
    let changes = 0
    host.app.skills.onChange(() => {
      changes++
    })
    for (const path of [join(root, 'a', 'references', 'guide.md'), join(base, 'unrelated.md'), root, join(root, 'a', 'notes.txt')]) host.app.skills.fileChanged(path)
    expect(changes).toBe(0)
    await bundle(root, 'b')
    host.app.skills.fileChanged(join(root, 'b', 'SKILL.md'))
    expect(changes).toBe(1)
    expect(await names(project)).toEqual(['a', 'b'])
    host.app.skills.fileChanged(join(root, 'flat.md'))
    expect(changes).toBe(2)
  })

})

describe('the catalog over real files', () => {
  it('republishes by digest across pre-steps: initial, replacement on add and edit, nothing for a body edit, tombstone at the end', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'a', 'first a')
    host = await fsHost({ ...FAST_WATCH, userHome: home }, { tool: true })
    const session = host.app.sessions.create({ cwd: project })
    const step = async (): Promise<UserMessage[]> => {
      const decision = await host!.app.sessions.runPreStep(session, [createUserMessage('go on', { kind: 'user' })])
      if (decision.kind !== 'enter') throw new Error('rejected')
      return decision.messages.filter((message) => message.source.kind === 'skill-catalog')
    }
    const entries = (message: UserMessage | undefined) => (message?.source.entries as { name: string; description: string }[] | undefined)?.map((e) => `${e.name}:${e.description}`)
    expect(entries((await step())[0])).toEqual(['a:first a'])
    expect(await step()).toEqual([])
    await bundle(root, 'b', 'new b')
    await until(async () => expect(await names(project, session)).toEqual(['a', 'b']))
    const [added] = await step()
    expect(added?.source.update).toBe(true)
    expect(entries(added)).toEqual(['a:first a', 'b:new b'])
    await writeFile(join(root, 'a', 'SKILL.md'), skillMd({ name: 'a', description: 'first a' }, 'a new body'))
    await writeFile(join(root, 'b', 'SKILL.md'), skillMd({ name: 'b', description: 'better b' }))
    await until(async () => expect((await host!.app.skills.list({ cwd: project, scope: session }))[1]?.description).toBe('better b'))
    expect(entries((await step())[0])).toEqual(['a:first a', 'b:better b'])
    expect(await step()).toEqual([])
    const loaded = await host.app.tools.execute({ name: 'skill', arguments: { name: 'a' }, session })
    expect(!loaded.isError && loaded.value).toMatchObject({ content: 'a new body' })
    await rm(root, { recursive: true })
    await until(async () => expect(await names(project, session)).toEqual([]))
    const [tombstone] = await step()
    expect(entries(tombstone)).toEqual([])
    expect(await step()).toEqual([])
  })
})
