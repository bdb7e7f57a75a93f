/**
 * `Generation.close` is bounded by the row's `closeTimeoutMs` even when the transport's own close
 * never settles, and a stdio server is still killed. The server is the real fixture over a real
 * StdioTransport; only its `close()` is made to hang (a fake: no real transport hangs on cue, ours
 * bound their own closing: stdio by the grace and ctx.subprocess's kill wait, HTTP by the DELETE wait).
 */
import { afterEach, expect, it } from 'vitest'
import { Generation, type GenerationHooks } from '../src/generation.ts'
import { StdioTransport } from '../src/stdio-transport.ts'
import { eventually, FIXTURE_SERVER, isAlive, startRig, stopRigs } from './fixtures/rig.ts'

afterEach(stopRigs)

/** A real stdio transport whose close never settles (a transport stuck in its own shutdown). */
class HangingCloseTransport extends StdioTransport {
  asked = 0
  override close(): Promise<void> {
    this.asked++
    return new Promise(() => {})
  }
}

const hooks: GenerationHooks = {
  onListChanged: () => {},
  onClosed: () => {},
  onTransportError: () => {},
  roots: undefined,
  elicit: undefined,
}

/** A generation over `transport` (made with the rig's ctx.subprocess), connected to the fixture server; the pid is checked after the rig stops. */
async function connected<T extends StdioTransport>(make: (options: ConstructorParameters<typeof StdioTransport>[0]) => T): Promise<{ transport: T; generation: Generation; pid: number }> {
  const rig = await startRig()
  const transport = make({
    subprocess: rig.app.subprocess,
    spawn: { argv: [process.execPath, FIXTURE_SERVER], cwd: process.cwd() },
    shutdownGraceMs: 500,
    maxMessageBytes: 1 << 20,
  })
  const generation = new Generation(1, transport, hooks, '2025-11-25')
  await generation.connect(30_000, new AbortController().signal)
  const pid = transport.pid!
  rig.pids.add(pid)
  expect(isAlive(pid)).toBe(true)
  return { transport, generation, pid }
}

it('a transport whose close hangs: close gives up after the bound, and the server is killed', async () => {
  const { transport, generation, pid } = await connected((options) => new HangingCloseTransport(options))
  // The bound is short only to keep the test quick; the old code never returned at all.
  expect(await generation.close(200)).toBe(false)
  expect(transport.asked).toBe(1)
  // Abandoned: the process group was SIGKILLed, and the transport still reports closed once it is gone.
  await eventually(() => expect(isAlive(pid)).toBe(false))
  await eventually(() => expect(generation.closed).toBe(true))
  expect(generation.ending().summary).toBe('the server was stopped by dsh')
})

it('a transport that closes: close reports true and abandons nothing', async () => {
  const { generation, pid } = await connected((options) => new StdioTransport(options))
  expect(await generation.close(30_000)).toBe(true)
  expect(isAlive(pid)).toBe(false)
  expect(generation.ending().summary).toBe('the server was stopped by dsh')
})
