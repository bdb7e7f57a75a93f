// Every SubprocessService kills its children if the process exits without shutdown(), through a
// process 'exit' listener. A test file (or a process) may hold many hosts at once: one listener per
// service made the eleventh a MaxListenersExceededWarning. They share one listener, added with the
// first service and removed with the last, and it still kills the children of every one of them.
//
// The hook is module state, and a test worker runs many files in one module registry (isolate:
// false): a host another file left running would already hold the listener. This file takes a
// fresh copy of the module, so its count starts from none.
import { Context } from 'cordis'
import { afterEach, expect, it, vi } from 'vitest'
import { killLeftovers, pidDead } from './helpers.ts'

vi.resetModules()
const { SubprocessService } = await import('../src/index.ts')

const HOSTS = 12
const apps: Context[] = []
const started = new Set<number>()

afterEach(async () => {
  for (const app of apps.splice(0)) {
    await app.subprocess?.shutdown()
    await app.stop()
  }
  killLeftovers(started)
  started.clear()
})

it(`${HOSTS} hosts with a subprocess service each: one process exit listener, no MaxListeners warning; it kills every host's children; gone with the last`, async () => {
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)
  process.on('warning', onWarning)
  const before = process.listeners('exit')
  try {
    for (let i = 0; i < HOSTS; i++) {
      const app = new Context()
      app.plugin(SubprocessService, { graceMs: 300, installationBins: false })
      await app.start()
      apps.push(app)
    }
    // Node emits process warnings on a later tick.
    await new Promise((settle) => setImmediate(settle))
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([])
    const added = process.listeners('exit').filter((listener) => !before.includes(listener))
    expect(added).toHaveLength(1)

    // What the process's exit runs (called here, not by exiting): every host's child is killed.
    const children = apps.map((app) => app.subprocess.spawn({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd: process.cwd() }))
    for (const child of children) started.add(child.pid)
    ;(added[0] as () => void)()
    await Promise.all(children.map((child) => child.exited))
    for (const child of children) expect(pidDead(child.pid)).toBe(true)

    // Removed only when the last service shuts down.
    for (const app of apps.slice(0, -1)) await app.subprocess.shutdown()
    expect(process.listeners('exit')).toContain(added[0])
    await apps.at(-1)!.subprocess.shutdown()
    expect(process.listeners('exit')).toEqual(before)
  } finally {
    process.off('warning', onWarning)
  }
})
