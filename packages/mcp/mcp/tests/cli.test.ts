// The "Must show" through the `dsh` command and the shipped files: presets/overlays/everything.yml
// and examples/mcp-crash (a server whose tool exits the process). A real `dsh` process where its exit
// and its children are the subject; the CLI's main in this worker where only the output is.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset } from 'dsh-core'
import { afterAll, describe, expect, it } from 'vitest'
import { eventually, FIXTURE_SERVER, isAlive } from './fixtures/rig.ts'
import { trustedHome } from '../../../../test-support/trust.ts'
import { COMPILED_ECHO_PRESET as ECHO_PRESET } from '../../../../test-support/echo-example.ts'
import { dshInProcess } from '../../../../test-support/dsh-in-process.ts'

const ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))
const DSH = join(ROOT, 'packages/cli/cli/bin/dsh.mjs')
const EVERYTHING = join(ROOT, 'presets/overlays/everything.yml')
const CRASH_DIR = join(ROOT, 'examples/mcp-crash')
const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-cli-'))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function dsh(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  delete env.INIT_CWD
  const child = spawn(process.execPath, [DSH, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
  return new Promise((done) => child.on('close', (code) => done({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() })))
}

/** The same command through the CLI's main in this worker (test-support/dsh-in-process.ts). */
function dshIn(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return dshInProcess(args, { cwd: options.cwd ?? ROOT, ...(options.env ? { env: options.env } : {}) })
}

function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').trim().split('\n').map(Number)
}

describe('dsh with presets/overlays/everything.yml', () => {
  it('tools --json lists the mcp__everything__ tools', async () => {
    const run = await dshIn(['tools', '--json', '--preset', 'base', '--config', EVERYTHING])
    expect(run.code).toBe(0)
    const names = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum']))
  })

  // Its output is the subject: through the CLI's main here; a real `dsh` below, where the process is.
  it('call mcp__everything__echo returns the echo', async () => {
    const run = await dshIn(['call', 'mcp__everything__echo', '{"message":"hi"}', '--json', '--preset', 'base', '--config', EVERYTHING])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ isError: false, value: { content: [{ type: 'text', text: 'Echo: hi' }] }, content: [{ type: 'text', text: 'Echo: hi' }] })
  })
})

describe('examples/mcp-crash: a stdio server whose tool exits the process', () => {
  it('dsh call of that tool is a coded error (exit 1), the reconnect is logged, and no server process outlives dsh', async () => {
    const pidFile = join(scratch, 'call-pids')
    const run = await dsh(['call', 'mcp__x__exit', '--json', '--preset', 'base', '--config', 'overlay.yml'], { cwd: CRASH_DIR, env: { CRASH_DEMO_PID_FILE: pidFile } })
    expect(run.code).toBe(1)
    const result = JSON.parse(run.stdout) as { error: { code: string; message: string } }
    expect(result.error.code).toBe('MCP_CONNECTION_LOST')
    expect(result.error.message).toBe('exit: the connection to MCP server x was lost during the call: the server exited with code 1')
    expect(run.stderr).toContain('mcp(x): connection lost; reconnecting')
    for (const pid of pidsIn(pidFile)) expect(isAlive(pid), `server ${pid} outlived dsh`).toBe(false)
  })

  it('dsh status shows the server ready with its tools', async () => {
    const run = await dshIn(['status', '--json', '--preset', 'base', '--config', 'overlay.yml'], { cwd: CRASH_DIR })
    expect(run.code).toBe(0)
    const rows = (JSON.parse(run.stdout) as { capabilities: { surface: string; id: string; state: string; tools: string[]; detail: string }[] }).capabilities
    // The base preset's other surfaces (web, skill) have rows of their own.
    expect(rows.filter((row) => row.surface === 'mcp')).toEqual([{ surface: 'mcp', id: 'x', configured: true, state: 'ready', tools: ['mcp__x__echo', 'mcp__x__exit'], detail: expect.stringMatching(/^ready: 2 tools; crash-demo 1\.0\.0, protocol 2025-11-25, pid \d+$/) }])
  })

  it('in one host: the crash, the reconnect, the next call working, the status row saying so, and nothing left after stop', async () => {
    const pidFile = join(scratch, 'host-pids')
    process.env.CRASH_DEMO_PID_FILE = pidFile
    const host = await bootPreset({ preset: join(ROOT, 'presets/base.yml'), overlays: [join(CRASH_DIR, 'overlay.yml')] })
    try {
      const crash = await host.app.tools.execute({ name: 'mcp__x__exit', arguments: {} })
      expect(crash.isError && crash.error.code).toBe('MCP_CONNECTION_LOST')
      const next = await eventually(async () => {
        const result = await host.app.tools.execute({ name: 'mcp__x__echo', arguments: { message: 'again' } })
        expect(result.isError).toBe(false)
        return result
      })
      expect(next.content[0]!.text).toMatch(/^echo from pid \d+: again$/)
      const [row] = await host.app.readiness.report()
      expect(row?.detail).toMatch(/^ready: 2 tools; crash-demo 1\.0\.0, protocol 2025-11-25, pid \d+; reconnected 1 time; last error \d+ s ago: the server exited with code 1; stderr: crash-demo \d+: exiting on request/)
    } finally {
      await host.stop()
      delete process.env.CRASH_DEMO_PID_FILE
    }
    const pids = pidsIn(pidFile)
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(isAlive(pid)).toBe(false)
  })
})

