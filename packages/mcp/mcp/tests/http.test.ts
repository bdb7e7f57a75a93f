// The bridge over Streamable HTTP against the fixture server on loopback (checklist 44, 101, 113;
// DESIGN M2/M3): discovery and calls, headers and credentials, and supervision of a server that
// stops and comes back.
import { afterEach, describe, expect, it } from 'vitest'
import { publicToolName } from '../src/naming.ts'
import { FAST_RECONNECT, eventually, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'
import { startHttpFixture, type HttpFixture } from './fixtures/server.mjs'

const fixtures: HttpFixture[] = []

afterEach(async () => {
  await stopRigs()
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop().catch(() => {})))
})

async function fixture(port = 0): Promise<HttpFixture> {
  const started = await startHttpFixture({ port })
  fixtures.push(started)
  return started
}

/** A row with a bearer token, connected and answering once, for a test that then has the server refuse it. */
async function withCredentialRevokedLater(test: (server: HttpFixture, rig: Awaited<ReturnType<typeof startRig>>) => Promise<void>): Promise<void> {
  process.env.MCP_HTTP_TEST_REVOKED = 'revoked-soon'
  try {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(httpRow(server.url, { bearerTokenEnvVar: 'MCP_HTTP_TEST_REVOKED' }))
    expect(await rig.text('mcp__web__add', { a: 1, b: 1 })).toBe('2')
    await test(server, rig)
  } finally {
    delete process.env.MCP_HTTP_TEST_REVOKED
  }
}

function httpRow(url: string, overrides: Record<string, unknown> = {}): RowInput {
  return { transport: 'streamable-http', serverName: 'web', url, startupTimeoutMs: 5000, reconnect: FAST_RECONNECT, ...overrides } as RowInput
}

