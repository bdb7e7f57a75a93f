import { dirname, isAbsolute } from 'node:path'
import { configParser } from '../config-parser.ts'
import { fileURLToPath } from 'node:url'
import { Context, Service } from 'cordis'
import { z } from 'zod'
import { MAX_TIMER_DELAY_MS } from '../abort.ts'
import { scrubbedEnv } from './env.ts'
import { SubprocessError } from './errors.ts'
import { killOnProcessExit } from './exit-hook.ts'
import { ChildHandle, DEFAULT_KILL_WAIT_MS, type SpawnSpec } from './handle.ts'
import { binDirsAbove, resolveCommand } from './resolve.ts'

declare module 'cordis' {
  interface Context {
    subprocess: SubprocessService
  }
}

export const SubprocessConfig = z.strictObject({
  /** Default SIGTERM → SIGKILL grace for a child's process group. */
  graceMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(2000),
  /** Default bytes of stderr kept per child. */
  stderrTailBytes: z.number().int().nonnegative().default(1_000_000),
  /** Also search the `node_modules/.bin` directories above this installation (where bundled servers live). */
  installationBins: z.boolean().default(true),
  /**
   * After SIGKILL, how long to wait for a process group to vanish before giving up on it (a process in
   * uninterruptible sleep cannot be killed); `shutdown()` then reports its pid instead of hanging.
   */
  killWaitMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(DEFAULT_KILL_WAIT_MS),
  /**
   * Variables passed to children although the scrub would withhold them (for example
   * `SSH_AUTH_SOCK` for a server that pushes over ssh). A spawn's explicit `env` always wins.
   */
  passEnv: z.array(z.string().min(1)).default([]),
})
export type SubprocessConfig = z.infer<typeof SubprocessConfig>

const INSTALLATION_BINS = binDirsAbove(dirname(fileURLToPath(import.meta.url)))

/**
 * `ctx.subprocess`: the only way a package starts a process. Children get a scrubbed environment
 * and their own process group, and `shutdown()` awaits the end of every group it started.
 */
export class SubprocessService extends Service {
  static Config = configParser(SubprocessConfig)

  private readonly children = new Set<ChildHandle>()
  private closing = false
  private readonly settings: SubprocessConfig
  /** Drops this service from the process exit hook (exit-hook.ts). */
  private readonly releaseExitHook: () => void

  constructor(ctx: Context, config: SubprocessConfig) {
    super(ctx, 'subprocess', true)
    this.settings = config
    // cordis does not await disposers; if the host exits without shutdown(), no group outlives it.
    this.releaseExitHook = killOnProcessExit(() => {
      for (const child of this.children) child.killNow()
    })
  }

  /**
   * The absolute path of `command`: absolute paths are verified; bare names are searched in this
   * installation's `node_modules/.bin` chain, then the absolute entries of PATH (scrubbed, with `env`
   * applied). The inspected workspace is never searched: a workspace's own binary runs only when
   * the config names it by absolute path.
   */
  resolveExecutable(command: string, options: { env?: Readonly<Record<string, string | undefined>>; signal?: AbortSignal } = {}): Promise<string> {
    return resolveCommand(command, {
      installation: this.settings.installationBins ? INSTALLATION_BINS : [],
      path: this.environment(options.env).PATH,
      signal: options.signal,
    })
  }

  /** The environment a child started with `env` gets: the scrubbed parent environment, `env` on top. */
  environment(env: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
    return scrubbedEnv(env, process.env, this.settings.passEnv)
  }

  /** Starts `argv` in its own process group; `argv[0]` must be absolute (resolve it with `resolveExecutable`). */
  spawn(spec: SpawnSpec): ChildHandle {
    if (this.closing) throw new SubprocessError('the subprocess service is shutting down', 'SUBPROCESS_SHUT_DOWN')
    if (!isAbsolute(spec.argv[0])) {
      throw new SubprocessError(`"${spec.argv[0]}" is not an absolute path; resolve it with resolveExecutable first`, 'SUBPROCESS_COMMAND_INVALID')
    }
    const child = new ChildHandle({ stderrTailBytes: this.settings.stderrTailBytes, graceMs: this.settings.graceMs, killWaitMs: this.settings.killWaitMs, ...spec, environment: this.environment(spec.env) })
    if (child.pid > 0 && !spec.handOff) {
      this.children.add(child)
      void child.exited.then(() => {
        // The leader is gone, but its group may not be: keep tracking until terminate() proves it.
        void child.terminate().then(() => this.children.delete(child))
      })
    }
    return child
  }

  /** Children whose process group may still be alive. */
  get live(): number {
    return this.children.size
  }

  /**
   * Terminates every child still running and resolves when all their process groups are gone, or
   * were given up on after `killWaitMs` past SIGKILL: those pids are logged and returned.
   */
  async shutdown(): Promise<number[]> {
    this.closing = true
    const children = [...this.children]
    await Promise.all(children.map((child) => child.terminate()))
    this.children.clear()
    this.releaseExitHook()
    const abandoned = children.filter((child) => child.abandoned).map((child) => child.pid)
    for (const pid of abandoned) {
      this.ctx.logger('subprocess').warn(`process group ${pid} was still there ${this.settings.killWaitMs} ms after SIGKILL (uninterruptible sleep?); no longer waiting for it`)
    }
    return abandoned
  }

  protected override stop(): void {
    void this.shutdown()
  }
}
