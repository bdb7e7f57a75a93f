/**
 * `Generation.close` is bounded by the row's `closeTimeoutMs` even when the transport's own close
 * never settles, and a stdio server is still killed. The server is the real fixture over a real
 * StdioTransport; only its `close()` is made to hang (a fake: no real transport hangs on cue, ours
 * bound their own closing: stdio by the grace and ctx.subprocess's kill wait, HTTP by the DELETE wait).
 * Over Streamable HTTP, the fixture server on loopback never answers the DELETE that ends the
 * session: the row's `endSessionWaitMs` bounds that wait, and `closeTimeoutMs` bounds the whole close
 * when it is the shorter; either way every connection is dropped.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Generation, type GenerationHooks } from '../src/generation.ts'
import { openHttpConnections } from '../src/http-connections.ts'
import { HttpTransport } from '../src/http-transport.ts'
import { StdioTransport } from '../src/stdio-transport.ts'
import { eventually, FIXTURE_SERVER, isAlive, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'
import { startHttpFixture, type HttpFixture } from './fixtures/server.mjs'

const servers: HttpFixture[] = []

afterEach(async () => {
  await stopRigs()
  await Promise.all(servers.splice(0).map((server) => server.stop()))
})

/** The fixture server on loopback, holding every DELETE unanswered. */
async function holdsDeletes(): Promise<HttpFixture> {
  const server = await startHttpFixture({ holdDeletes: true })
  servers.push(server)
  return server
}

/** Far longer than any test may run: a wait that is not cut short by its bound fails the test by its timeout. */
const NEVER_MS = 600_000

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

describe('Streamable HTTP: a server that never answers the DELETE ending the session', () => {
  it('unloading the row waits endSessionWaitMs, not closeTimeoutMs: it returns, no close-timeout error, every connection dropped', async () => {
    const server = await holdsDeletes()
    const rig = await startRig()
    const fork = await rig.add({ transport: 'streamable-http', serverName: 'web', url: server.url, startupTimeoutMs: 10_000, endSessionWaitMs: 200, closeTimeoutMs: NEVER_MS } as RowInput)
    expect(await rig.text('mcp__web__add', { a: 1, b: 2 })).toBe('3')
    const session = server.requests.find((request) => typeof request.headers['mcp-session-id'] === 'string')!.headers['mcp-session-id']
    expect(server.connections()).toBeGreaterThan(0)
    // The old bound on this wait was closeTimeoutMs (here past the test's own timeout).
    await rig.remove(fork)
    // The server was asked to end the session (it never answered), and no connection is left open.
    expect(server.requests.filter((request) => request.method === 'DELETE').map((request) => request.headers['mcp-session-id'])).toEqual([session])
    await eventually(() => expect(server.connections()).toBe(0))
    expect(rig.logged('closeTimeoutMs')).toBe(false)
  })

  it('closeTimeoutMs shorter than the wait: close gives up at it, reports abandoned, the transport reports closed and drops every connection', async () => {
    const server = await holdsDeletes()
    const transport = new HttpTransport({ url: new URL(server.url), headers: {}, maxMessageBytes: 1 << 20, connections: await openHttpConnections(60_000), onSuspect: () => {} }, NEVER_MS)
    const generation = new Generation(1, transport, hooks, '2025-11-25')
    await generation.connect(30_000, new AbortController().signal)
    expect(transport.sessionId).toBeDefined()
    expect(server.connections()).toBeGreaterThan(0)
    // The row's config refuses closeTimeoutMs ≤ endSessionWaitMs; Generation.close takes the bound as given.
    expect(await generation.close(200)).toBe(false)
    expect(generation.closed).toBe(true)
    await eventually(() => expect(server.connections()).toBe(0))
    expect(server.requests.filter((request) => request.method === 'DELETE').length).toBeLessThanOrEqual(1)
  })
})
