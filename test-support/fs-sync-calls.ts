import { untracked } from 'dsh-core'

// Per-call cost tests count the system calls ctx.fs makes on the event loop (its `SyncCalls`, see
// dsh-core's fs/io.ts) by name, instead of timing them.

/** The names of ctx.fs's event-loop calls (`SyncCalls`). */
export type SyncCallName = 'realpath' | 'stat' | 'lstat' | 'open' | 'fstat' | 'read' | 'close' | 'openedPath' | 'namesOpenedFiles'

/** The event-loop calls ctx.fs (`fs`, the service or cordis's proxy of it) makes while `work` runs, by name. */
export async function fsSyncCallsBy(fs: object, work: () => unknown): Promise<Map<string, number>> {
  const calls = (untracked(fs) as unknown as { provenCalls: Record<SyncCallName, (...args: never[]) => unknown> }).provenCalls
  const saved = { ...calls }
  const counted = new Map<string, number>()
  for (const name of Object.keys(saved) as SyncCallName[]) {
    const call = saved[name] as (...args: unknown[]) => unknown
    Object.assign(calls, {
      [name]: (...args: unknown[]) => {
        counted.set(name, (counted.get(name) ?? 0) + 1)
        return call(...args)
      },
    })
  }
  try {
    await work()
  } finally {
    Object.assign(calls, saved)
  }
  return counted
}