describe('where a stdio server runs (issue 17 item 8)', () => {
  const fixtureOverlay = (extra = '') => {
    const file = join(scratch, `where-${Math.random().toString(36).slice(2)}.yml`)
    writeFileSync(file, `- name: dsh-mcp\n  config: { serverName: fixture, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE_SERVER)}]${extra} }\n`)
    return file
  }

  it('in the workspace (--cwd) by default, not where dsh was started', async () => {
    const workspace = mkdtempSync(join(scratch, 'workspace-'))
    // In a trusted workspace: an untrusted one keeps a server without `cwd` out of it (untrusted-cwd.test.ts).
    const home = await trustedHome(workspace)
    const run = await dshIn(['call', 'mcp__fixture__cwd', '--preset', 'base', '--config', fixtureOverlay(), '--cwd', workspace], { env: { DSH_HOME: home } })
    rmSync(home, { recursive: true, force: true })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe(`${realpathSync(workspace)}\n`)
  })

  it('a relative cwd resolves against the overlay that sets it: examples/mcp-crash works from the repository root', async () => {
    const run = await dshIn(['call', 'mcp__x__echo', '{"message":"from the root"}', '--preset', 'base', '--config', 'examples/mcp-crash/overlay.yml'], { cwd: ROOT })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^echo from pid \d+: from the root\n$/)
  })
})

describe('records logged during the boot (issue 17 item 6)', () => {
  it('dsh status shows the bridge\'s boot warnings on stderr after the boot', async () => {
    const overlay = join(scratch, 'unmatched.yml')
    writeFileSync(overlay, `- name: dsh-mcp\n  config: { serverName: fixture, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE_SERVER)}], enabledTools: [add, no-such-tool] }\n`)
    const run = await dshIn(['status', '--preset', 'base', '--config', overlay])
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('mcp(fixture): enabledTools/disabledTools name tools the server does not list: no-such-tool')
    const verbose = await dshIn(['status', '--verbose', '--preset', 'base', '--config', overlay])
    expect(verbose.stderr).toContain('mcp(fixture): enabledTools/disabledTools name tools the server does not list: no-such-tool')
    expect(verbose.stderr).toMatch(/mcp\(fixture\): synced \d+ listed tools in \d+ ms \(changed\)/)
  })
})

describe('examples/mcp-crash (issue 17 item 18)', () => {
  it('has a README that README.md links to', () => {
    expect(readFileSync(join(CRASH_DIR, 'README.md'), 'utf8')).toMatch(/^# mcp-crash/)
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(examples/mcp-crash/README.md)')
  })
})

describe('approval through dsh call (fixture server, defaultApproval: prompt, echo overridden to auto)', () => {
  const overlay = join(scratch, 'approval.yml')
  writeFileSync(
    overlay,
    `- name: dsh-mcp\n  config: { serverName: fixture, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE_SERVER)}], defaultApproval: prompt, toolApproval: { echo: auto } }\n`,
  )
  const args = ['--preset', ECHO_PRESET, '--config', overlay]

  it('without --yes a prompt tool is exit 1 with TOOL_APPROVAL_REQUIRED; the auto override runs', async () => {
    const gated = await dshIn(['call', 'mcp__fixture__greet', '{"name":"you"}', '--json', ...args])
    expect(gated.code, gated.stderr).toBe(1)
    expect((JSON.parse(gated.stdout) as { error: { code: string } }).error.code).toBe('TOOL_APPROVAL_REQUIRED')
    const open = await dshIn(['call', 'mcp__fixture__echo', '{"message":"hi"}', ...args])
    expect(open.code, open.stderr).toBe(0)
    expect(open.stdout).toBe('Echo: hi\n')
  })

  it('--yes approves it', async () => {
    const run = await dshIn(['call', 'mcp__fixture__greet', '{"name":"you"}', '--yes', ...args])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe('Hello, you!\n')
  })

  it('dsh tools shows which server tools need approval', async () => {
    const run = await dshIn(['tools', ...args])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('mcp__fixture__greet\n  Greets someone.\n  approval: prompt\n')
    expect(run.stdout).toContain('mcp__fixture__echo\n  Echoes the message.\n  parameters:')
  })
})
