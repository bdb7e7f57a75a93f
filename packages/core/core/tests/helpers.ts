import { readFileSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, vi } from 'vitest'
import { HarnessError, SessionService, ToolRuntime } from '../src/index.ts'

/** Temp directories made by a test file; `removeTempDirs()` in afterEach/afterAll deletes them. */
const made: string[] = []

/** A fresh, canonical (symlinks resolved) temp directory. */
export async function tempDir(prefix = 'dsh-core-test-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  made.push(dir)
  return dir
}

export async function removeTempDirs(): Promise<void> {
  const dirs = made.splice(0)
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
}

/** True when no process (not even a zombie) has this pid: `process.kill(pid, 0)` throws ESRCH. */
export function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** State and parent of a pid from /proc (Linux), or undefined when it cannot be read. */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // pid (comm) state ppid …; comm may hold spaces and parentheses, so split after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: state ?? '', ppid: Number(ppid) }
  } catch {
    return undefined
  }
}

/** True when the pid runs no code any more: gone, or a zombie waiting for its parent or init to reap it. */
export function pidDead(pid: number): boolean {
  if (pidGone(pid)) return true
  const stat = procStat(pid)
  return stat ? stat.state === 'Z' || stat.state === 'X' : pidGone(pid)
}

/**
 * Asserts every pid is dead right now (gone, or an unreaped zombie), then waits until none is left
 * for this process to reap: each is gone (`process.kill(pid, 0)` throws ESRCH) or a zombie whose
 * parent is not this process. An orphaned grandchild is init's to reap, which here takes 1–2 s
 * (measured: the suite section of bench/RESULTS.md, thirteenth round) and in some containers never
 * happens; waiting for that proved nothing about the code under test and cost seconds per case.
 * A zombie of this process's own still fails after the wait (its exit was never collected).
 */
export async function expectAllGone(pids: Iterable<number>): Promise<void> {
  const list = [...pids]
  for (const pid of list) expect(pidDead(pid), `pid ${pid} is still running`).toBe(true)
  const settled = (pid: number): boolean => {
    if (pidGone(pid)) return true
    const stat = procStat(pid)
    return stat !== undefined && /^[ZX]$/.test(stat.state) && stat.ppid !== process.pid
  }
  try {
    await vi.waitFor(
      () => {
        for (const pid of list) if (!settled(pid)) throw new Error(`pid ${pid} is still ours to reap`)
      },
      { timeout: 15_000, interval: 50 },
    )
  } catch {
    for (const pid of list) {
      if (pidGone(pid)) continue
      const stat = procStat(pid)
      expect(stat?.state, `pid ${pid} is alive again?`).toMatch(/^[ZX]$/)
      expect(stat?.ppid, `pid ${pid} is our own unreaped child`).not.toBe(process.pid)
    }
  }
}

/** Awaits a rejection and returns the HarnessError it carried (fails the test for anything else). */
export async function harnessRejection(promise: Promise<unknown>): Promise<HarnessError> {
  let outcome: unknown
  try {
    await promise
  } catch (error) {
    outcome = error
  }
  if (!(outcome instanceof HarnessError)) {
    throw new Error(`expected a HarnessError rejection, got ${outcome === undefined ? 'a fulfilment' : String(outcome)}`)
  }
  return outcome
}

/** Runs `fn` and returns the HarnessError it threw (fails the test for anything else). */
export function harnessThrow(fn: () => unknown): HarnessError {
  let outcome: unknown
  try {
    fn()
  } catch (error) {
    outcome = error
  }
  if (!(outcome instanceof HarnessError)) {
    throw new Error(`expected a HarnessError to be thrown, got ${outcome === undefined ? 'nothing' : String(outcome)}`)
  }
  return outcome
}

/** A promise with its resolver outside, to let a test step in while a body is running. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * Kills the given pids with SIGKILL if they are still there. Only for cleanup after a failed
 * assertion: each pid was started by the test itself.
 */
export function killLeftovers(pids: Iterable<number>): void {
  for (const pid of pids) {
    if (pid > 0 && !pidGone(pid)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
}

export { capturedLogs } from '../../../../test-support/captured-logs.ts'

/**
 * A fresh started app with the tools runtime and sessions for every test of the calling file, stopped
 * after it. The abandon window is short, so a body that ignores its signal is given up on quickly.
 */
export function useToolsApp(receive: (app: Context) => void): void {
  let app: Context
  beforeEach(async () => {
    app = new Context()
    app.plugin(ToolRuntime, { abandonAfterMs: 100 })
    app.plugin(SessionService)
    await app.start()
    receive(app)
  })
  afterEach(async () => {
    await app.stop()
  })
}
