import { readdirSync, readFileSync } from 'node:fs'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { bootPreset, ChildHandle, isScrubbedName, scrubbedEnv, scrubReason, SubprocessError, SubprocessService, type Host } from '../src/index.ts'
import { groupAlive } from '../src/subprocess/group.ts'
import { ByteTail } from '../src/subprocess/tail.ts'
import { firstLine, TREE_SCRIPT, type TreePids } from './fixtures/tree.ts'
import { expectAllGone, harnessRejection, harnessThrow, killLeftovers, pidDead, removeTempDirs, tempDir } from './helpers.ts'

let app: Context
/** Every pid a test started, killed at the end if an assertion failed before cleanup. */
const started = new Set<number>()

beforeEach(async () => {
  app = new Context()
  app.plugin(SubprocessService, { graceMs: 300, installationBins: false })
  await app.start()
})

afterEach(async () => {
  await app.subprocess?.shutdown()
  await app.stop()
  killLeftovers(started)
  started.clear()
  await removeTempDirs()
})

async function spawnTree(): Promise<{ handle: ChildHandle; pids: TreePids }> {
  const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', TREE_SCRIPT], cwd: process.cwd(), stdout: 'pipe' })
  started.add(handle.pid)
  const pids = JSON.parse(await firstLine(handle.stdout!)) as TreePids
  started.add(pids.grandchild)
  expect(pids.leader).toBe(handle.pid)
  return { handle, pids }
}

/** Runs node with `script`, returns its stdout once it has exited. */
async function runNode(script: string, env?: Record<string, string | undefined>): Promise<string> {
  const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', script], cwd: process.cwd(), stdout: 'pipe', ...(env ? { env } : {}) })
  started.add(handle.pid)
  const chunks: Buffer[] = []
  const ended = new Promise<void>((resolve) => handle.stdout!.on('end', resolve))
  handle.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk))
  const exit = await handle.exited
  await ended
  expect(exit).toEqual({ code: 0, signal: null })
  return Buffer.concat(chunks).toString('utf8')
}

