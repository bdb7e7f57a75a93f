import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import chokidar from 'chokidar'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bundle, FAST_WATCH, fsHost, inotifyWatches, layout, removeTempDirs, until, type FsHost } from './helpers.ts'

// A monorepo: skill directories in the packages between the session's workspace and the project
// root are found, the nearest first, as Codex and Claude Code find them.

let host: FsHost | undefined

afterEach(async () => {
  vi.restoreAllMocks()
  await host?.stop()
  host = undefined
  await removeTempDirs()
})

async function monorepo() {
  const place = await layout()
  const pkg = join(place.project, 'packages')
  const app = join(pkg, 'app')
  await mkdir(join(app, 'src'), { recursive: true })
  return { ...place, pkg, app }
}

describe('skill directories from the workspace up to the project root', () => {
  it('finds .dsh, .agents and .claude skills in every directory on the way, the nearest first', async () => {
    const { project, pkg, app, home } = await monorepo()
    await bundle(join(project, '.dsh', 'skills'), 'at-root')
    await bundle(join(pkg, '.agents', 'skills'), 'in-packages')
    await bundle(join(app, '.claude', 'skills'), 'in-app')
    // One name at every level: the nearest directory wins it, whichever kind of root holds it.
    await bundle(join(project, '.dsh', 'skills'), 'shared', 'from the project root')
    await bundle(join(pkg, '.dsh', 'skills'), 'shared', 'from packages')
    await bundle(join(app, '.claude', 'skills'), 'shared', 'from the app')
    // In one directory: .dsh before .agents before .claude.
    await bundle(join(app, '.agents', 'skills'), 'kinds', 'app .agents')
    await bundle(join(app, '.dsh', 'skills'), 'kinds', 'app .dsh')
    host = await fsHost({ watch: false, userHome: home })
    const skills = await host.app.skills.list({ cwd: join(app, 'src') })
    expect(skills.map((skill) => skill.name)).toEqual(['at-root', 'in-app', 'in-packages', 'kinds', 'shared'])
    const byName = Object.fromEntries(skills.map((skill) => [skill.name, skill]))
    expect(byName.shared?.description).toBe('from the app')
    expect(byName.kinds?.description).toBe('app .dsh')
    // From the project root only the root's own directories count.
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['at-root', 'shared'])
    const rows = (await host.app.readiness.report({ probe: true, cwd: join(app, 'src') })).filter((row) => row.surface === 'skill')
    // (Status sorts its rows by id.)
    expect(rows.map((row) => row.id)).toEqual(['filesystem', 'project-agents:packages', 'project-agents:packages/app', 'project-claude:packages/app', 'project-dsh', 'project-dsh:packages', 'project-dsh:packages/app'])
    // Four levels (src, app, packages, the project root) of three roots, and the three user roots; names, not files, are counted.
    expect(rows[0]!.detail).toMatch(/^5 skills in 15 roots \(project .*\); 3 shadowed; not watching/)
    expect(rows.find((row) => row.id === 'project-dsh:packages')?.detail).toBe(`${join(pkg, '.dsh', 'skills')}: 0 skills; 1 shadowed: shared/SKILL.md (by ${join(app, '.claude', 'skills', 'shared', 'SKILL.md')})`)
  })

  it('watches a package skill directory that appears later', async () => {
    const { app, home } = await monorepo()
    host = await fsHost({ ...FAST_WATCH, userHome: home })
    const cwd = join(app, 'src')
    expect(await host.app.skills.list({ cwd })).toEqual([])
    await bundle(join(app, '.agents', 'skills'), 'late')
    await until(async () => expect((await host!.app.skills.list({ cwd })).map((skill) => skill.name)).toEqual(['late']))
  })

  it('a workspace deep below the project root costs one OS watch per directory on the way and no chokidar watcher per missing root', async () => {
    // Issue 33 item 4: every level has three skill roots that do not exist; each one used to get a
    // chokidar watcher of its own on the level's directory, and a realpath of the whole path, so the
    // first read grew with the square of the depth. Counted, never timed.
    const { project, home } = await layout()
    await bundle(join(project, '.dsh', 'skills'), 'at-root')
    const counts = async (depth: number) => {
      const cwd = join(project, ...Array.from({ length: depth }, () => 'd'))
      await mkdir(cwd, { recursive: true })
      const watch = vi.spyOn(chokidar, 'watch')
      const before = inotifyWatches()
      host = await fsHost({ ...FAST_WATCH, userHome: home })
      expect((await host.app.skills.list({ cwd })).map((skill) => skill.name)).toEqual(['at-root'])
      const found = { chokidar: watch.mock.calls.length, os: inotifyWatches() - before }
      await host.stop()
      host = undefined
      watch.mockRestore()
      return found
    }
    const shallow = await counts(10)
    const deep = await counts(100)
    // One chokidar watcher per root that exists (the project's .dsh/skills), whatever the depth.
    expect(deep.chokidar).toBe(shallow.chokidar)
    expect(deep.chokidar).toBe(1)
    // One OS watch per directory a missing root waits in: 90 more levels, at most 90 more watches.
    expect(deep.os - shallow.os).toBeLessThanOrEqual(90)
    // And the deep chain is still watched: a skill directory appearing halfway down is noticed.
    const cwd = join(project, ...Array.from({ length: 100 }, () => 'd'))
    host = await fsHost({ ...FAST_WATCH, userHome: home })
    expect((await host.app.skills.list({ cwd })).map((skill) => skill.name)).toEqual(['at-root'])
    await bundle(join(project, ...Array.from({ length: 50 }, () => 'd'), '.claude', 'skills'), 'halfway')
    await until(async () => expect((await host!.app.skills.list({ cwd })).map((skill) => skill.name)).toEqual(['at-root', 'halfway']))
  })
})
