import type { ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { Lifetime } from '../lifetime/lifetime.ts'
import { scrubbedEnv } from './env.ts'
import { SubprocessError } from './errors.ts'
import { groupAlive } from './group.ts'
import { ByteTail } from './tail.ts'

export interface SpawnSpec {
  /** `argv[0]` is the executable (resolve it with `resolveExecutable`); never shell-interpreted. */
  readonly argv: readonly [string, ...string[]]
  readonly cwd: string
  /** Applied on top of the scrubbed parent environment; `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly stdin?: 'pipe' | 'ignore'
  readonly stdout?: 'pipe' | 'ignore'
  /** Bytes of stderr kept for diagnostics (default: the service's `stderrTailBytes`). */
  readonly stderrTailBytes?: number
  /** SIGTERM → SIGKILL grace for the whole process group (default: the service's `graceMs`). */
  readonly graceMs?: number
  /**
   * Cancels the spawn: aborting it terminates the process group (as `terminate()` does). Already
   * aborted, nothing is started and `exited` reports `SUBPROCESS_ABORTED`.
   */
  readonly signal?: AbortSignal
  /**
   * A launcher that hands its work to a program meant to outlive dsh (the platform's browser
   * opener): the child still gets the scrubbed environment and its own group, but its stdio is
   * ignored (no stderr tail), it does not keep the event loop alive, and its group is neither
   * terminated when the leader exits nor at `shutdown()` (the browser it started is the user's).
   */
  readonly handOff?: boolean
  /**
   * An IPC channel to a Node.js child (its `process.send` and `'message'`), as `handle.ipc`, with
   * 'advanced' serialization: structured clones, so bytes travel as they are. For a child that is
   * `node` running one of the package's own modules (a converter of untrusted input, say).
   */
  readonly ipc?: boolean
}

/** The IPC channel of a child spawned with `ipc: true`. */
export interface IpcChannel {
  /** Sends one message; rejects when the channel is closed (the child has gone or is going). */
  send(message: unknown): Promise<void>
  /** Hears every message the child sends; returns the disposer. */
  onMessage(listener: (message: unknown) => void): () => void
}

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** Set when the process could not be started at all. */
  readonly error?: Error
}

/**
 * Polling for a group to vanish starts fast (most groups end within milliseconds of a signal) and
 * backs off, because on Linux each poll that finds the group still there scans /proc.
 */
const FIRST_POLL_MS = 10
const MAX_POLL_MS = 250
/** After the leader exits, how long to wait for the rest of its stderr. */
const STDERR_DRAIN_MS = 200

/** A child in its own process group. `terminate()` ends the whole group, not just the leader. */
export class ChildHandle {
  readonly pid: number
  readonly stdin: Writable | null
  readonly stdout: Readable | null
  /** The channel to the child when spawned with `ipc: true`, else null. */
  readonly ipc: IpcChannel | null
  /** Resolves when the leader exits (or failed to start). Never rejects. */
  readonly exited: Promise<Exit>
  private readonly tail: ByteTail
  private readonly graceMs: number
  private readonly killWaitMs: number
  private exit: Exit | undefined
  private gaveUp = false
  private termination: Promise<void> | undefined
  private readonly child: ChildProcess | undefined

  /** `environment`, when given, is the child's whole environment, already scrubbed (the service passes its own). */
  constructor(spec: Required<Pick<SpawnSpec, 'stderrTailBytes' | 'graceMs'>> & SpawnSpec & { readonly environment?: Record<string, string>; readonly killWaitMs?: number }) {
    this.tail = new ByteTail(spec.stderrTailBytes)
    this.graceMs = spec.graceMs
    this.killWaitMs = spec.killWaitMs ?? DEFAULT_KILL_WAIT_MS
    const [file, ...args] = spec.argv
    if (spec.signal?.aborted) {
      this.pid = -1
      this.stdin = null
      this.stdout = null
      this.ipc = null
      this.exit = { code: null, signal: null, error: new SubprocessError(`${file} was not started: the spawn was cancelled`, 'SUBPROCESS_ABORTED', { cause: spec.signal.reason }) }
      this.exited = Promise.resolve(this.exit)
      return
    }
    let child: ChildProcess
    try {
      // Loaded with the first spawn: a process that starts no child (`dsh tools`) never needs it.
      child = process.getBuiltinModule('node:child_process').spawn(file, args, {
        cwd: spec.cwd,
        env: spec.environment ?? scrubbedEnv(spec.env ?? {}),
        stdio: spec.handOff ? 'ignore' : [spec.stdin ?? 'ignore', spec.stdout ?? 'pipe', 'pipe', ...(spec.ipc ? (['ipc'] as const) : [])],
        ...(spec.ipc ? { serialization: 'advanced' as const } : {}),
        detached: process.platform !== 'win32',
        windowsHide: true,
      })
    } catch (error) {
      this.pid = -1
      this.stdin = null
      this.stdout = null
      this.ipc = null
      this.exit = { code: null, signal: null, error: spawnFailed(file, error) }
      this.exited = Promise.resolve(this.exit)
      return
    }
    this.child = child
    this.pid = child.pid ?? -1
    this.ipc = spec.ipc && !spec.handOff ? channelOf(child) : null
    if (spec.handOff) child.unref()
    this.stdin = child.stdin
    this.stdout = child.stdout
    // A broken pipe must never become an uncaught exception in the host; consumers add their own listeners.
    child.stdin?.on('error', () => {})
    child.stdout?.on('error', () => {})
    child.stderr?.on('error', () => {})
    child.stderr?.on('data', (chunk: Buffer) => this.tail.push(chunk))
    this.exited = new Promise<Exit>((resolve) => {
      child.once('error', (error) => {
        if (child.pid === undefined) resolve((this.exit = { code: null, signal: null, error: spawnFailed(file, error) }))
      })
      child.once('exit', (code, signal) => {
        // stderr may still hold the last words of the process: give the pipe a moment to drain.
        const drained = new Promise<void>((done) => {
          if (!child.stderr || child.stderr.readableEnded || child.stderr.destroyed) return done()
          child.stderr.once('close', done)
          setTimeout(done, STDERR_DRAIN_MS).unref()
        })
        void drained.then(() => resolve((this.exit = { code, signal })))
      })
    })
    const { signal } = spec
    if (signal && this.pid > 0) {
      const spawned = Lifetime.following(signal)
      spawned.onAbort(() => void this.terminate())
      void this.exited.then(() => spawned.dispose())
    }
  }

