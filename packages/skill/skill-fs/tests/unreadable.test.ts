import { chmod, chown, mkdir, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { dsh as run, killRunning } from '../../../cli/cli/tests/helpers.ts'
import { bundle, layout, removeTempDirs } from './helpers.ts'
import { unprivileged, type Unprivileged } from './unprivileged.ts'

// Unreadable files in a real tree, read by the real `dsh` as a user that permission bits apply to
// (`nobody` when the tests run as root): each bad file is rejected alone, with its reason.

let who: Unprivileged

beforeAll(async () => {
  who = await unprivileged()
})

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

interface ContextJson {
  messages: { role: string; source: string; text: string }[]
}

describe('unreadable skill files, read without root privileges', () => {
  it('a chmod-000 SKILL.md, a chmod-000 bundle directory and a SKILL.md linking to itself hide nothing else', async ({ skip }) => {
    if ('skip' in who) return skip(who.skip)
    const { base, project, home, dshHome } = await layout()
    // mkdtemp made the base private to us; the other user must be able to reach the tree.
    await chmod(base, 0o755)
    // The trusted.json that trusts the project is the other user's to read (its home, 0700).
    if ('user' in who && who.user) for (const path of [dshHome, join(dshHome, 'trusted.json')]) await chown(path, who.user.uid, who.user.gid)
    const root = join(project, '.dsh', 'skills')
    await bundle(root, 'good')
    await bundle(join(home, '.agents', 'skills'), 'from-home')
    await chmod(await bundle(root, 'locked'), 0o000)
    await bundle(root, 'closed')
    await chmod(join(root, 'closed'), 0o000)
    await mkdir(join(root, 'selfish'))
    await symlink(join(root, 'selfish', 'SKILL.md'), join(root, 'selfish', 'SKILL.md'))
    const options = { env: { HOME: home, DSH_HOME: dshHome }, ...who }
    const dsh = (args: readonly string[]) => run([...args, '--preset', 'base', '--cwd', project], options)

    const context = await dsh(['context', '--json', '--message', '/good now'])
    expect(context.code, context.stderr).toBe(0)
    const messages = (JSON.parse(context.stdout) as ContextJson).messages
    const catalog = messages.find((message) => message.source === 'skill-catalog')
    expect(catalog?.text).toContain('`good`')
    expect(catalog?.text).toContain('`from-home`')
    expect(catalog?.text).not.toMatch(/`locked`|`closed`|`selfish`/)
    expect(messages.find((message) => message.source === 'skill-invocation')?.text).toContain('Body of good.')

    const call = await dsh(['call', 'skill', '{"name":"good"}', '--json'])
    expect(call.code, call.stderr).toBe(0)
    expect(JSON.parse(call.stdout)).toMatchObject({ isError: false, value: { content: 'Body of good.' } })

    const status = await dsh(['status', '--json'])
    const rows = (JSON.parse(status.stdout) as { capabilities: { surface: string; id: string; detail: string }[] }).capabilities
    const detail = rows.find((row) => row.surface === 'skill' && row.id === 'project-dsh')?.detail
    expect(detail).toMatch(/^.*: 1 skill; 3 rejected: /)
    expect(detail).toContain('closed/SKILL.md (permission denied)')
    expect(detail).toContain('locked/SKILL.md (permission denied)')
    expect(detail).toContain('selfish/SKILL.md (a symbolic link loop)')
  })
})
