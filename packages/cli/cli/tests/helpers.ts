import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, vi } from 'vitest'
import { isAlive } from '../../../../test-support/processes.ts'
import { dshInProcess } from '../../../../test-support/dsh-in-process.ts'
import { serveInProcess, type ServedInProcess } from '../../../../test-support/serve-in-process.ts'

export { descendants, isAlive as alive } from '../../../../test-support/processes.ts'
export { PATIENT_LSP_OVERLAY } from '../../../../test-support/patient-lsp.ts'

/** The repository root, found from this file (never hard-coded). */
export const ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))
export const BIN = join(ROOT, 'packages', 'cli', 'cli', 'bin', 'dsh.mjs')
/** examples/echo compiled to JavaScript (test-support/echo-example.ts): no tsx hooks in the child. */
export { COMPILED_ECHO_PRESET as ECHO_PRESET, COMPILED_ECHO_PLUGIN as ECHO_PLUGIN } from '../../../../test-support/echo-example.ts'
/** A plugin whose `grow` tool registers one more tool per call (tests/fixtures/grow.mjs). */
export const GROW_PLUGIN = join(ROOT, 'packages', 'cli', 'cli', 'tests', 'fixtures', 'grow.mjs')

export interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const running = new Set<ChildProcess>()

/**
 * The environment of a `dsh` child: this process's, without pnpm's script variables (so relative
 * paths mean the child's cwd, exactly like a user's shell), `extra` on top. It carries NODE_OPTIONS,
 * so the child runs the bundles (test-support/built-children.ts). Give it to the MCP SDK's stdio
 * transport too: without an `env` that passes only a handful of variables (PATH, HOME…), and the
 * `dsh serve` it starts compiles the sources through tsx.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = { ...process.env, ...extra } as Record<string, string>
  for (const name of ['INIT_CWD', 'npm_lifecycle_event', 'npm_package_name']) delete env[name]
  return env
}

/** Runs `dsh` as a real child process: `node bin/dsh.mjs ...args`, in `childEnv`. */
export function dsh(
  args: readonly string[],
  options: { cwd?: string; input?: string | Buffer; timeoutMs?: number; env?: Record<string, string>; /** Run as this user (the test process must be root). */ user?: { uid: number; gid: number } } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: childEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'], ...options.user })
  running.add(child)
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  child.stdin.on('error', () => {})
  child.stdin.end(options.input ?? '')
  // A failure guard only (the test's own timeout is longer): a hung dsh fails with its arguments named.
  const guardMs = options.timeoutMs ?? 240_000
  return new Promise<Run>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`dsh ${args.join(' ')} did not finish within ${guardMs} ms`))
    }, guardMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      running.delete(child)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      running.delete(child)
      resolvePromise({ code, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') })
    })
  })
}

/**
 * `dsh …` through the CLI's `main` inside this worker (test-support/dsh-in-process.ts), from the
 * repository root unless `cwd` says otherwise: for what does not depend on being a process. `dsh()`
 * starts the real command, for exit on signals, stdio pipes, orphans and the built bundle.
 */
export function dshIn(args: readonly string[], options: { cwd?: string; input?: string | Buffer; env?: Record<string, string | undefined> } = {}): Promise<Run> {
  return dshInProcess(args, { cwd: options.cwd ?? ROOT, ...(options.env ? { env: options.env } : {}), ...(options.input !== undefined ? { input: options.input } : {}) })
}

/**
 * `dsh serve …` through the CLI's `main` inside this worker (test-support/serve-in-process.ts), from
 * the repository root: for what the served composition does, not what the process does. Connect a
 * client to its `transport`; closing the client waits for the serve to return.
 */
export function serveIn(args: readonly string[], env?: Readonly<Record<string, string>>): ServedInProcess {
  return serveInProcess(args, { cwd: ROOT, ...(env ? { env } : {}) })
}

/** Kills any dsh child a failed test left running (only children this file started). */
export function killRunning(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  running.clear()
}

/** Parses stdout as one JSON document (fails with the whole run in the message otherwise). */
export function json<T = any>(run: Run): T {
  try {
    return JSON.parse(run.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`)
  }
}

/** Asserts stderr is exactly one line and returns it. */
export function oneStderrLine(run: Run): string {
  expect(run.stderr.endsWith('\n'), JSON.stringify(run.stderr)).toBe(true)
  const lines = run.stderr.slice(0, -1).split('\n')
  expect(lines, run.stderr).toHaveLength(1)
  return lines[0]!
}

const dirs: string[] = []

export async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-cli-test-')))
  dirs.push(dir)
  return dir
}

/**
 * A user's home whose mcp.yml reads the workspace's `.mcp.json` (the row a user adds to use a
 * repository's servers), and an empty workspace beside it, in a fresh temporary directory.
 */
export async function projectMcpJsonHome(): Promise<{ dir: string; home: string; project: string }> {
  const dir = await tempDir()
  const home = join(dir, 'home')
  const project = join(dir, 'project')
  await mkdir(home)
  await mkdir(project)
  await writeFile(join(home, 'mcp.yml'), '- id: project-mcp-json\n  name: dsh-mcp\n  config: { mcpConfig: .mcp.json, relativeTo: workspace }\n')
  return { dir, home, project }
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
}

/** Runs `body` and asserts the files are byte-for-byte unchanged afterwards. */
export async function unchanged<T>(paths: readonly string[], body: () => Promise<T>): Promise<T> {
  const before = await Promise.all(paths.map((path) => readFile(path)))
  const result = await body()
  const after = await Promise.all(paths.map((path) => readFile(path)))
  after.forEach((bytes, index) => expect(bytes.equals(before[index]!), `${paths[index]} changed`).toBe(true))
  return result
}

/** The core rows every test preset starts from. */
export const CORE_ROWS = `# test preset (comments must survive: dsh never writes here)
- id: tools
  name: dsh-core/tools
- id: fs
  name: dsh-core/fs
- id: subprocess
  name: dsh-core/subprocess
- id: sessions
  name: dsh-core/sessions
- id: credentials
  name: dsh-core/credentials
- id: readiness
  name: dsh-core/readiness
- id: trust
  name: dsh-core/trust
`



/**
 * Waits for `pid` to be gone and fails if it is not; the bound is a failure guard, far above any
 * healthy shutdown. `vi.waitFor`, not `expect.poll`, which only runs in a sequential case.
 */
export async function expectGone(pid: number, what = `pid ${pid}`): Promise<void> {
  await vi.waitFor(
    () => {
      if (isAlive(pid)) throw new Error(`${what} is still running`)
    },
    { timeout: 120_000, interval: 50 },
  )
}
