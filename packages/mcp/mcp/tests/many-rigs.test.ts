// A test file may hold a dozen hosts at once (rigs, each a full dsh-core app): no process-wide
// listener is added per host (dsh-core's subprocess exit hook is one for all), so no
// MaxListenersExceededWarning, whatever the count. The hosts start no server: the listener was
// per host, not per server, and twelve servers cost seconds of CPU on a loaded machine.
import { afterEach, expect, it } from 'vitest'
import { startRig, stopRigs } from './fixtures/rig.ts'

afterEach(stopRigs)

it('12 rigs at once: no MaxListenersExceededWarning', async () => {
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)
  process.on('warning', onWarning)
  try {
    const rigs = await Promise.all(Array.from({ length: 12 }, () => startRig()))
    for (const rig of rigs) expect(rig.app.subprocess.live).toBe(0)
    // Node emits process warnings on a later tick.
    await new Promise((settle) => setImmediate(settle))
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([])
  } finally {
    process.off('warning', onWarning)
  }
})
