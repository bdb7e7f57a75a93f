import { spawn } from 'node:child_process'

/** A failed step: its message says what failed and how; the check prints it and exits 1. */
export class CheckFailure extends Error {}

/**
 * How long one step may run before the check calls it hung: a guard against a hang, not a speed
 * check, so it is far above any step's time on a loaded machine (a build took over five minutes at
 * load 30 with a CPU burner). PACK_CHECK_STEP_TIMEOUT_MS overrides it.
 */
function stepTimeoutMs(value = process.env.PACK_CHECK_STEP_TIMEOUT_MS): number {
  if (value === undefined || value === '') return 30 * 60_000
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed <= 0) throw new CheckFailure(`PACK_CHECK_STEP_TIMEOUT_MS must be a positive whole number of milliseconds, not ${JSON.stringify(value)}`)
  return parsed
}

/**
 * Runs a command to completion and returns its output; a non-zero exit (unless allowed), or running
 * past the step timeout, fails the check with the output. The environment is the caller's minus the
 * variables pnpm sets for scripts, as in a user's shell, plus `env`.
 */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; quiet?: boolean; allowFailure?: boolean; env?: Readonly<Record<string, string>> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$)/.test(name))), ...options.env }
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  const timeoutMs = stepTimeoutMs()
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]))
  }).finally(() => clearTimeout(timer))
  const output = { code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }
  if (code !== 0 && !(options.allowFailure && signal === null)) {
    const how = signal === 'SIGKILL' ? `did not finish within ${timeoutMs} ms` : `exited with ${code ?? signal}`
    throw new CheckFailure(`${command} ${args.join(' ')} (in ${options.cwd}) ${how}\n${output.stdout}${output.stderr}`)
  }
  if (output.stderr.trim() && !options.quiet) process.stderr.write(output.stderr)
  return output
}
