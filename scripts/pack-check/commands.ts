import { spawn } from 'node:child_process'

/** A failed step: its message says what failed and how; the check prints it and exits 1. */
export class CheckFailure extends Error {}

/**
 * Runs a command to completion and returns its output; a non-zero exit (unless allowed), or running
 * past the timeout, fails the check with the output. The environment is the caller's minus the
 * variables pnpm sets for scripts, as in a user's shell, plus `env`.
 */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number; quiet?: boolean; allowFailure?: boolean; env?: Readonly<Record<string, string>> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$)/.test(name))), ...options.env }
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  const timeoutMs = options.timeoutMs ?? 5 * 60_000
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
