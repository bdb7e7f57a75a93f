// Faults of Streamable HTTP servers (issue 17 items 1-4, 12): a server that forgets the session
// (HTTP 400 like server-everything, or 404) while our connection stays up, error answers and HTTP
// 500, answers that are not objects, messages over maxMessageBytes. The fixture server on loopback,
// and the real server-everything restarted behind a proxy that keeps our streams open.
import { afterEach, describe, expect, it } from 'vitest'
import { freePort, startEverythingHttp, startKeepOpenProxy, type Everything, type KeepOpenProxy } from './fixtures/everything-http.ts'
import { eventually, FAST_RECONNECT, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'
import { startHttpFixture, type HttpFixture } from './fixtures/server.mjs'

const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  await stopRigs()
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup().catch(() => {})))
})

async function fixture(options: { unknownSession?: 400 | 404; jsonResponse?: boolean; keepAliveTimeoutMs?: number } = {}): Promise<HttpFixture> {
  const started = await startHttpFixture(options)
  cleanups.push(() => started.stop())
  return started
}

function httpRow(url: string, overrides: Record<string, unknown> = {}): RowInput {
  // A slow retry: a test that passes must not be waiting for one.
  return { transport: 'streamable-http', serverName: 'web', url, startupTimeoutMs: 10_000, reconnect: { ...FAST_RECONNECT, initialDelayMs: 60_000, maxDelayMs: 60_000 }, ...overrides } as RowInput
}

describe('a server that forgets our session while the connection stays up', () => {
  it.each([400, 404] as const)('HTTP %i: the call opens a fresh session (initialize, re-list) and is sent once more', async (status) => {
    const server = await fixture({ unknownSession: status })
    const rig = await startRig()
    await rig.add(httpRow(server.url))
    expect(await rig.text('mcp__web__add', { a: 1, b: 1 })).toBe('2')
    server.forgetSessions()
    expect(await rig.text('mcp__web__add', { a: 2, b: 3 })).toBe('5')
    const row = await rig.status('web')
    expect(row.state).toBe('ready')
    expect(row.detail).toContain('reconnected 1 time')
    expect(row.detail).toContain(`the server no longer knows the session (HTTP ${status})`)
    // Without a session id, on each session: the server/discover probe (refused) and initialize.
    expect(server.requests.filter((request) => request.method === 'POST' && request.headers['mcp-session-id'] === undefined)).toHaveLength(4)
  })

  it('real server-everything restarted behind a proxy that keeps our event stream open: the next call recovers', async () => {
    let everything: Everything = await startEverythingHttp(await freePort())
    cleanups.push(() => everything.stop())
    const proxy: KeepOpenProxy = await startKeepOpenProxy(everything.port)
    cleanups.push(() => proxy.stop())
    const rig = await startRig()
    await rig.add(httpRow(proxy.url, { serverName: 'everything' }))
    expect(await rig.text('mcp__everything__echo', { message: 'before' })).toBe('Echo: before')
    await everything.stop()
    everything = await startEverythingHttp(await freePort())
    proxy.target(everything.port)
    expect(await rig.text('mcp__everything__echo', { message: 'after' })).toBe('Echo: after')
    expect((await rig.status('everything')).detail).toContain('the server no longer knows the session (HTTP 400)')
  })
})

describe('answers a Streamable HTTP server gives', () => {
  it('an HTTP 500 to a call is MCP_SERVER_ERROR with the status; the session stays', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(httpRow(server.url))
    server.failNextPost(500)
    const result = await rig.call('mcp__web__add', { a: 1, b: 1 })
    expect(result.isError && result.error.code).toBe('MCP_SERVER_ERROR')
    expect(result.isError && result.error.message).toMatch(/^add: MCP server web answered HTTP 500: .*fixture: failing this request with HTTP 500/)
    expect(await rig.text('mcp__web__add', { a: 1, b: 2 })).toBe('3')
    expect((await rig.status('web')).detail).not.toContain('reconnected')
  })

  it('a JSON-RPC error -32000 is the server\'s, with its message', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(httpRow(server.url))
    const result = await rig.call('mcp__web__rpc-error', { code: -32000, message: 'database is locked' })
    expect(result.isError && result.error).toMatchObject({ code: 'MCP_SERVER_ERROR', message: 'rpc-error: MCP server web answered with error -32000: database is locked' })
  })

  it.each([false, true])('a result that is not an object is MCP_MALFORMED_RESPONSE at once (JSON bodies: %s)', async (jsonResponse) => {
    const server = await fixture({ jsonResponse })
    const rig = await startRig()
    await rig.add(httpRow(server.url, { toolCallTimeoutMs: 600_000 }))
    const result = await rig.call('mcp__web__raw-result', { result: 'a string' })
    expect(result.isError && result.error.code).toBe('MCP_MALFORMED_RESPONSE')
    // The SDK's server sends an answer it does not take for one on its standalone event stream, in both modes.
    // The SDK parsed it (and refused it); the bridge does not parse it again to say how.
    expect(result.isError && result.error.message).toMatch(/^raw-result: MCP server web answered with a message the MCP schema refuses \(/)
    expect(await rig.text('mcp__web__add', { a: 2, b: 2 })).toBe('4')
  })

  it.each([false, true])('an answer over maxMessageBytes is MCP_MALFORMED_RESPONSE naming its size; the session stays (JSON bodies: %s)', async (jsonResponse) => {
    const server = await fixture({ jsonResponse })
    const rig = await startRig()
    await rig.add(httpRow(server.url, { maxMessageBytes: 1_000_000 }))
    const result = await rig.call('mcp__web__big', { chars: 2_000_000 })
    expect(result.isError && result.error.code).toBe('MCP_MALFORMED_RESPONSE')
    // A JSON body is refused by its declared length; an event is cut at the cap, its rest never read.
    const size = jsonResponse ? '2000\\d{3}' : 'more than 1000000'
    expect(result.isError && result.error.message).toMatch(new RegExp(`^big: MCP server web sent a message of ${size} bytes, over maxMessageBytes \\(1000000\\)$`))
    expect(await rig.text('mcp__web__add', { a: 2, b: 2 })).toBe('4')
    expect((await rig.status('web')).detail).not.toContain('reconnected')
  })
})

