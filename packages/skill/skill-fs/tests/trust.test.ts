import { join } from 'node:path'
import { createUserMessage, TrustStore } from 'dsh-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bundle, FAST_WATCH, fsHost, removeTempDirs, tempDir, type FsHost } from './helpers.ts'
import { mkdir } from 'node:fs/promises'

let host: FsHost | undefined

afterEach(async () => {
  await host?.stop()
  host = undefined
  await removeTempDirs()
})

/** A git project with its own skills, a user home with one, and a trust file that trusts nothing yet. */
async function untrustedProject() {
  const base = await tempDir()
  const project = join(base, 'project')
  const home = join(base, 'home')
  await mkdir(join(project, '.git'), { recursive: true })
  await bundle(join(project, '.dsh', 'skills'), 'from-dsh')
  await bundle(join(project, '.claude', 'skills'), 'from-claude-1')
  await bundle(join(project, '.claude', 'skills'), 'from-claude-2')
  await bundle(join(home, '.claude', 'skills'), 'mine')
  const trustFile = join(base, 'dsh-home', 'trusted.json')
  return { project, home, trustFile, dshHome: join(base, 'dsh-home') }
}

describe('project skills and workspace trust', () => {
  it('loads no project skill in an untrusted workspace, still the user ones, and says how many were skipped and why', async () => {
    const { project, home, trustFile, dshHome } = await untrustedProject()
    host = await fsHost({ watch: false, userHome: home, dshHome }, { trustFile })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['mine'])
    const rows = await host.app.readiness.report({ probe: true, cwd: project })
    const summary = rows.find((row) => row.surface === 'skill' && row.id === 'filesystem')!
    expect(summary.detail).toContain(`3 project skills not loaded (the workspace is not trusted: dsh trust ${project})`)
    const untrusted = rows.filter((row) => row.state === 'untrusted')
    expect(untrusted.map((row) => [row.id, row.detail])).toEqual([
      ['project-claude', `${join(project, '.claude', 'skills')}: 2 project skills not loaded: ${project} is not trusted; to load them: dsh trust ${project}`],
      ['project-dsh', `${join(project, '.dsh', 'skills')}: 1 project skill not loaded: ${project} is not trusted; to load them: dsh trust ${project}`],
    ])
  })

  it('loads them once the workspace (or a directory above it) is trusted', async () => {
    const { project, home, trustFile, dshHome } = await untrustedProject()
    await new TrustStore(trustFile).record(join(project, '..'), true)
    host = await fsHost({ watch: false, userHome: home, dshHome }, { trustFile })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['from-claude-1', 'from-claude-2', 'from-dsh', 'mine'])
    const rows = await host.app.readiness.report({ probe: true, cwd: project })
    expect(rows.filter((row) => row.state === 'untrusted')).toEqual([])
  })

  it('the catalog tells the model how many project skills were not loaded and why, without a command for it to run', async () => {
    // Issue 26: only dsh status said so; the model could not tell the user why a skill was missing.
    const { project, home, trustFile, dshHome } = await untrustedProject()
    host = await fsHost({ watch: false, rescanMs: 0, userHome: home, dshHome }, { trustFile, tool: true })
    const session = host.app.sessions.create({ cwd: project })
    const decision = await host.app.sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })])
    const catalog = decision.kind === 'enter' ? decision.messages.find((message) => message.source.kind === 'skill-catalog') : undefined
    expect(catalog?.source).toMatchObject({ entries: [expect.objectContaining({ name: 'mine' })], untrusted: 3 })
    const text = catalog!.content.map((block) => block.text).join('\n')
    expect(text).toContain('3 project skills of this workspace were not loaded: the user has not trusted this workspace.')
    expect(text).not.toContain('dsh trust')
    // Once trusted, the list has them and the line goes: a replacement catalog.
    await new TrustStore(trustFile).record(project, true)
    const later = await host.app.sessions.runPreStep(session, [createUserMessage('again', { kind: 'user' })])
    const replaced = later.kind === 'enter' ? later.messages.find((message) => message.source.kind === 'skill-catalog') : undefined
    expect(replaced?.source).toMatchObject({ update: true, entries: expect.arrayContaining([expect.objectContaining({ name: 'from-dsh' })]) })
    expect(replaced?.source).not.toHaveProperty('untrusted')
  })

  it('a long-lived host asks about trust again on a later read without re-scanning the roots its watcher covers', async () => {
    // Trust is not signalled (another dsh may write trusted.json), so an untrusted root makes reads
    // look again; before, each such read re-listed every watched root too.
    const { project, home, trustFile, dshHome } = await untrustedProject()
    host = await fsHost({ rescanMs: 0, userHome: home, dshHome, ...FAST_WATCH }, { trustFile })
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['mine'])
    const userRoot = join(home, '.claude', 'skills')
    const listDir = vi.spyOn(host.app.fs, 'listDir')
    const rootListings = () => listDir.mock.calls.filter(([path]) => path === userRoot).length
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['mine'])
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['mine'])
    expect(rootListings()).toBe(0)
    // …and the trust is still seen on the next read once recorded (by any process).
    await new TrustStore(trustFile).record(project, true)
    expect((await host.app.skills.list({ cwd: project })).map((skill) => skill.name)).toEqual(['from-claude-1', 'from-claude-2', 'from-dsh', 'mine'])
    // A watched root's change is still seen on the reads after it.
    await bundle(join(home, '.claude', 'skills'), 'mine-too')
    await vi.waitFor(async () => expect((await host!.app.skills.list({ cwd: project })).map((skill) => skill.name)).toContain('mine-too'), { timeout: 60_000, interval: 50 })
  })
})