describe('scrubbedEnv', () => {
  const parent = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/someone',
    LANG: 'C.UTF-8',
    SSH_AUTH_SOCK: '/tmp/agent.sock',
    HTTPS_PROXY: 'http://proxy:8080',
    MY_API_KEY: 'k',
    GITHUB_TOKEN: 't',
    db_password: 'p',
    Client_Secret_Value: 's',
    TOKENIZERS_PARALLELISM: 'true',
    XKB_DEFAULT_KEYMAP: 'us',
    DSH_HOME: '/x',
    dsh_debug: '1',
    Dsh_Mixed: '1',
    NOT_DSH_PREFIXED: 'kept',
  }

  it('drops secret-looking names and DSH_* (any case) and keeps the rest', () => {
    expect(scrubbedEnv({}, parent)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/someone',
      LANG: 'C.UTF-8',
      HTTPS_PROXY: 'http://proxy:8080',
      NOT_DSH_PREFIXED: 'kept',
    })
  })

  it('drops the names a review found leaking, and values that are URLs with credentials', () => {
    const leaky = {
      GITHUB_PAT: 'ghp_x',
      DATABASE_URL: 'postgres://u:pw@db.internal:5432/app',
      REDIS: 'redis://:pw@cache:6379',
      NPM_AUTH: 'x',
      CREDENTIALS: 'x',
      MYPASSWD: 'x',
      BEARER: 'x',
      SESSION_COOKIE: 'x',
      PAT: 'x',
      PIP_INDEX_URL: 'https://user@pypi.example/simple',
      // Kept: no userinfo, and names that only contain PAT inside a word.
      MIRROR_URL: 'https://mirror.example/path?q=a@b',
      PATTERN: 'x',
      CLASSPATH: '/opt/lib',
    }
    expect(scrubbedEnv({}, leaky)).toEqual({ MIRROR_URL: 'https://mirror.example/path?q=a@b', PATTERN: 'x', CLASSPATH: '/opt/lib' })
  })

  it('passes a withheld name through when passEnv names it', () => {
    expect(scrubbedEnv({}, parent, ['SSH_AUTH_SOCK', 'GITHUB_TOKEN']).SSH_AUTH_SOCK).toBe('/tmp/agent.sock')
    expect(scrubbedEnv({}, parent, ['SSH_AUTH_SOCK', 'GITHUB_TOKEN']).GITHUB_TOKEN).toBe('t')
  })

  it('matches passEnv names case-insensitively, as the scrub matches them (issue 26 item 7)', () => {
    const env = scrubbedEnv({}, { github_token: 'lower', Npm_Token: 'mixed', OTHER_TOKEN: 'kept back' }, ['GITHUB_TOKEN', 'npm_token'])
    expect(env).toEqual({ github_token: 'lower', Npm_Token: 'mixed' })
  })

  it('a handed-off child (a browser opener) is not tracked: shutdown leaves its group alone', async () => {
    const app = new Context()
    app.plugin(SubprocessService)
    await app.start()
    const service = app.get('subprocess')!
    const child = service.spawn({ argv: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'], cwd: process.cwd(), handOff: true })
    try {
      expect(child.pid).toBeGreaterThan(0)
      expect(service.live).toBe(0)
      await service.shutdown()
      expect(groupAlive(child.pid)).toBe(true)
    } finally {
      process.kill(-child.pid, 'SIGKILL')
      await app.stop()
    }
  })

  it('scrubReason says why', () => {
    expect(scrubReason('DSH_X')).toBe('dsh variable')
    expect(scrubReason('GITHUB_PAT')).toBe('secret-looking name')
    expect(scrubReason('DATABASE_URL', 'postgres://u:pw@h/db')).toBe('credentials in a URL')
    expect(scrubReason('DATABASE_URL', 'postgres://h/db')).toBeUndefined()
  })

  it('puts explicit env on top, including deliberately named secrets, and undefined removes', () => {
    const env = scrubbedEnv({ MY_API_KEY: 'explicit', EXTRA: 'e', PATH: '/opt/bin', HOME: undefined, NEVER_THERE: undefined }, parent)
    expect(env.MY_API_KEY).toBe('explicit')
    expect(env.EXTRA).toBe('e')
    expect(env.PATH).toBe('/opt/bin')
    expect('HOME' in env).toBe(false)
    expect('NEVER_THERE' in env).toBe(false)
    expect('GITHUB_TOKEN' in env).toBe(false)
  })

  it('keeps only the absolute PATH entries, and no PATH when none is absolute (an empty one means the current directory)', () => {
    expect(scrubbedEnv({}, { PATH: '.:/usr/bin::node_modules/.bin:/bin:./x' }).PATH).toBe('/usr/bin:/bin')
    expect(scrubbedEnv({ PATH: 'bin:/opt/bin' }, parent).PATH).toBe('/opt/bin')
    expect('PATH' in scrubbedEnv({}, { PATH: '.:node_modules/.bin' })).toBe(false)
    expect('PATH' in scrubbedEnv({}, { PATH: '' })).toBe(false)
  })

  it('does not change its inputs', () => {
    const copy = { ...parent }
    const explicit = { A: '1', PATH: undefined }
    scrubbedEnv(explicit, copy)
    expect(copy).toEqual(parent)
    expect(explicit).toEqual({ A: '1', PATH: undefined })
  })

  it('isScrubbedName matches by substring, case-insensitively', () => {
    for (const name of ['KEY', 'monkey', 'apikey', 'PASSWORD_FILE', 'x_secret', 'Token', 'DSH_', 'dsh_home', 'SSH_AUTH_SOCK', 'github_pat', 'Pat_Value']) {
      expect(isScrubbedName(name), name).toBe(true)
    }
    for (const name of ['PATH', 'HOME', 'USER', 'DSHX', 'MY_DSH_THING', 'PATTERN', 'XPATH']) expect(isScrubbedName(name), name).toBe(false)
  })
})