describe('a server that is gone', () => {
  it('is noticed through the typed fetch failure and reconnected once it is back', async () => {
    const server = await fixture()
    const port = Number(new URL(server.url).port)
    const rig = await startRig()
    await rig.add(httpRow(server.url, { reconnect: { initialDelayMs: 100, maxDelayMs: 300, maxAttempts: 50, jitterRatio: 0 } }))
    await server.stop()
    const down = await rig.call('mcp__web__add', { a: 1, b: 1 })
    expect(down.isError && down.error.code).toMatch(/^MCP_(CONNECTION_LOST|UNAVAILABLE)$/)
    const restarted = await startHttpFixture({ port })
    cleanups.push(() => restarted.stop())
    await eventually(async () => expect(await rig.text('mcp__web__add', { a: 20, b: 22 })).toBe('42'))
  })
})

describe('a server that closes a kept connection as the next request comes on it (HTTP/1.1 keep-alive race)', () => {
  /**
   * Arms the fixture to drop the next POST that comes on a reused connection, then runs `action`
   * until one has been dropped: whether the client reuses a connection or opens one is its own
   * choice, so a run may need a few.
   */
  async function untilDropped<T>(server: HttpFixture, action: () => Promise<T>): Promise<{ results: T[]; dropped: T }> {
    const before = server.dropped.length
    server.dropNextReusedPost()
    const results: T[] = []
    while (server.dropped.length === before) {
      if (results.length === 20) throw new Error('the client never reused a connection')
      results.push(await action())
    }
    return { results, dropped: results.at(-1)! }
  }

  it('a request that only reads is sent once more on a fresh connection: the caller never sees the loss', async () => {
    const server = await fixture()
    const rig = await startRig()
    // Connections kept long enough that they are reused, whatever the machine's load.
    await rig.add(httpRow(server.url, { resources: true, keepAliveMs: 60_000 }))
    const { results } = await untilDropped(server, () => rig.call('mcp__web__list_resources', {}))
    expect(server.dropped).toEqual(['resources/list'])
    for (const result of results) expect(result.isError ? result.error : 'ok').toBe('ok')
    expect((await rig.status('web')).detail).not.toContain('reconnected')
  })

  it('a tool call is never sent twice: the lost one fails with MCP_CONNECTION_LOST and ran at most once', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(httpRow(server.url, { keepAliveMs: 60_000 }))
    const { results, dropped } = await untilDropped(server, () => rig.call('mcp__web__add', { a: 1, b: 2 }))
    expect(server.dropped).toEqual(['tools/call'])
    expect(dropped.isError && dropped.error.code).toBe('MCP_CONNECTION_LOST')
    // Each call but the dropped one ran, once; the dropped one was not run again.
    expect(server.counters.calls).toBe(results.length - 1)
  })

  it('an idle connection is closed by the client after keepAliveMs, before the server\'s idle limit: the next call goes on a new connection', async () => {
    // An idle limit under undici's default keep-alive (4 s) and no Keep-Alive hint: the SDK's server
    // sends `Connection: keep-alive`, which leaves Node's hint out, like uvicorn's and gunicorn's.
    const server = await fixture({ keepAliveTimeoutMs: 3_000 })
    const rig = await startRig()
    await rig.add(httpRow(server.url, { keepAliveMs: 100 }))
    expect(await rig.text('mcp__web__add', { a: 1, b: 1 })).toBe('2')
    // Every idle connection closed; the session's event stream stays.
    await eventually(() => expect(server.connections()).toBe(1))
    expect(server.closed.byServer).toBe(0)
    expect(server.closed.byClient).toBeGreaterThan(0)
    server.dropNextReusedPost()
    expect(await rig.text('mcp__web__add', { a: 2, b: 3 })).toBe('5')
    expect(server.dropped).toEqual([])
  })
})
