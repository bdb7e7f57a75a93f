import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context, Service } from 'cordis'
import { z } from 'zod'
import { MAX_TIMER_DELAY_MS } from '../abort.ts'
import { scrubbedEnv } from './env.ts'
import { SubprocessError } from './errors.ts'
import { ChildHandle, type SpawnSpec } from './handle.ts'
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
})
export type SubprocessConfig = z.infer<typeof SubprocessConfig>

const INSTALLATION_BINS = binDirsAbove(dirname(fileURLToPath(import.meta.url)))

/**
 * `ctx.subprocess`: the only way a package starts a process. Children get a scrubbed environment
 * and their own process group, and `shutdown()` awaits the end of every group it started.
 */
export class SubprocessService extends Service {
  static Config = (config: unknown) => SubprocessConfig.parse(config ?? {})

  private readonly children = new Set<ChildHandle>()
  private closing = false
  private readonly settings: SubprocessConfig
  private readonly killOnExit = () => {
    for (const child of this.children) child.killNow()
  }

  constructor(ctx: Context, config: SubprocessConfig) {
    super(ctx, 'subprocess', true)
    this.settings = config
    // cordis does not await disposers; if the host exits without shutdown(), no group outlives it.
    process.on('exit', this.killOnExit)
  }

  /**
   * The absolute path of `command`: absolute paths are verified, bare names are searched in the
   * workspace's `node_modules/.bin` chain (from `cwd`), then PATH (scrubbed, with `env` applied), then this
   * installation's `node_modules/.bin` chain.
   */
  resolveExecutable(command: string, options: { env?: Readonly<Record<string, string | undefined>>; cwd?: string; signal?: AbortSignal } = {}): Promise<string> {
    return resolveCommand(command, {
      path: scrubbedEnv(options.env ?? {}).PATH,
      before: options.cwd ? binDirsAbove(options.cwd) : [],
      after: this.settings.installationBins ? INSTALLATION_BINS : [],
      signal: options.signal,
    })
  }

  spawn(spec: SpawnSpec): ChildHandle {
    if (this.closing) throw new SubprocessError('the subprocess service is shutting down', 'SUBPROCESS_SHUT_DOWN')
    const child = new ChildHandle({ stderrTailBytes: this.settings.stderrTailBytes, graceMs: this.settings.graceMs, ...spec })
    if (child.pid > 0) {
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

  /** Terminates every child still running and resolves when all their process groups are gone. */
  async shutdown(): Promise<void> {
    this.closing = true
    await Promise.all([...this.children].map((child) => child.terminate()))
    this.children.clear()
    process.off('exit', this.killOnExit)
  }

  protected override stop(): void {
    void this.shutdown()
  }
}
