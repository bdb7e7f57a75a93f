/**
 * Vitest setup file, on when DSH_TEST_CPU_LOG names a file: appends one JSON line per test file with
 * the CPU the worker spent on it and the CPU of the children it reaped meanwhile (from /proc/self/stat:
 * utime, stime, cutime, cstime), its wall time, when it started and ended (epoch ms: which files ran
 * beside which, and what ran last) and the processes it started, by executable. A measuring aid for
 * the suite's time (issue 27 item 7); off by default.
 */
import { appendFileSync, readFileSync } from 'node:fs'
import { ChildProcess } from 'node:child_process'
import { basename } from 'node:path'
import { subscribe } from 'node:diagnostics_channel'
import { afterAll } from 'vitest'

const LOG = process.env.DSH_TEST_CPU_LOG
const TICK_MS = 10

function cpuTicks(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
  const n = (field: number) => Number(fields[field - 3])
  return { self: n(14) + n(15), children: n(16) + n(17) }
}

interface Counting { starts: Record<string, number> }
const counting = globalThis as { __dshCpuCounting?: Counting }
if (LOG && !counting.__dshCpuCounting) {
  const state: Counting = { starts: {} }
  counting.__dshCpuCounting = state
  // Every child_process API goes through ChildProcess#spawn (undeclared in @types/node).
  const prototype = ChildProcess.prototype as unknown as { spawn: (this: ChildProcess, options: { file?: string; args?: string[] }) => unknown }
  const spawn = prototype.spawn
  prototype.spawn = function (this: ChildProcess, options: { file?: string; args?: string[] }) {
    const file = basename(options.file ?? '?')
    const script = file === 'node' || file.endsWith('/node') ? (options.args ?? []).slice(1).find((arg) => !arg.startsWith('-')) : undefined
    const key = script ? `node ${basename(script)}` : file
    state.starts[key] = (state.starts[key] ?? 0) + 1
    return spawn.call(this, options)
  }
  // tool-web's conversion workers (threads: their CPU is the worker's own).
  subscribe('dsh-tool-web:conversion', (message) => {
    if ((message as { event?: string }).event === 'spawn') state.starts['conversion worker'] = (state.starts['conversion worker'] ?? 0) + 1
  })
}

if (LOG) {
  // From here, before the test file is imported: its imports are part of its cost.
  counting.__dshCpuCounting!.starts = {}
  const start = { ...cpuTicks(), wall: performance.now(), at: Date.now() }
  afterAll(({}, suite) => {
    const end = cpuTicks()
    const file = (suite as { filepath?: string }).filepath
    appendFileSync(LOG, `${JSON.stringify({
      file: file?.replace(`${process.cwd()}/`, ''),
      pid: process.pid,
      selfMs: (end.self - start.self) * TICK_MS,
      childrenMs: (end.children - start.children) * TICK_MS,
      wallMs: Math.round(performance.now() - start.wall),
      startedAt: start.at,
      endedAt: Date.now(),
      starts: counting.__dshCpuCounting!.starts,
    })}\n`)
  })
}
