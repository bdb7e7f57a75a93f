import { spawn } from 'node:child_process'
import { openSync, closeSync } from 'node:fs'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN, childEnv, CORE_ROWS, dsh, dshIn, ECHO_PRESET, json, killRunning, oneStderrLine, removeTempDirs, ROOT, tempDir, type Run } from './helpers.ts'

// The describes whose cases only start real `dsh` children run concurrently (each case has its own
// child and temp dirs, and most of a case is that child starting); the ones with in-process `dsh`
// (which swaps the worker's stdout, console and environment while it runs) stay sequential. So
// nothing is torn down per case: children and temp dirs go at the end.
afterAll(async () => {
  killRunning()
  await removeTempDirs()
})

const ECHO = ['--preset', ECHO_PRESET]
const BIG = JSON.stringify({ text: 'x'.repeat(1_000_000) })

/** A preset with the core rows and one plugin file of ours (plain ESM, so no package.json is needed). */
async function presetWith(plugin: (dir: string) => string): Promise<{ dir: string; file: string }> {
  const dir = await tempDir()
  await writeFile(join(dir, 'plugin.mjs'), plugin(dir))
  const file = join(dir, 'preset.yml')
  await writeFile(file, `${CORE_ROWS}- id: odd\n  name: ./plugin.mjs\n`)
  return { dir, file }
}

/** Runs dsh with its stdout going where `stdout` says; resolves with the exit and stderr. */
function runWith(args: readonly string[], stdout: 'pipe' | number, onStdout?: (child: ReturnType<typeof spawn>) => void, input = ''): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', stdout, 'pipe'] })
  const stderr: Buffer[] = []
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk))
  child.stdin!.on('error', () => {})
  child.stdin!.end(input)
  onStdout?.(child)
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr: Buffer.concat(stderr).toString('utf8') })))
}