describe('a spawned child', () => {
  const leaky = ['GITHUB_PAT', 'DATABASE_URL', 'NPM_AUTH', 'CREDENTIALS', 'MYPASSWD', 'BEARER']
  const names = ['MY_API_KEY', 'DSH_TEST_SETTING', 'dsh_lower_setting', 'SOME_SECRET_VALUE', 'DSH_CORE_TEST_PLAIN', ...leaky]
  const saved = new Map<string, string | undefined>()

  beforeEach(() => {
    for (const name of names) saved.set(name, process.env[name])
    process.env.MY_API_KEY = 'must-not-leak'
    process.env.DSH_TEST_SETTING = 'must-not-leak'
    process.env.dsh_lower_setting = 'must-not-leak'
    process.env.SOME_SECRET_VALUE = 'must-not-leak'
    for (const name of leaky) process.env[name] = name === 'DATABASE_URL' ? 'postgres://u:must-not-leak@db/app' : 'must-not-leak'
  })

  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    saved.clear()
  })

  it('never sees a secret-named or DSH_* variable of the parent, but sees explicit ones', async () => {
    const env = JSON.parse(await runNode('process.stdout.write(JSON.stringify(process.env))', { EXPLICIT_TOKEN: 'given', PLAIN_EXTRA: 'yes' })) as Record<string, string>
    expect(env.MY_API_KEY).toBeUndefined()
    expect(env.DSH_TEST_SETTING).toBeUndefined()
    expect(env.dsh_lower_setting).toBeUndefined()
    expect(env.SOME_SECRET_VALUE).toBeUndefined()
    for (const name of leaky) expect(env[name], name).toBeUndefined()
    expect(Object.values(env).filter((value) => value.includes('must-not-leak'))).toEqual([])
    expect(env.EXPLICIT_TOKEN).toBe('given')
    expect(env.PLAIN_EXTRA).toBe('yes')
    expect(env.PATH).toBe(process.env.PATH)
  })

  it('sees an explicitly passed secret even when the parent has one of the same name', async () => {
    const env = JSON.parse(await runNode('process.stdout.write(JSON.stringify(process.env))', { MY_API_KEY: 'chosen' })) as Record<string, string>
    expect(env.MY_API_KEY).toBe('chosen')
  })

  it('runs in the given cwd and its own process group', async () => {
    const dir = await tempDir()
    const handle = app.subprocess.spawn({
      argv: [process.execPath, '-e', `process.stdout.write(JSON.stringify({ cwd: process.cwd(), pid: process.pid }))`],
      cwd: dir,
      stdout: 'pipe',
    })
    started.add(handle.pid)
    const out = JSON.parse(await firstLineOrAll(handle)) as { cwd: string; pid: number }
    expect(out.cwd).toBe(dir)
    expect(out.pid).toBe(handle.pid)
    expect(await handle.exited).toEqual({ code: 0, signal: null })
  })

  it('reports the exit code of a failing child', async () => {
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', 'process.exit(7)'], cwd: process.cwd() })
    started.add(handle.pid)
    expect(await handle.exited).toEqual({ code: 7, signal: null })
    expect(handle.running).toBe(false)
  })

  // A language server's `#!/usr/bin/env node`, or pyright running `python3`, looks the name up in
  // the child's PATH, in the workspace it runs in: a relative entry there found the repository's own.
  it("looks names up in no relative PATH entry: a program planted in its workspace is not run, the user's absolute directories still are", async () => {
    const workspace = await tempDir()
    const own = await tempDir()
    const marker = join(workspace, 'planted-ran')
    const script = (text: string) => `#!/bin/sh\necho ${text} > ${marker}\n`
    await writeFile(join(workspace, 'dsh-planted-tool'), script('planted'), { mode: 0o755 })
    await mkdir(join(workspace, 'node_modules', '.bin'), { recursive: true })
    await writeFile(join(workspace, 'node_modules', '.bin', 'dsh-planted-tool'), script('planted-bin'), { mode: 0o755 })
    const run = async (path: string) => {
      const handle = app.subprocess.spawn({ argv: ['/usr/bin/env', 'dsh-planted-tool'], cwd: workspace, env: { PATH: path } })
      started.add(handle.pid)
      return (await handle.exited).code
    }
    for (const path of [`.:${own}`, `:${own}`, `${own}:`, `node_modules/.bin:${own}`, './node_modules/.bin']) {
      expect(await run(path), path).toBe(127)
      await expect(readFile(marker, 'utf8'), path).rejects.toMatchObject({ code: 'ENOENT' })
    }
    await writeFile(join(own, 'dsh-planted-tool'), script('own'), { mode: 0o755 })
    expect(await run(`.:${own}`)).toBe(0)
    expect(await readFile(marker, 'utf8')).toBe('own\n')
  })
})

