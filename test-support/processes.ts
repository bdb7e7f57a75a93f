/**
 * Process checks shared by the test suites that prove no child outlives its owner. They look only at
 * pids a test started (never at process names: other suites run the same servers at the same time).
 */
import { readFileSync } from 'node:fs'

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