  get running(): boolean {
    return this.pid > 0 && this.exit === undefined
  }

  /**
   * Whether the child keeps the host's event loop alive (it does from its spawn): a pool's idle
   * child should not keep a finished host running, a busy one should, as the call it serves does.
   */
  keepsHostAlive(held: boolean): void {
    const child = this.child
    if (!child) return
    const stderr = child.stderr as (Readable & { ref?(): void; unref?(): void }) | null
    if (held) {
      child.ref()
      child.channel?.ref()
      stderr?.ref?.()
    } else {
      child.unref()
      child.channel?.unref()
      stderr?.unref?.()
    }
  }

  stderrTail(): string {
    return this.tail.text()
  }

  /**
   * True when the group outlived SIGKILL by `killWaitMs` (a process in uninterruptible sleep, on a
   * hung NFS mount for example): `terminate()` resolved without it, and nothing more can be done.
   */
  get abandoned(): boolean {
    return this.gaveUp
  }

  /**
   * SIGTERM to the group, SIGKILL after the grace; resolves once no process of the group is left,
   * or `killWaitMs` after SIGKILL at the latest (then `abandoned` is true). Idempotent.
   */
  terminate(): Promise<void> {
    this.termination ??= this.runTermination()
    return this.termination
  }

  /** Last resort from a synchronous exit hook: SIGKILL the group without waiting. */
  killNow(): void {
    this.signalGroup('SIGKILL')
  }

  private async runTermination(): Promise<void> {
    if (this.pid <= 0) return
    this.signalGroup('SIGTERM')
    if (!(await this.groupGoneWithin(this.graceMs))) {
      this.signalGroup('SIGKILL')
      if (!(await this.groupGoneWithin(this.killWaitMs))) {
        this.gaveUp = true
        return
      }
    }
    // The group is gone, so the leader's exit is only the event loop away; the bound covers a leader
    // that left the group before it ended.
    if (!(await new Lifetime().within(this.exited, this.killWaitMs))) this.gaveUp = true
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid <= 0) return
    try {
      process.kill(process.platform === 'win32' ? this.pid : -this.pid, signal)
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private async groupGoneWithin(ms: number): Promise<boolean> {
    const until = Date.now() + ms
    for (let poll = FIRST_POLL_MS; groupAlive(this.pid); poll = Math.min(poll * 2, MAX_POLL_MS)) {
      const left = until - Date.now()
      if (left <= 0) return false
      await new Promise((resolve) => setTimeout(resolve, Math.min(poll, left)))
    }
    return true
  }
}

function channelOf(child: ChildProcess): IpcChannel {
  return {
    send: (message) =>
      new Promise<void>((resolve, reject) => {
        if (!child.connected) return reject(new SubprocessError('the child\'s IPC channel is closed', 'SUBPROCESS_IPC_CLOSED'))
        child.send(message as Parameters<ChildProcess['send']>[0], (error) => (error ? reject(new SubprocessError(`the child's IPC channel failed: ${error.message}`, 'SUBPROCESS_IPC_CLOSED', { cause: error })) : resolve()))
      }),
    onMessage: (listener) => {
      child.on('message', listener)
      return () => void child.off('message', listener)
    },
  }
}

/** After SIGKILL a group normally vanishes at once; this bounds a pathological wait. */
export const DEFAULT_KILL_WAIT_MS = 5000

function spawnFailed(file: string, error: unknown): SubprocessError {
  return new SubprocessError(`${file} could not be started: ${(error as Error)?.message ?? String(error)}`, 'SUBPROCESS_SPAWN_FAILED', { cause: error })
}