async function firstLineOrAll(handle: ChildHandle): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of handle.stdout!) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

describe('resolveExecutable', () => {
  async function binDir() {
    const dir = await tempDir()
    const bin = join(dir, 'bin')
    await mkdir(bin)
    const tool = join(bin, 'dsh-test-tool')
    await writeFile(tool, '#!/bin/sh\necho hi\n')
    await chmod(tool, 0o755)
    const plain = join(bin, 'plain.txt')
    await writeFile(plain, 'not a program\n')
    await chmod(plain, 0o644)
    return { dir, bin, tool, plain }
  }

  it('accepts an absolute executable file', async () => {
    const { tool } = await binDir()
    expect(await app.subprocess.resolveExecutable(tool)).toBe(tool)
    expect(await app.subprocess.resolveExecutable(process.execPath)).toBe(process.execPath)
  })

  it('refuses an absolute non-executable file with SUBPROCESS_NOT_EXECUTABLE', async () => {
    const { plain } = await binDir()
    expect((await harnessRejection(app.subprocess.resolveExecutable(plain))).code).toBe('SUBPROCESS_NOT_EXECUTABLE')
  })

  it('refuses an absolute directory with SUBPROCESS_NOT_EXECUTABLE', async () => {
    const { bin } = await binDir()
    expect((await harnessRejection(app.subprocess.resolveExecutable(bin))).code).toBe('SUBPROCESS_NOT_EXECUTABLE')
  })

  it('refuses an absolute path that does not exist with SUBPROCESS_NOT_EXECUTABLE', async () => {
    const { bin } = await binDir()
    expect((await harnessRejection(app.subprocess.resolveExecutable(join(bin, 'missing')))).code).toBe('SUBPROCESS_NOT_EXECUTABLE')
  })

  it('finds a bare name on a PATH given through env', async () => {
    const { bin, tool } = await binDir()
    expect(await app.subprocess.resolveExecutable('dsh-test-tool', { env: { PATH: `/nonexistent-dir:${bin}` } })).toBe(tool)
  })

  it('never runs a binary planted in a relative PATH entry, whatever the cwd', async () => {
    const ws = await tempDir()
    const local = join(ws, 'node_modules', '.bin')
    await mkdir(local, { recursive: true })
    await writeFile(join(local, 'dsh-test-tool'), '#!/bin/sh\necho planted\n')
    await chmod(join(local, 'dsh-test-tool'), 0o755)
    const cwd = process.cwd()
    process.chdir(ws)
    try {
      const error = await harnessRejection(app.subprocess.resolveExecutable('dsh-test-tool', { env: { PATH: './node_modules/.bin::.' } }))
      expect(error.code).toBe('SUBPROCESS_NOT_FOUND')
    } finally {
      process.chdir(cwd)
    }
  })

  it('searches the installation bin directories before PATH, so a global copy never shadows the pinned one', async () => {
    const { bin } = await binDir()
    await writeFile(join(bin, 'tsc'), '#!/bin/sh\n')
    await chmod(join(bin, 'tsc'), 0o755)
    const installed = new Context()
    installed.plugin(SubprocessService, {})
    await installed.start()
    try {
      const resolved = await installed.subprocess.resolveExecutable('tsc', { env: { PATH: bin } })
      expect(resolved).not.toBe(join(bin, 'tsc'))
      expect(resolved).toMatch(/node_modules\/\.bin\/tsc$/)
    } finally {
      await installed.stop()
    }
  })

  it('spawn refuses a command that is not an absolute path', () => {
    expect(harnessThrow(() => app.subprocess.spawn({ argv: ['node', '-e', ''], cwd: process.cwd() })).code).toBe('SUBPROCESS_COMMAND_INVALID')
  })

  it('skips a non-executable match on PATH', async () => {
    const { bin } = await binDir()
    expect((await harnessRejection(app.subprocess.resolveExecutable('plain.txt', { env: { PATH: bin } }))).code).toBe('SUBPROCESS_NOT_FOUND')
  })

  it('refuses a name found nowhere with SUBPROCESS_NOT_FOUND', async () => {
    const { bin } = await binDir()
    const error = await harnessRejection(app.subprocess.resolveExecutable('dsh-no-such-program-anywhere', { env: { PATH: bin } }))
    expect(error.code).toBe('SUBPROCESS_NOT_FOUND')
    expect(error.message).toContain('dsh-no-such-program-anywhere')
  })

  it.each(['bin/dsh-test-tool', './dsh-test-tool', '../bin/dsh-test-tool'])('refuses the relative path %s with SUBPROCESS_COMMAND_INVALID', async (command) => {
    const { dir } = await binDir()
    expect((await harnessRejection(app.subprocess.resolveExecutable(command))).code).toBe('SUBPROCESS_COMMAND_INVALID')
  })

  it('refuses an empty command with SUBPROCESS_COMMAND_INVALID', async () => {
    expect((await harnessRejection(app.subprocess.resolveExecutable(''))).code).toBe('SUBPROCESS_COMMAND_INVALID')
  })

  it('rejects when the signal is already aborted', async () => {
    await expect(app.subprocess.resolveExecutable('node', { signal: AbortSignal.abort(new Error('no time')) })).rejects.toThrow('no time')
  })
})