describe('Streamable HTTP', () => {
  it('discovers, calls with the raw name, and shows the same results as stdio', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(httpRow(server.url))
    const reset = publicToolName('web', 'admin.reset')
    expect(rig.toolNames()).toContain(reset)
    expect(await rig.text('mcp__web__add', { a: 2, b: 3 })).toBe('5')
    expect(await rig.text(reset)).toBe('reset done')
    expect(await rig.errorCode('mcp__web__fail')).toBe('MCP_TOOL_ERROR')
    const status = await rig.status('web')
    expect(status.state).toBe('ready')
    expect(status.detail).toMatch(/^ready: \d+ tools; dsh-fixture 1\.0\.0, protocol 2025-11-25$/)
  })

  it('sends literal headers, envHeaders and the bearer token (read through ctx.credentials) on every request', async () => {
    process.env.MCP_HTTP_TEST_TOKEN = 'e2e-test-token'
    process.env.MCP_HTTP_TEST_TEAM = 'blue'
    try {
      const server = await fixture()
      const rig = await startRig()
      await rig.add(httpRow(server.url, { headers: { 'X-Static': 'yes' }, envHeaders: { 'X-Team': 'MCP_HTTP_TEST_TEAM' }, bearerTokenEnvVar: 'MCP_HTTP_TEST_TOKEN' }))
      await rig.text('mcp__web__echo', { message: 'hi' })
      expect(server.requests.length).toBeGreaterThan(2)
      for (const request of server.requests) {
        expect(request.headers.authorization).toBe('Bearer e2e-test-token')
        expect(request.headers['x-static']).toBe('yes')
        expect(request.headers['x-team']).toBe('blue')
      }
    } finally {
      delete process.env.MCP_HTTP_TEST_TOKEN
      delete process.env.MCP_HTTP_TEST_TEAM
    }
  })

  it('a missing bearer variable is MCP_CREDENTIAL_MISSING; with required it fails the boot, and no value is sent', async () => {
    const server = await fixture()
    const rig = await startRig()
    const fork = await rig.add(httpRow(server.url, { required: true, bearerTokenEnvVar: 'MCP_HTTP_TEST_NOT_SET_ANYWHERE' }))
    expect(fork.error).toMatchObject({ code: 'MCP_STARTUP_FAILED', cause: { code: 'MCP_CREDENTIAL_MISSING' } })
    expect(server.requests).toHaveLength(0)
  })

  it('a server that stops is noticed without a call, calls fail with a code meanwhile, and its tools come back when it restarts', async () => {
    const server = await fixture()
    const port = Number(new URL(server.url).port)
    const rig = await startRig()
    await rig.add(httpRow(server.url, { reconnect: { initialDelayMs: 100, maxDelayMs: 300, maxAttempts: 50, jitterRatio: 0 } }))
    expect(await rig.text('mcp__web__add', { a: 1, b: 1 })).toBe('2')
    await server.stop()
    await eventually(async () => expect((await rig.status('web')).state).toBe('crashed'))
    expect((await rig.status('web')).detail).toMatch(/^reconnecting \d+\/50/)
    expect(await rig.errorCode('mcp__web__add', { a: 1, b: 1 })).toBe('MCP_UNAVAILABLE')
    expect(rig.toolNames()).toContain('mcp__web__add')
    await fixture(port)
    await eventually(async () => expect(await rig.text('mcp__web__add', { a: 20, b: 22 })).toBe('42'))
    expect((await rig.status('web')).detail).toContain('reconnected 1 time')
  })

  it('a server that is down at startup: the row loads with no tools, and they appear once the server is up', async () => {
    const probe = await fixture()
    const port = Number(new URL(probe.url).port)
    await probe.stop()
    const rig = await startRig()
    await rig.add(httpRow(probe.url, { reconnect: { initialDelayMs: 100, maxDelayMs: 300, maxAttempts: 50, jitterRatio: 0 } }))
    expect(rig.toolNames()).toEqual([])
    expect((await rig.status('web')).detail).toMatch(/^reconnecting 1\/50.*last error: initialize: the server at http:\/\/127\.0\.0\.1:\d+\/mcp cannot be reached/)
    await fixture(port)
    await eventually(async () => expect(await rig.text('mcp__web__add', { a: 1, b: 2 })).toBe('3'))
  })

  // A refused connection is MCP_CONNECT_FAILED; its retry warnings carry the code as every other
  // failure line does, and the refused POST is said once per attempt (mcp item 3).
  for (const protocol of ['auto', '2025-11-25'] as const) {
    it(`a refused port (protocol ${protocol}): each failed attempt and each retry is logged once with [MCP_CONNECT_FAILED]`, async () => {
      const probe = await fixture()
      await probe.stop()
      const rig = await startRig()
      await rig.add(httpRow(probe.url, { protocol, reconnect: { initialDelayMs: 20, maxDelayMs: 20, maxAttempts: 2, jitterRatio: 0 } }))
      await eventually(async () => expect((await rig.status('web')).detail).toMatch(/^failed: gave up/))
      expect((await rig.status('web')).failure).toMatchObject({ code: 'MCP_CONNECT_FAILED', message: expect.stringContaining('ECONNREFUSED') })
      const rowLines = rig.logs.filter((line) => line.includes('mcp(web):'))
      expect(rowLines).toEqual([
        expect.stringMatching(/connection attempt failed: .*ECONNREFUSED.* \[MCP_CONNECT_FAILED\]$/),
        expect.stringMatching(/connection failed; retrying in 20ms \(attempt 1\/2\) \[MCP_CONNECT_FAILED\]$/),
        expect.stringMatching(/connection attempt failed: .*ECONNREFUSED.* \[MCP_CONNECT_FAILED\]$/),
        expect.stringMatching(/connection failed; retrying in 20ms \(attempt 2\/2\) \[MCP_CONNECT_FAILED\]$/),
        expect.stringMatching(/connection attempt failed: .*ECONNREFUSED.* \[MCP_CONNECT_FAILED\]$/),
        expect.stringMatching(/gave up after 2 consecutive failed attempts; .* \[MCP_CONNECT_FAILED\]$/),
      ])
    })
  }

  // Said plainly, the cause once: it read 'initialize: the connection closed (the server cannot be
  // reached: …)' (mcp item 7).
  for (const protocol of ['auto', '2025-11-25', '2026-07-28'] as const) {
    it(`a refused port (protocol ${protocol}): the failure says the server at its URL cannot be reached, with the cause once`, async () => {
      const probe = await fixture()
      await probe.stop()
      const rig = await startRig()
      await rig.add(httpRow(probe.url, { protocol, reconnect: { ...FAST_RECONNECT, initialDelayMs: 60_000, maxDelayMs: 60_000 } }))
      const port = new URL(probe.url).port
      const failure = (await rig.status('web')).failure
      expect(failure?.code).toBe('MCP_CONNECT_FAILED')
      expect(failure?.message).toBe(`initialize: the server at ${probe.url} cannot be reached (connect ECONNREFUSED 127.0.0.1:${port})`)
      expect(rig.logs.filter((line) => line.includes('mcp(web):'))).toEqual([
        expect.stringContaining(`connection attempt failed: initialize: the server at ${probe.url} cannot be reached (connect ECONNREFUSED 127.0.0.1:${port}) [MCP_CONNECT_FAILED]`),
        expect.stringMatching(/connection failed; retrying in 60000ms \(attempt 1\/3\) \[MCP_CONNECT_FAILED\]$/),
      ])
    })
  }

  it('required: a server unreachable at the first attempt is retried within startupTimeoutMs, and the boot succeeds once it is up', async () => {
    const probe = await fixture()
    const port = Number(new URL(probe.url).port)
    await probe.stop()
    const rig = await startRig()
    const adding = rig.add(httpRow(probe.url, { required: true, startupTimeoutMs: 20_000, reconnect: { initialDelayMs: 300, maxDelayMs: 300, maxAttempts: 50, jitterRatio: 0 } }))
    await eventually(() => expect(rig.logged('mcp(web): connection attempt failed')).toBe(true))
    await fixture(port)
    const fork = await adding
    expect(fork.error).toBeUndefined()
    expect(await rig.text('mcp__web__add', { a: 1, b: 2 })).toBe('3')
    // Every retry the log announced ran: each failed attempt but the last announced one, and the last one connected.
    const rowLines = rig.logs.filter((line) => line.includes('mcp(web):'))
    const failed = rowLines.filter((line) => line.includes('connection attempt failed')).length
    expect(rowLines.filter((line) => line.includes('retrying in'))).toHaveLength(failed)
    expect(rowLines.filter((line) => line.includes('connected and synced'))).toEqual([expect.stringContaining(`(retry ${failed}/50)`)])
  })

  it('a server restarted behind our back (our session unknown, HTTP 404) is reconnected with a fresh session', async () => {
    const server = await fixture()
    const port = Number(new URL(server.url).port)
    const rig = await startRig()
    await rig.add(httpRow(server.url))
    await server.stop()
    const restarted = await fixture(port)
    await eventually(async () => expect(await rig.text('mcp__web__add', { a: 2, b: 2 })).toBe('4'))
    expect(restarted.requests.some((request) => request.method === 'POST' && request.headers['mcp-session-id'] === undefined)).toBe(true)
  })

  // A credential the server stops taking on an established connection (a revoked API key: HTTP 401
  // without an OAuth challenge) is refused for the whole row, as at a connection attempt: the call
  // that met it says so, and the row is unavailable with that code until it is reloaded (mcp item 5).
  it('a credential refused during a call (401, no challenge): the call is MCP_CREDENTIAL_REJECTED, the row unavailable with that code, said once, not retried', async () => {
    await withCredentialRevokedLater(async (server, rig) => {
      const connected = rig.logs.length
      // From now on the server refuses every POST with 401 and no WWW-Authenticate.
      for (let i = 0; i < 10; i++) server.failNextPost(401)
      const refused = await rig.call('mcp__web__add', { a: 1, b: 2 })
      expect(refused.isError && refused.error).toMatchObject({ code: 'MCP_CREDENTIAL_REJECTED', message: expect.stringContaining('HTTP 401') })
      await eventually(async () => expect((await rig.status('web')).state).toBe('unavailable'))
      const status = await rig.status('web')
      expect(status.failure?.code).toBe('MCP_CREDENTIAL_REJECTED')
      expect(status.detail).toMatch(/^unavailable: the server refused the row's credential/)
      // Its tools stay listed (as for any row that lost its connection for good) and say why they fail.
      expect(rig.toolNames()).toContain('mcp__web__add')
      const later = await rig.call('mcp__web__add', { a: 1, b: 3 })
      expect(later.isError && later.error).toMatchObject({ code: 'MCP_UNAVAILABLE', message: expect.stringMatching(/refused the row's credential.*HTTP 401/) })
      const posts = server.requests.filter((request) => request.method === 'POST').length
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(server.requests.filter((request) => request.method === 'POST').length).toBe(posts)
      const rowLines = rig.logs.slice(connected).filter((line) => line.includes('mcp(web):'))
      expect(rowLines).toEqual([expect.stringMatching(/HTTP 401.*; not retrying until the row is reloaded \[MCP_CREDENTIAL_REJECTED\]$/)])
    })
  })

  // A call in flight when another call's 401 loses the connection (found running dsh serve with two
  // calls at once) ended MCP_CONNECTION_LOST, which a caller reads as an outage a retry mends; the
  // connection was lost because the credential was refused, so it is that call's failure too.
  it('a call in flight when a refused credential (401, no challenge) loses the connection is MCP_CREDENTIAL_REJECTED too', async () => {
    await withCredentialRevokedLater(async (server, rig) => {
      const posts = () => server.requests.filter((request) => request.method === 'POST').length
      const before = posts()
      const inFlight = rig.call('mcp__web__hang')
      // Its POST reached the server, which holds it open.
      await eventually(() => expect(posts()).toBe(before + 1))
      for (let i = 0; i < 10; i++) server.failNextPost(401)
      const refused = await rig.call('mcp__web__add', { a: 1, b: 2 })
      expect(refused.isError && refused.error).toMatchObject({ code: 'MCP_CREDENTIAL_REJECTED' })
      const lost = await inFlight
      expect(lost.isError && lost.error).toMatchObject({ code: 'MCP_CREDENTIAL_REJECTED', message: expect.stringMatching(/^hang: .*HTTP 401/) })
    })
  })

  it('a call in flight when the server dies ends with a coded error, not a hang', async () => {
    const server = await fixture()
    const rig = await startRig()
    await rig.add(httpRow(server.url, { reconnect: { ...FAST_RECONNECT, initialDelayMs: 60_000, maxDelayMs: 60_000 } }))
    const pending = rig.call('mcp__web__hang')
    await new Promise((resolve) => setTimeout(resolve, 100))
    await server.stop()
    const result = await pending
    expect(result.isError && result.error.code).toMatch(/^MCP_(CONNECTION_LOST|UNAVAILABLE)$/)
  })
})
