import { EventEmitter } from 'node:events'
import { mkdir, rm, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import chokidar from 'chokidar'
import { createUserMessage } from 'dsh-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bundle, FAST_WATCH, fsHost, layout, removeTempDirs, until, type FsHost } from './helpers.ts'

// Real trees that break naive watchers and readers: symlink rings, self-links, a watcher that cannot
// start. None of them may crash the host or hide the skills that are fine. Nothing here waits for a
// duration: each expectation waits (bounded) for its condition.

let host: FsHost | undefined

afterEach(async () => {
  vi.restoreAllMocks()
  await host?.stop()
  host = undefined
  await removeTempDirs()
})


async function names(cwd: string): Promise<string[]> {
  return (await host!.app.skills.list({ cwd })).map((skill) => skill.name)
}

async function statusRow(cwd: string, id: string) {
  const rows = await host!.app.readiness.report({ probe: true, cwd })
  const row = rows.find((candidate) => candidate.surface === 'skill' && candidate.id === id)
  if (!row) throw new Error(`no status row ${id} in ${JSON.stringify(rows, null, 2)}`)
  return row
}

/** The root is watched: a skill added to it now shows up without any other nudge. */
async function expectWatched(root: string, cwd: string, before: readonly string[]): Promise<void> {
  await bundle(root, 'later')
  await until(async () => expect(await names(cwd)).toEqual([...before, 'later']))
}

/** The text of the catalog a pre-step of a fresh session enters. */
async function catalogNames(cwd: string): Promise<string | undefined> {
  const session = host!.app.sessions.create({ cwd })
  const decision = await host!.app.sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })])
  if (decision.kind !== 'enter') throw new Error('rejected')
  return decision.messages.find((message) => message.source.kind === 'skill-catalog')?.content[0]?.text
}

describe('symlink rings and self-links', () => {
  it('a ring (a -> b, b -> a) in a watched root is a link loop in status; the host keeps watching and offering every skill', async () => {
    const { project, home } = await layout()
    const root = join(home, '.claude', 'skills')
    await bundle(root, 'good')
    await symlink(join(root, 'b'), join(root, 'a'))
    await symlink(join(root, 'a'), join(root, 'b'))
    host = await fsHost({ ...FAST_WATCH, userHome: home }, { tool: true })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'good' })] })
    expect(await catalogNames(project)).toContain('`good`')
    const row = await statusRow(project, 'user-claude')
    expect(row.detail).toContain('a (a symbolic link loop)')
    expect(row.detail).toContain('b (a symbolic link loop)')
    await expectWatched(root, project, ['good'])
  })

  it('a self-link (x -> x) beside the skills does not stop the root being watched', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'good')
    await symlink(join(root, 'x'), join(root, 'x'))
    // Only the watcher can show a new skill: the observation would otherwise stay cached for ten minutes.
    host = await fsHost({ ...FAST_WATCH, userHome: home, rescanMs: 600_000 }, { tool: true })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true })
    expect(await catalogNames(project)).toContain('`good`')
    expect((await statusRow(project, 'project-dsh')).detail).toContain('x (a symbolic link loop)')
    expect((await statusRow(project, 'filesystem')).detail).toMatch(/; watching$/)
    await expectWatched(root, project, ['good'])
  })

  it('a SKILL.md that links to itself is rejected alone', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'good')
    await mkdir(join(root, 'selfish'))
    await symlink(join(root, 'selfish', 'SKILL.md'), join(root, 'selfish', 'SKILL.md'))
    host = await fsHost({ watch: false, userHome: home }, { tool: true })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'good' })] })
    expect((await statusRow(project, 'project-dsh')).detail).toContain('selfish/SKILL.md (a symbolic link loop)')
  })

  it('a root that is itself a self-link is reported as unreadable; the other roots are offered, and the root is watched for its repair', async () => {
    const { base, project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'good')
    const loop = join(base, 'loop')
    await symlink(loop, loop)
    host = await fsHost({ ...FAST_WATCH, userHome: home, customRoots: [loop], rescanMs: 600_000 }, { tool: true })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'good' })] })
    expect(await catalogNames(project)).toContain('`good`')
    const row = await statusRow(project, 'custom-1')
    expect(row).toMatchObject({ state: 'unavailable', detail: `${loop}: cannot be read: a symbolic link loop` })
    await rm(loop)
    await bundle(loop, 'repaired')
    await until(async () => expect(await names(project)).toEqual(['good', 'repaired']))
  })
})