describe('stderr tail', () => {
  it('never splits a UTF-8 character', () => {
    const tail = new ByteTail(4)
    tail.push(Buffer.from('😀😀'))
    expect(tail.text()).toBe('😀')
    const five = new ByteTail(5)
    five.push(Buffer.from('😀😀'))
    expect(five.text()).toBe('😀')
    const seven = new ByteTail(7)
    seven.push(Buffer.from('😀'))
    seven.push(Buffer.from('é😀'))
    expect(seven.text()).toBe('é😀')
  })

  it('keeps the last bytes across many small pushes', () => {
    const tail = new ByteTail(10)
    for (const piece of 'abcdefghijklmnopqrstuvwxyz') tail.push(Buffer.from(piece))
    expect(tail.text()).toBe('qrstuvwxyz')
    const none = new ByteTail(0)
    none.push(Buffer.from('anything'))
    expect(none.text()).toBe('')
  })

  it('keeps a bounded tail of a real child', async () => {
    const handle = app.subprocess.spawn({
      argv: [process.execPath, '-e', `process.stderr.write('x'.repeat(200000) + 'héllo😀END')`],
      cwd: process.cwd(),
      stderrTailBytes: 16,
    })
    started.add(handle.pid)
    await handle.exited
    await vi.waitFor(() => expect(handle.stderrTail().endsWith('END')).toBe(true), { timeout: 10_000 })
    const tail = handle.stderrTail()
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(16)
    expect(tail).toBe('xxxhéllo😀END')
  })
})