async function waitForFile(path: string): Promise<void> {
  for (;;) {
    if (await stat(path).then(() => true, () => false)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.concurrent('output that cannot be written exits 74 with one line', () => {
  it('a reader that closes the pipe early (dsh … | head -c1)', async () => {
    const run = await runWith(['call', 'echo', '-', ...ECHO], 'pipe', (child) => child.stdout!.once('data', () => child.stdout!.destroy()), BIG)
    expect(run.code).toBe(74)
    expect(oneStderrLine(run)).toBe('dsh: the output could not be written: the reader closed the pipe (EPIPE) [OUTPUT_FAILED]')
  })

  it('a full disk (> /dev/full)', async () => {
    const full = openSync('/dev/full', 'w')
    try {
      const run = await runWith(['tools', ...ECHO], full)
      expect(run.code).toBe(74)
      expect(oneStderrLine(run)).toBe('dsh: the output could not be written: no space left on the device (ENOSPC) [OUTPUT_FAILED]')
    } finally {
      closeSync(full)
    }
  })
})

describe.concurrent('dsh trust and dsh mcp: output that cannot be written exits 74 with one line too', () => {
  // They answer without booting a composition, and each caught its write failure as a failure of
  // its own: exit 2 (trust) or 1 (mcp), `dsh: the reader closed the pipe (EPIPE)`.
  for (const args of [['trust', '--list'], ['trust', '--help'], ['mcp', '--help'], ['mcp', 'list', '--json']]) {
    it(`dsh ${args.join(' ')} > /dev/full`, async () => {
      const full = openSync('/dev/full', 'w')
      try {
        const run = await runWith(args, full)
        expect(run.code, run.stderr).toBe(74)
        expect(oneStderrLine(run)).toBe('dsh: the output could not be written: no space left on the device (ENOSPC) [OUTPUT_FAILED]')
      } finally {
        closeSync(full)
      }
    })
  }

  it('dsh trust --list | (a reader that closed the pipe)', async () => {
    const run = await runWith(['trust', '--list'], 'pipe', (child) => child.stdout!.destroy())
    expect(run.code, run.stderr).toBe(74)
    expect(oneStderrLine(run)).toBe('dsh: the output could not be written: the reader closed the pipe (EPIPE) [OUTPUT_FAILED]')
  })
})

// Sequential: the first case runs dsh in the worker with HOME and DSH_HOME emptied while it runs.
describe('no home directory', () => {
  it('an empty HOME: dsh says HOME_UNKNOWN instead of using ./.dsh, so a workspace cannot plant its own trusted.json', async () => {
    // join('', '.dsh') is `.dsh`: the trust file was read from (and written to) the directory dsh ran in.
    const work = await tempDir()
    await mkdir(join(work, '.dsh'))
    await writeFile(join(work, '.dsh', 'trusted.json'), JSON.stringify({ version: 1, directories: { [work]: { trusted: true, decidedAt: '2026-01-01T00:00:00.000Z' } } }))
    const env = { HOME: '', DSH_HOME: '' }
    // In the worker: the home is read from the environment by the same code; the next case is the real process's.
    for (const args of [['trust', '--list', '--json'], ['trust'], ['tools'], ['status']]) {
      const run = await dshIn(args, { cwd: work, env })
      expect(run.code, `dsh ${args.join(' ')}: ${run.stdout}`).toBe(2)
      expect(oneStderrLine(run)).toBe(`dsh: no home directory: HOME is "", not an absolute path; set HOME, or DSH_HOME for dsh's own files [HOME_UNKNOWN]`)
    }
  })

  it('HOME unset and a uid with no passwd entry (a container): one line with HOME_UNKNOWN, no stack trace', async ({ skip }) => {
    if (process.getuid?.() !== 0) return skip('needs root to run dsh as a uid with no passwd entry')
    if (!(await canRunDshAs(NO_PASSWD_UID))) return skip(`user ${NO_PASSWD_UID} cannot run ${process.execPath} on ${BIN} (a node or a checkout under a private home, such as CI's cached Node 22 in /root/.cache)`)
    const env = childEnv()
    delete env.HOME
    delete env.DSH_HOME
    for (const args of [['tools'], ['trust', ROOT]]) {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, uid: NO_PASSWD_UID, gid: NO_PASSWD_UID, stdio: ['ignore', 'ignore', 'pipe'] })
      const stderr: Buffer[] = []
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', reject)
        child.on('close', resolve)
      })
      const run = { code, signal: null, stdout: '', stderr: Buffer.concat(stderr).toString('utf8') }
      expect(run.code, run.stderr).toBe(2)
      expect(oneStderrLine(run)).toMatch(/^dsh: no home directory: HOME is unset and user 54321 has no passwd entry \(.*\); set HOME, or DSH_HOME for dsh's own files \[HOME_UNKNOWN\]$/)
    }
  })
})

