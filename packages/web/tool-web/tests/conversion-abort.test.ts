import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'

// Issue 27 (product risk): a conversion that runs out of its memory limit must end that conversion
// only, never the host. A worker thread's `resourceLimits` does not guarantee it: some allocation
// shapes abort the whole process (nodejs/node#47224, nodejs/node PR #65019). The pool runs in a
// child `node` process here (fixtures/conversion/pool-host.ts), so the test runner survives the fault;
// the converter is a FAKE (fixtures/conversion/heap-abort-converter.ts) that allocates in the aborting
// shape, because the real converter cannot be made to on cue.

const RUN_TS = fileURLToPath(new URL('../../../cli/cli/bin/run-ts.mjs', import.meta.url))
const HOST = fileURLToPath(new URL('./fixtures/conversion/pool-host.ts', import.meta.url))
const HOSTILE = fileURLToPath(new URL('./fixtures/conversion/heap-abort-converter.ts', import.meta.url))
// A FAKE converter that loops forever once given a page: the real one cannot be made to on cue.
const STUCK = fileURLToPath(new URL('./fixtures/conversion/stuck-converter.ts', import.meta.url))
// 64 MB: the smallest limit at which a Node 20 worker thread aborts the process on this shape (at 32
// and 48 MB it ends only the worker), so the fault shows on the worker-thread pool before the fix.
const MEMORY_MB = 64

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

function runHost(): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [RUN_TS, HOST, 'hostile', HOSTILE, String(MEMORY_MB)], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: unknown; signal?: NodeJS.Signals | null }) | null
      resolve({ code: typeof failed?.code === 'number' ? failed.code : failed ? null : 0, signal: failed?.signal ?? null, stdout, stderr })
    })
  })
}

describe('a conversion that exhausts its memory in a shape V8 aborts the process on', () => {
  it('fails that call with WEB_CONVERSION_FAILED; the host survives and the pool converts the next page', async () => {
    const run = await runHost()
    // The host ended by itself after printing: not "FATAL ERROR: Reached heap limit", exit 134.
    const fatal = /^FATAL ERROR.*$/m.exec(run.stderr)?.[0]
    expect({ code: run.code, signal: run.signal, fatal }).toEqual({ code: 0, signal: null, fatal: undefined })
    const report = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { hostile: { code?: string; message?: string }; next: { output?: string }; aliveAfterClose: number }
    expect(report.hostile.code).toBe('WEB_CONVERSION_FAILED')
    expect(report.hostile.message).toContain(`more than the converter's ${MEMORY_MB} MB`)
    // A fresh converter took the next page.
    expect(report.next.output).toBe('<P>NEXT</P>')
    expect(report.aliveAfterClose).toBe(0)
  })

  it('a host killed while its converter works leaves no converter behind: its IPC channel closes and it ends after the page in hand', async () => {
    const host = spawn(process.execPath, [RUN_TS, HOST, 'orphan'], { stdio: ['ignore', 'pipe', 'inherit'] })
    const lines = createInterface({ input: host.stdout })
    const [line] = (await once(lines, 'line')) as [string]
    const { converter } = JSON.parse(line) as { converter: number }
    expect(alive(converter)).toBe(true)
    host.kill('SIGKILL')
    await once(host, 'exit')
    // Waits for the converter to go (no timing asserted: the test's own timeout is the bound).
    while (alive(converter)) await sleep(100)
  })

  it('a host killed while its converter is stuck in a page (a loop that never looks up) leaves no converter behind: its watchdog thread ends it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-stuck-converter-'))
    const marker = join(dir, 'looping')
    const host = spawn(process.execPath, [RUN_TS, HOST, 'stuck', STUCK, marker], { stdio: ['ignore', 'pipe', 'inherit'] })
    let converter = 0
    // Also when the test times out (the watchdog missing): a failing run leaves no spinning process behind.
    onTestFinished(() => {
      host.kill('SIGKILL')
      if (converter && alive(converter)) process.kill(converter, 'SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    })
    const [line] = (await once(createInterface({ input: host.stdout }), 'line')) as [string]
    converter = (JSON.parse(line) as { converter: number }).converter
    // The fake writes the file, then loops: from here on its main thread never returns to its event loop.
    while (!existsSync(marker)) await sleep(50)
    expect(alive(converter)).toBe(true)
    host.kill('SIGKILL')
    await once(host, 'exit')
    // The IPC channel's close cannot reach a busy main thread: only the watchdog can end it. No
    // timing asserted: the test's own timeout is the bound.
    while (alive(converter)) await sleep(100)
  })
})

/** Whether the process runs: an exited one that nobody has reaped yet (a zombie) does not. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
  } catch {
    // No /proc (not Linux), or the process is gone.
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ESRCH') return false
    throw error
  }
}
