import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SubprocessError, SubprocessService } from '../src/index.ts'
import { firstLine, TREE_SCRIPT, type TreePids } from './fixtures/tree.ts'
import { expectAllGone, killLeftovers } from './helpers.ts'

// SpawnSpec.signal: cancelling a spawn ends its whole process group; a spawn already cancelled starts nothing.

let app: Context
const started = new Set<number>()

beforeEach(async () => {
  app = new Context()
  app.plugin(SubprocessService, { graceMs: 300, installationBins: false })
  await app.start()
})

afterEach(async () => {
  await app.subprocess?.shutdown()
  await app.stop()
  killLeftovers(started)
  started.clear()
})

describe('SpawnSpec.signal', () => {
  it('aborting terminates the whole group, also members that ignore SIGTERM', async () => {
    const controller = new AbortController()
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', TREE_SCRIPT], cwd: process.cwd(), stdout: 'pipe', signal: controller.signal })
    started.add(handle.pid)
    const pids = JSON.parse(await firstLine(handle.stdout!)) as TreePids
    started.add(pids.grandchild)
    controller.abort(new Error('no longer needed'))
    expect(await handle.exited).toEqual({ code: null, signal: 'SIGKILL' })
    await handle.terminate()
    await expectAllGone([pids.leader, pids.grandchild])
  })

  it('an already aborted signal starts nothing and reports SUBPROCESS_ABORTED through exited', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled early'))
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd: process.cwd(), signal: controller.signal })
    expect(handle.pid).toBe(-1)
    expect(handle.running).toBe(false)
    expect(handle.stdin).toBeNull()
    const exit = await handle.exited
    expect(exit.error).toBeInstanceOf(SubprocessError)
    expect((exit.error as SubprocessError).code).toBe('SUBPROCESS_ABORTED')
    expect((exit.error as SubprocessError).cause).toBe(controller.signal.reason)
    expect(app.subprocess.live).toBe(0)
    await handle.terminate()
  })

  it('an abort after the child exited changes nothing', async () => {
    const controller = new AbortController()
    const handle = app.subprocess.spawn({ argv: [process.execPath, '-e', 'process.exit(3)'], cwd: process.cwd(), signal: controller.signal })
    started.add(handle.pid)
    expect(await handle.exited).toEqual({ code: 3, signal: null })
    controller.abort()
    expect(await handle.exited).toEqual({ code: 3, signal: null })
  })
})
