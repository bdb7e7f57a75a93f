/**
 * Process checks shared by the test suites that prove no child outlives its owner. They look only at
 * pids a test started (never at process names: other suites run the same servers at the same time).
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs'

/** True while the pid names a live process; a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return true
  }
}

/** Every descendant of `pid` (children first), read from /proc. */
export function descendants(pid: number): number[] {
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
  return children.flatMap((child) => [child, ...descendants(child)])
}

/** Live (non-zombie) processes whose working directory is `dir`. */
export function processesIn(dir: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (realpathSync(`/proc/${entry}/cwd`) === dir && isAlive(Number(entry))) pids.push(Number(entry))
    } catch {
      // gone while we looked, or not ours to inspect
    }
  }
  return pids
}

/**
 * The processes still in `dir` once those already sent SIGKILL have had up to `boundMs` to die: a
 * killed group's members leave on the scheduler's time, not at the instant kill() returns, and on a
 * loaded machine that gap is visible. A process that stays past the bound is a real leak.
 */
export async function processesLeftIn(dir: string, boundMs = 15_000): Promise<number[]> {
  const until = Date.now() + boundMs
  let left = processesIn(dir)
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    left = processesIn(dir)
  }
  return left
}