describe('terminate', () => {
  it('ends a whole process group whose leader and grandchild ignore SIGTERM', async () => {
    const { handle, pids } = await spawnTree()
    expect(pidDead(pids.leader)).toBe(false)
    expect(pidDead(pids.grandchild)).toBe(false)
    await handle.terminate()
    await expectAllGone([pids.leader, pids.grandchild])
    expect(await handle.exited).toEqual({ code: null, signal: 'SIGKILL' })
    expect(handle.running).toBe(false)
  })

  it('is idempotent', async () => {
    const { handle, pids } = await spawnTree()
    const first = handle.terminate()
    expect(handle.terminate()).toBe(first)
    await first
    await handle.terminate()
    await expectAllGone([pids.leader, pids.grandchild])
  })

  it('stops a cooperative child with SIGTERM alone', async () => {
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd: process.cwd(), graceMs: 60_000 })
    started.add(handle.pid)
    await handle.terminate()
    expect(await handle.exited).toEqual({ code: null, signal: 'SIGTERM' })
    await expectAllGone([handle.pid])
  })

  it('also ends a grandchild left behind after its leader exited on its own', async () => {
    // The leader starts a SIGTERM-ignoring grandchild in its group, reports it, and exits.
    const script = `
      const { spawn } = require('node:child_process')
      const g = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); process.stdout.write('ready\\\\n'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] })
      g.stdout.once('data', () => { process.stdout.write(JSON.stringify({ grandchild: g.pid }) + '\\n'); g.stdout.destroy(); g.unref(); process.exit(0) })
    `
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', script], cwd: process.cwd(), stdout: 'pipe' })
    started.add(handle.pid)
    const { grandchild } = JSON.parse(await firstLine(handle.stdout!)) as { grandchild: number }
    started.add(grandchild)
    expect(await handle.exited).toEqual({ code: 0, signal: null })
    expect(pidDead(grandchild)).toBe(false)
    await handle.terminate()
    await expectAllGone([grandchild])
  })
})

