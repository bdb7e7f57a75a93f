/**
 * `dsh …` run inside the test worker: the CLI's own `main(argv, io, signal)` with captured stdio,
 * the child's working directory and environment. A `dsh` child costs about a second of CPU to start
 * (node, the bundles, the boot) and the suite started hundreds; in the worker the modules are
 * loaded once per run. Parsing, the boot, the command, its output and its exit code are the same
 * code; what only a process has (signals, exit on a stray failure, orphans, stdio pipes, the
 * bundled build) stays with the tests that start a real `dsh` (each package's `dsh()` helper).
 *
 * Calls run one at a time: the working directory, the environment and the process's own stdout and
 * stderr (where a library's `console.warn` goes) are the command's while one runs.
 */
import { PassThrough, Writable } from 'node:stream'
import { format } from 'node:util'
import { Lifetime } from 'dsh-core'
import { main } from '../packages/cli/cli/src/main.ts'
import { holdLogConfig } from './log-config.ts'

export interface InProcessRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface InProcessOptions {
  /** The working directory `dsh` starts in. */
  readonly cwd: string
  /** Set over the test process's environment for the call (`undefined` removes a variable). */
  readonly env?: Record<string, string | undefined>
  readonly input?: string | Buffer
  /** Called with stderr so far after every write (a test following a URL the command prints). */
  readonly onStderr?: (text: string) => void
}

/** Variables pnpm sets for its scripts: a user's shell has none of them (see args.ts invocationDir). */
const SCRIPT_VARIABLES = ['INIT_CWD', 'npm_lifecycle_event', 'npm_package_name']

let queue: Promise<unknown> = Promise.resolve()

export function dshInProcess(args: readonly string[], options: InProcessOptions): Promise<InProcessRun> {
  const run = queue.then(() => runOnce(args, options))
  queue = run.catch(() => {})
  return run
}

/** A stream that keeps what is written to it (`text()`), telling `onText` the whole so far after each write. */
export function collector(onText?: (text: string) => void): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = []
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
      onText?.(Buffer.concat(chunks).toString('utf8'))
      done()
    },
  })
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') }
}

async function runOnce(args: readonly string[], options: InProcessOptions): Promise<InProcessRun> {
  const savedEnv = { ...process.env }
  const savedCwd = process.cwd()
  const releaseLogConfig = holdLogConfig()
  const stdout = collector()
  const stderr = collector(options.onStderr)
  const stdin = new PassThrough()
  stdin.end(options.input ?? '')
  let restoreOutput: (() => void) | undefined
  try {
    for (const name of SCRIPT_VARIABLES) delete process.env[name]
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    process.chdir(options.cwd)
    restoreOutput = redirectProcessOutput(stdout.stream, stderr.stream)
    const code = await main(args, { stdout: stdout.stream, stderr: stderr.stream, stdin }, new Lifetime().signal)
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() }
  } finally {
    restoreOutput?.()
    process.chdir(savedCwd)
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name]
    Object.assign(process.env, savedEnv)
    releaseLogConfig()
  }
}

/** What the command's code writes to the process's stdout or stderr, or through `console`, goes to its own streams. */
function redirectProcessOutput(stdout: Writable, stderr: Writable): () => void {
  const saved = { out: process.stdout.write, err: process.stderr.write, console: { ...console } }
  const into = (stream: Writable) => ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const done = rest.find((value): value is () => void => typeof value === 'function')
    return stream.write(chunk, () => done?.())
  }) as typeof process.stdout.write
  process.stdout.write = into(stdout)
  process.stderr.write = into(stderr)
  const line = (stream: Writable) => (...args: unknown[]) => void stream.write(`${format(...args)}\n`)
  console.log = console.info = console.debug = line(stdout)
  console.warn = console.error = line(stderr)
  return () => {
    process.stdout.write = saved.out
    process.stderr.write = saved.err
    Object.assign(console, saved.console)
  }
}