describe('a home dsh can only partly use, or not at all', () => {
  it('HOME empty but DSH_HOME set: the host boots, skills under ~ are skipped and dsh status says why, $DSH_HOME/skills is read', async () => {
    // skill-fs failed the whole host with HOME_UNKNOWN though DSH_HOME gave dsh a home.
    const home = await tempDir()
    const work = await tempDir()
    await mkdir(join(home, 'skills', 'mine'), { recursive: true })
    await writeFile(join(home, 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: a skill of the dsh home\n---\nbody\n')
    const run = await dshIn(['status', '--json', '--preset', 'base', '--cwd', work], { cwd: work, env: { HOME: '', DSH_HOME: home } })
    expect(run.code, run.stderr).toBe(0)
    const rows = json<{ capabilities: { surface: string; id: string; state: string; detail: string }[] }>(run).capabilities
    const summary = rows.find((row) => row.surface === 'skill' && row.id === 'filesystem')!
    expect(summary.state).toBe('ready')
    // The three project roots and $DSH_HOME/skills; not ~/.agents/skills nor ~/.claude/skills.
    expect(summary.detail).toMatch(/^1 skill in 4 roots /)
    expect(summary.detail).toContain('no user skills from ~/.agents and ~/.claude: no home directory (HOME is "", not an absolute path)')
  })

  it('a relative DSH_HOME is DSH_HOME_INVALID for every command: a workspace cannot bring the trusted.json that trusts it', async () => {
    // Taken as given, DSH_HOME=.dsh meant <the directory dsh runs in>/.dsh: the workspace's own file decided its trust.
    const work = await tempDir()
    await mkdir(join(work, '.dsh'))
    await writeFile(join(work, '.dsh', 'trusted.json'), JSON.stringify({ version: 1, directories: { [work]: { trusted: true, decidedAt: '2026-01-01T00:00:00.000Z' } } }))
    for (const args of [['trust', '--list', '--json'], ['trust'], ['tools'], ['status'], ['mcp', 'list']]) {
      const run = await dshIn(args, { cwd: work, env: { DSH_HOME: '.dsh' } })
      expect(run.code, `dsh ${args.join(' ')}: ${run.stdout}`).toBe(2)
      expect(run.stdout).toBe('')
      expect(oneStderrLine(run)).toBe('dsh: DSH_HOME is ".dsh", not an absolute path: a relative one would mean another directory wherever dsh runs; set it to an absolute path [DSH_HOME_INVALID]')
    }
  })
})

describe('a path with control characters keeps one row per item', () => {
  it('dsh status and dsh trust --list show a line feed in a workspace path as ?, piped or not', async () => {
    // The status row's detail names the project: "a\nb" split the skill row in two.
    const home = await tempDir()
    const work = join(await tempDir(), 'a\nb')
    await mkdir(work)
    const status = await dshIn(['status', '--preset', 'base', '--cwd', work], { env: { DSH_HOME: home } })
    expect(status.code, status.stderr).toBe(0)
    const lines = status.stdout.trimEnd().split('\n')
    for (const line of lines) expect(line).toMatch(/^(surface|skill|web|lsp|mcp) /)
    expect(status.stdout).toContain(`(project ${work.replace('\n', '?')})`)
    const trusted = await dshIn(['trust', work], { env: { DSH_HOME: home } })
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(trusted.stdout.split('\n')).toHaveLength(2)
    const listed = await dshIn(['trust', '--list'], { env: { DSH_HOME: home } })
    expect(listed.stdout).toMatch(new RegExp(`^trusted  ${work.replace('\n', '\\?')}  \\S+\\n$`))
    const revoked = await dshIn(['trust', '--revoke', work], { env: { DSH_HOME: home } })
    // The suggestion to trust it again is one line that pastes as the same path.
    expect(revoked.stdout).toContain(`dsh trust $'${work.replace('\n', '\\u000a')}' trusts it again`)
    expect(revoked.stdout.split('\n')).toHaveLength(2)
  })
})

/** A uid with no passwd entry (nothing in /etc/passwd names it). */
const NO_PASSWD_UID = 54321

/**
 * Whether `uid` can start this node and read dsh's bin: not when either lies under a directory only
 * its owner may enter (root's home, where CI caches the Node 22 and 24 it tests on). The spawn then
 * fails with EACCES, or node cannot read the bin: the case has nothing to show there.
 */
function canRunDshAs(uid: number): Promise<boolean> {
  const child = spawn(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(BIN)}, require('node:fs').constants.R_OK)`], { cwd: '/', uid, gid: uid, stdio: 'ignore' })
  return new Promise((resolve) => {
    child.on('error', () => resolve(false))
    child.on('close', (code) => resolve(code === 0))
  })
}

/** Starts dsh and resolves once `marker` exists (the plugin wrote it), so a signal lands where the test wants it. */
async function startUntil(args: readonly string[], marker: string, input?: string) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  const stderr: Buffer[] = []
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  child.stdin.on('error', () => {})
  if (input !== undefined) child.stdin.write(input)
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
  await waitForFile(marker)
  return { child, closed, stderr: () => Buffer.concat(stderr).toString('utf8') }
}

describe.concurrent('signals are honoured at once', () => {
  // dsh mcp list boots the composition to read its rows: interrupted there it exited 2 (every
  // PRESET_* code was a boot error), where every other command exits 130 (the README's exit table).
  for (const command of [['tools'], ['mcp', 'list']]) {
    it(`while the composition boots (dsh ${command.join(' ')}): exit 130 with one line`, async () => {
      const { dir, file } = await presetWith(
        (dir) => `import { writeFileSync } from 'node:fs'
export const name = 'slow'
export async function apply() {
  writeFileSync(${JSON.stringify(join(dir, 'applying'))}, '')
  await new Promise((resolve) => setTimeout(resolve, 60_000))
}
`,
      )
      const run = await startUntil([...command, '--preset', file], join(dir, 'applying'))
      run.child.kill('SIGINT')
      expect(await run.closed).toBe(130)
      expect(run.stderr()).toBe('dsh: interrupted while starting [PRESET_BOOT_ABORTED]\n')
    })
  }

  it('while call - waits for its arguments on stdin: exit 130', async () => {
    const { dir, file } = await presetWith(
      (dir) => `import { writeFileSync } from 'node:fs'
export const name = 'ready-marker'
export function apply(ctx) {
  ctx.on('ready', () => writeFileSync(${JSON.stringify(join(dir, 'booted'))}, ''))
}
`,
    )
    // stdin stays open: the arguments never arrive.
    const run = await startUntil(['call', 'anything', '-', '--preset', file], join(dir, 'booted'), '{"partial":')
    run.child.kill('SIGTERM')
    expect(await run.closed).toBe(130)
  })
})

describe.concurrent('a plugin misbehaving outside a call ends dsh with one line and exit 70', () => {
  const tool = (body: string) => `export const name = 'odd'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({
    name: 'odd',
    description: 'misbehaves',
    parameters: { type: 'object' },
    async execute() {
      ${body}
    },
  })
}
`
  it.each([
    ['a timer that throws', tool(`setTimeout(() => { throw new Error('timer boom') }, 10)\n      await new Promise((resolve) => setTimeout(resolve, 5000))\n      return {}`), /^dsh: internal error \(uncaught exception in a plugin\): timer boom \[INTERNAL_ERROR\]$/],
    ['an unhandled rejection', tool(`void Promise.reject(new Error('rejected boom'))\n      await new Promise((resolve) => setTimeout(resolve, 5000))\n      return {}`), /^dsh: internal error \(unhandled rejection in a plugin\): rejected boom \[INTERNAL_ERROR\]$/],
    ['a body waiting on a promise nothing settles', tool('await new Promise(() => {})'), /^dsh: internal error: the command can never finish .* \[INTERNAL_ERROR\]$/],
  ])('%s', async (_label, plugin, line) => {
    const { file } = await presetWith(() => plugin)
    const run = await dsh(['call', 'odd', '{}', '--preset', file])
    expect(run.code).toBe(70)
    expect(run.stdout).toBe('')
    expect(oneStderrLine(run)).toMatch(line)
  })
})

describe.concurrent('plugin files', () => {
  it('a .ts plugin outside an ES module package fails with a line that says how to load it', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'echo.ts'), await readFile(join(ROOT, 'examples', 'echo', 'echo.ts')))
    await writeFile(join(dir, 'preset.yml'), `${CORE_ROWS}- id: echo\n  name: ./echo.ts\n`)
    const run = await dsh(['tools', '--preset', join(dir, 'preset.yml')])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain('add one beside it, or rename the file to .mts')
  })
})

describe('boot deadline', () => {
  it('an apply that never settles fails the boot naming the row (exit 2)', async () => {
    // In the worker (the bound is the boot's timer, not the process's); the next case is about the process.
    const { file } = await presetWith(() => `export const name = 'stuck'\nexport async function apply() { await new Promise(() => {}) }\n`)
    const run = await dshIn(['tools', '--preset', file], { env: { DSH_START_TIMEOUT_MS: '1500' } })
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: row "odd" \(\.\/plugin\.mjs\) in .*preset\.yml: plugin did not finish starting within 1500 ms \[PRESET_PLUGIN_TIMEOUT\]$/)
  })

  it('a module whose top-level await never settles fails the boot naming the row (exit 2, not Node\'s 13)', async () => {
    // Nothing else keeps the process alive while the import is pending: Node would end it with
    // "unsettled top-level await" (exit 13) before the import bound fires, unless the bound holds it.
    const { file } = await presetWith(() => `await new Promise(() => {})\nexport const name = 'stuck'\nexport function apply() {}\n`)
    const run = await dsh(['tools', '--preset', file], { env: { DSH_START_TIMEOUT_MS: '1500' } })
    expect(run.code, run.stderr).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: row "odd" \(\.\/plugin\.mjs\) in .*preset\.yml: plugin did not finish loading within 1500 ms \[PRESET_PLUGIN_TIMEOUT\]$/)
  })

  it('a bad DSH_START_TIMEOUT_MS is a usage error', async () => {
    const run = await dshIn(['tools', ...ECHO], { env: { DSH_START_TIMEOUT_MS: 'soon' } })
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain('DSH_START_TIMEOUT_MS')
  })
})

describe('bad arguments are the caller\'s fault', () => {
  it('deeply nested arguments are INVALID_ARGS, not a stack overflow', async () => {
    const deep = `{"text":${'['.repeat(50_000)}${']'.repeat(50_000)}}`
    const run = await dshIn(['call', 'echo', '-', '--json', ...ECHO], { input: deep })
    expect(run.code).toBe(1)
    expect(json(run).error.code).toBe('INVALID_ARGS')
  })

  it('arguments on stdin over 32 MiB (dsh serve\'s --max-message-bytes default) are refused (exit 2)', async () => {
    const over = JSON.stringify({ text: 'x'.repeat(32 * 1024 * 1024) })
    const run = await dshIn(['call', 'echo', '-', ...ECHO], { input: over })
    expect(run.code, run.stderr).toBe(2)
    expect(oneStderrLine(run)).toBe('dsh: the tool arguments on stdin are over 33554432 bytes [CALL_ARGS_INVALID]')
  })

  it('stdin that never ends (< /dev/zero) is refused once past the bound, not read to the end (exit 2)', async () => {
    const zero = openSync('/dev/zero', 'r')
    try {
      const child = spawn(process.execPath, [BIN, 'call', 'echo', '-', ...ECHO], { cwd: ROOT, stdio: [zero, 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
      const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)))
      expect(code, stderr).toBe(2)
      expect(stderr).toContain('dsh: the tool arguments on stdin are over 33554432 bytes')
    } finally {
      closeSync(zero)
    }
  })

  it('arguments on stdin that are not UTF-8 are refused (exit 2)', async () => {
    const run = await dshIn(['call', 'echo', '-', ...ECHO], { input: Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) })
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toBe('dsh: the tool arguments on stdin are not valid UTF-8 [CALL_ARGS_INVALID]')
  })

  it.each([
    ['does not exist', '/no/such/dir/anywhere'],
    ['is not a directory', join(ROOT, 'README.md')],
  ])('a --cwd that %s is a usage error (exit 2)', async (what, cwd) => {
    const run = await dshIn(['call', 'echo', '{"text":"hi"}', '--cwd', cwd, ...ECHO])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toContain(what)
  })

  it('a workspace whose path is not UTF-8 is said to be so, not merely to be missing (exit 2)', async () => {
    // Node decodes argv and the process directory as UTF-8: a byte 0xFF arrives as U+FFFD, and the
    // path names nothing. Before, dsh said `--cwd … does not exist` even when no --cwd was given.
    const base = await tempDir()
    const latin = Buffer.concat([Buffer.from(join(base, 'lat')), Buffer.from([0xff])])
    const { mkdirSync } = await import('node:fs')
    mkdirSync(latin)
    const shown = latin.toString('utf8')
    for (const run of [await dshIn(['tools', '--cwd', shown]), await dshIn(['trust', shown])]) {
      expect(run.code).toBe(2)
      expect(oneStderrLine(run)).toContain(`the workspace ${shown} cannot be opened: its path has bytes that are not UTF-8 (shown as \uFFFD)`)
    }
  })

  it('an unknown option is named with balanced quotes', async () => {
    const run = await dshIn(['tools', '--frob', ...ECHO])
    expect(oneStderrLine(run)).toBe('dsh: unknown option "--frob" (dsh --help shows the usage) [USAGE_INVALID]')
  })
})