describe('service', () => {
  it('shutdown() leaves no child behind, also when children ignore SIGTERM', async () => {
    const trees = await Promise.all([spawnTree(), spawnTree()])
    const plain = app.subprocess.spawn({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd: process.cwd() })
    started.add(plain.pid)
    expect(app.subprocess.live).toBe(3)
    await app.subprocess.shutdown()
    await expectAllGone([...trees.flatMap(({ pids }) => [pids.leader, pids.grandchild]), plain.pid])
    expect(app.subprocess.live).toBe(0)
  })

  it('shutdown() gives up on a group that outlives SIGKILL after killWaitMs and reports its pid', async () => {
    // A process in uninterruptible sleep ignores SIGKILL; no test can put one there, so SIGKILL to
    // this one group is swallowed instead.
    const bounded = new Context()
    bounded.plugin(SubprocessService, { graceMs: 100, killWaitMs: 300, installationBins: false })
    await bounded.start()
    const stuck = bounded.subprocess.spawn({
      argv: [process.execPath, '-e', "process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)"],
      cwd: process.cwd(),
      stdout: 'pipe',
    })
    started.add(stuck.pid)
    expect(await firstLine(stuck.stdout!)).toBe('ready')
    const realKill = process.kill.bind(process)
    const spy = vi.spyOn(process, 'kill').mockImplementation((pid: number, signal?: string | number) => {
      if (Math.abs(pid) === stuck.pid && signal === 'SIGKILL') return true
      return realKill(pid, signal)
    })
    try {
      const abandoned = await bounded.subprocess.shutdown()
      expect(abandoned).toEqual([stuck.pid])
      expect(stuck.abandoned).toBe(true)
      expect(stuck.running).toBe(true)
    } finally {
      spy.mockRestore()
      realKill(-stuck.pid, 'SIGKILL')
      await stuck.exited
      await bounded.stop()
    }
  })

  it('refuses to spawn after shutdown with SUBPROCESS_SHUT_DOWN', async () => {
    await app.subprocess.shutdown()
    const error = harnessThrow(() => app.subprocess.spawn({ argv: [process.execPath, '-e', ''], cwd: process.cwd() }))
    expect(error.code).toBe('SUBPROCESS_SHUT_DOWN')
  })

  it('stops tracking a child once it has exited', async () => {
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', ''], cwd: process.cwd() })
    started.add(handle.pid)
    await handle.exited
    await vi.waitFor(() => expect(app.subprocess.live).toBe(0), { timeout: 10_000 })
  })

  it('spawning a missing executable resolves exited with an error and throws nothing', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const dir = await tempDir()
      let handle: ChildHandle | undefined
      expect(() => {
        handle = app.subprocess.spawn({ argv: [join(dir, 'no-such-program')], cwd: dir, stdin: 'pipe' })
      }).not.toThrow()
      const exit = await handle!.exited
      expect(exit.code).toBeNull()
      expect(exit.signal).toBeNull()
      expect(exit.error).toBeInstanceOf(Error)
      expect((exit.error as SubprocessError).code).toBe('SUBPROCESS_SPAWN_FAILED')
      expect(((exit.error as SubprocessError).cause as NodeJS.ErrnoException).code).toBe('ENOENT')
      expect(handle!.running).toBe(false)
      await handle!.terminate()
      // Give a stray rejection a chance to surface.
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})

describe('Host.stop()', () => {
  let host: Host | undefined
  const spawner = fileURLToPath(new URL('./fixtures/spawner.ts', import.meta.url))

  afterEach(async () => {
    await host?.stop()
    host = undefined
  })

  it('leaves no child behind for a booted preset whose children ignore SIGTERM', async () => {
    const dir = await tempDir()
    const preset = join(dir, 'preset.yml')
    await writeFile(
      preset,
      [
        '- id: tools',
        '  name: dsh-core/tools',
        '- id: subprocess',
        '  name: dsh-core/subprocess',
        '  config:',
        '    graceMs: 300',
        '- id: sessions',
        '  name: dsh-core/sessions',
        '- id: spawner',
        `  name: ${JSON.stringify(spawner)}`,
        '',
      ].join('\n'),
    )
    host = await bootPreset({ preset })
    const session = host.app.sessions.create({ cwd: dir })
    const pids: number[] = []
    for (let i = 0; i < 2; i++) {
      const result = await host.app.tools.execute({ name: 'spawn_tree', arguments: {}, session })
      if (result.isError) throw new Error(result.error.message)
      const { leader, grandchild } = result.value as unknown as TreePids
      pids.push(leader, grandchild)
    }
    for (const pid of pids) started.add(pid)
    for (const pid of pids) expect(pidDead(pid)).toBe(false)
    const stopping = host
    host = undefined
    await stopping.stop()
    await expectAllGone(pids)
  })

  it('lets a row finish its own asynchronous teardown before the subprocess row goes', async () => {
    const dir = await tempDir()
    const preset = join(dir, 'preset.yml')
    const report = join(dir, 'report.json')
    const graceful = fileURLToPath(new URL('./fixtures/graceful.ts', import.meta.url))
    await writeFile(
      preset,
      ['- name: dsh-core/subprocess', '- id: graceful', `  name: ${JSON.stringify(graceful)}`, '  config:', `    report: ${JSON.stringify(report)}`, ''].join('\n'),
    )
    host = await bootPreset({ preset })
    const { pid } = JSON.parse(await readFile(report, 'utf8')) as { pid: number }
    started.add(pid)
    expect(pidDead(pid)).toBe(false)
    const stopping = host
    host = undefined
    await stopping.stop()
    expect(JSON.parse(await readFile(report, 'utf8'))).toEqual({ pid, code: 0, signal: null })
    await expectAllGone([pid])
  })
})

// SpawnSpec.signal: cancelling a spawn ends its whole process group; a spawn already cancelled starts nothing.
describe('SpawnSpec.signal', () => {
  it('aborting terminates the whole group, also members that ignore SIGTERM', async () => {
    const controller = new AbortController()
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', TREE_SCRIPT], cwd: process.cwd(), stdout: 'pipe', signal: controller.signal })
    started.add(handle.pid)
    const pids = JSON.parse(await firstLine(handle.stdout!)) as TreePids
    started.add(pids.grandchild)
    controller.abort(new Error('no longer needed'))
    expect(await handle.exited).toEqual({ code: null, signal: 'SIGKILL' })
    await handle.terminate()
    await expectAllGone([pids.leader, pids.grandchild])
  })

  it('an already aborted signal starts nothing and reports SUBPROCESS_ABORTED through exited', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled early'))
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd: process.cwd(), signal: controller.signal })
    expect(handle.pid).toBe(-1)
    expect(handle.running).toBe(false)
    expect(handle.stdin).toBeNull()
    const exit = await handle.exited
    expect(exit.error).toBeInstanceOf(SubprocessError)
    expect((exit.error as SubprocessError).code).toBe('SUBPROCESS_ABORTED')
    expect((exit.error as SubprocessError).cause).toBe(controller.signal.reason)
    expect(app.subprocess.live).toBe(0)
    await handle.terminate()
  })

  it('an abort after the child exited changes nothing', async () => {
    const controller = new AbortController()
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', 'process.exit(3)'], cwd: process.cwd(), signal: controller.signal })
    started.add(handle.pid)
    expect(await handle.exited).toEqual({ code: 3, signal: null })
    controller.abort()
    expect(await handle.exited).toEqual({ code: 3, signal: null })
  })
})

