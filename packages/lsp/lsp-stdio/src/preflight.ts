import { envFromConfig, Lifetime, type SubprocessService } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import { queryAborted } from './aborted.ts'
import type { ServerConfig } from './config.ts'

export interface PreflightOptions {
  readonly serverId: string
  readonly config: ServerConfig & { readonly preflight: NonNullable<ServerConfig['preflight']> }
  readonly subprocess: SubprocessService
  /** Ends a check still running when the provider goes. */
  readonly lifetime: AbortSignal
}

/**
 * A row's `preflight` command. An executable can be present and still unable to serve: a rustup
 * shim whose component is not installed exits at once with an error, so every start would crash.
 * The command runs once per executable and directory (rustup chooses the toolchain by directory),
 * shared by every query waiting for it; its outcome is kept for the provider's lifetime, like the
 * executable lookup at load.
 */
export class Preflight {
  /** Why each check failed (undefined when it passed), by executable and directory. */
  private readonly checks = new Map<string, Promise<string | undefined>>()
  /** Tracks the checks still running, which disposal waits for. */
  private readonly running = new Lifetime()
  private lastFailure: string | undefined

  constructor(private readonly options: PreflightOptions) {}

  /** The most recent failure, with the install hint: what an otherwise idle row should say. */
  get failure(): string | undefined {
    return this.lastFailure
  }

  /** Resolves once the check for `executable` in `cwd` passed; LSP_UNAVAILABLE when it failed. */
  async assert(executable: string, cwd: string, signal: AbortSignal): Promise<void> {
    const key = `${executable}\0${cwd}`
    let check = this.checks.get(key)
    if (!check) {
      check = this.run(executable, cwd)
      this.checks.set(key, check)
      this.running.track(check)
    }
    const failure = await Lifetime.run({ signal }, () => check, queryAborted)
    if (failure) throw new LspError(`${this.options.serverId}: the language server is unavailable: ${failure}`, 'LSP_UNAVAILABLE')
  }

  /** Resolves once no check is running. */
  settled(): Promise<void> {
    return this.running.settled()
  }

  private async run(executable: string, cwd: string): Promise<string | undefined> {
    const { config, subprocess, lifetime } = this.options
    const { args, timeoutMs } = config.preflight
    const command = `\`${[executable, ...args].join(' ')}\``
    const child = subprocess.spawn({
      argv: [executable, ...args],
      cwd,
      env: envFromConfig(config.env),
      stdin: 'ignore',
      stdout: 'ignore',
      stderrTailBytes: config.maxStderrBytes,
      graceMs: config.killGraceMs,
      signal: lifetime,
    })
    let failure: string | undefined
    if (!(await new Lifetime().within(child.exited, timeoutMs))) {
      await child.terminate()
      failure = `${command} did not finish within ${timeoutMs} ms (preflight.timeoutMs)`
    } else {
      const exit = await child.exited
      if (exit.error) failure = `${command} could not run: ${exit.error.message}`
      else if (exit.code !== 0) failure = `${command} ${exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`}${firstLine(child.stderrTail())}`
    }
    if (!failure) return undefined
    this.lastFailure = config.install ? `${failure}; install: ${config.install}` : failure
    return this.lastFailure
  }
}

/** `: <the first non-blank line>` of a command's stderr, or nothing. */
function firstLine(stderr: string): string {
  const line = stderr.split('\n').find((candidate) => candidate.trim())
  return line ? `: ${line.trim()}` : ''
}