/** A watcher that fails as chokidar does when the system is out of watches: an error per path it tries, never ready. */
function exhausted(message: string): ReturnType<typeof chokidar.watch> {
  const broken = Object.assign(new EventEmitter(), { close: async () => {} })
  const failure = Object.assign(new Error(message), { code: message.split(':')[0] })
  // Twice: the second error must not crash the host either.
  setImmediate(() => {
    broken.emit('error', failure)
    broken.emit('error', failure)
  })
  return broken as unknown as ReturnType<typeof chokidar.watch>
}

describe('a watcher that cannot start', () => {
  it('inotify exhausted (ENOSPC): the catalog is published, status says the root is not watched, and reads re-scan that root', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'a')
    const real = chokidar.watch.bind(chokidar)
    vi.spyOn(chokidar, 'watch').mockImplementation((paths, options) => (paths === root ? exhausted('ENOSPC: System limit for number of file watchers reached, watch') : real(paths, options)))
    host = await fsHost({ ...FAST_WATCH, userHome: home, rescanMs: 0 }, { tool: true })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'a' })] })
    expect(await catalogNames(project)).toContain('`a`')
    expect((await statusRow(project, 'project-dsh')).detail).toMatch(/; not watched: ENOSPC: System limit for number of file watchers reached/)
    expect((await statusRow(project, 'filesystem')).detail).toMatch(/; watching 5 of 6 roots$/)
    await bundle(root, 'b')
    expect(await names(project)).toEqual(['a', 'b'])
  })

  it('EMFILE after the watcher was ready: the root falls back to re-scanning instead of crashing or going quiet', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'a')
    const watchers: EventEmitter[] = []
    const real = chokidar.watch.bind(chokidar)
    let full = false
    vi.spyOn(chokidar, 'watch').mockImplementation((paths, options) => {
      // Once the descriptors are used up, every new watcher fails too.
      if (full) return exhausted('EMFILE: too many open files, watch')
      const watcher = real(paths, options)
      watchers.push(watcher as unknown as EventEmitter)
      return watcher
    })
    host = await fsHost({ ...FAST_WATCH, userHome: home, rescanMs: 0 })
    expect(await names(project)).toEqual(['a'])
    full = true
    for (const watcher of watchers) watcher.emit('error', Object.assign(new Error('EMFILE: too many open files, watch'), { code: 'EMFILE' }))
    await until(async () => expect((await statusRow(project, 'project-dsh')).detail).toMatch(/not watched: EMFILE/))
    await bundle(root, 'b')
    expect(await names(project)).toEqual(['a', 'b'])
  })
})

describe('without watching', () => {
  it('watch: false re-scans an observation older than rescanMs (0: every read)', async () => {
    const { project, home } = await layout()
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'a')
    host = await fsHost({ watch: false, userHome: home, rescanMs: 0 })
    expect(await names(project)).toEqual(['a'])
    await bundle(root, 'b')
    expect(await names(project)).toEqual(['a', 'b'])
    await host.stop()
    host = await fsHost({ watch: false, userHome: home, rescanMs: 50 })
    expect(await names(project)).toEqual(['a', 'b'])
    await bundle(root, 'c')
    await until(async () => expect(await names(project)).toEqual(['a', 'b', 'c']))
  })

  it('a one-shot host starts no watcher and says so in status', async () => {
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'a')
    const watch = vi.spyOn(chokidar, 'watch')
    host = await fsHost({ userHome: home }, { lifetime: 'one-shot' })
    expect(await host.app.skills.snapshot({ cwd: project })).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'a' })] })
    expect((await statusRow(project, 'filesystem')).detail).toMatch(/; not watching \(a one-shot command\)$/)
    expect(watch).not.toHaveBeenCalled()
  })
})