// A child with an IPC channel (`ipc: true`): what tool-web's page converters are. It goes through
// ctx.subprocess like every other child, and no package starts a process any other way.
// Echoes each message back with the bytes it carried counted; 'exit' ends it.
const ECHO = `process.on('message', (m) => m === 'exit' ? process.exit(0) : process.send({ echo: m, bytes: m.data?.length ?? 0 })); process.send('ready')`

describe('ctx.subprocess with an IPC channel', () => {
  it('sends and hears structured messages (bytes as they are), and a send after the child ended rejects SUBPROCESS_IPC_CLOSED', async () => {
    const child = app.subprocess.spawn({ argv: [process.execPath, '-e', ECHO], cwd: process.cwd(), stdout: 'ignore', ipc: true })
    started.add(child.pid)
    const heard: unknown[] = []
    let wake = () => {}
    child.ipc!.onMessage((message) => {
      heard.push(message)
      wake()
    })
    const nextMessage = () => new Promise<void>((resolve) => (wake = resolve))
    await (heard.length ? Promise.resolve() : nextMessage())
    expect(heard).toEqual(['ready'])
    const answered = nextMessage()
    await child.ipc!.send({ name: 'page', data: new Uint8Array([1, 2, 3]) })
    await answered
    expect(heard[1]).toEqual({ echo: { name: 'page', data: new Uint8Array([1, 2, 3]) }, bytes: 3 })
    // The child's environment is scrubbed as every child's is, and it leads its own group.
    expect(app.subprocess.live).toBe(1)
    await child.ipc!.send('exit')
    expect((await child.exited).code).toBe(0)
    await expect(child.ipc!.send('late')).rejects.toMatchObject({ code: 'SUBPROCESS_IPC_CLOSED' })
  })

  it('a child spawned without ipc has no channel', async () => {
    const child = app.subprocess.spawn({ argv: [process.execPath, '-e', '0'], cwd: process.cwd(), stdout: 'ignore' })
    started.add(child.pid)
    expect(child.ipc).toBeNull()
    await child.exited
  })
})

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const SUBPROCESS_HOME = 'packages/core/core/src/subprocess/'

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'tests' ? [] : sources(path)
    return /\.(?:ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

describe('DESIGN: ctx.subprocess is the only way a package starts a process', () => {
  it('no package source outside dsh-core/subprocess reaches node:child_process', () => {
    const reaching = sources(join(REPO, 'packages'))
      .filter((path) => path.includes('/src/'))
      .map((path) => relative(REPO, path))
      .filter((path) => !path.startsWith(SUBPROCESS_HOME))
      .filter((path) => /['"](?:node:)?child_process['"]/.test(readFileSync(join(REPO, path), 'utf8')))
    expect(reaching).toEqual([])
  })
})
