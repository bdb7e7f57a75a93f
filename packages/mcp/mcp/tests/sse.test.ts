// The deprecated HTTP+SSE transport (issue 21): the real server-everything in its `sse` mode, with
// the same supervision as the other transports — a server that dies is noticed from its event
// stream and reconnected once it is back.
import { afterEach, describe, expect, it } from 'vitest'
import { FAST_RECONNECT, eventually, startRig, stopRigs, type RowInput } from './fixtures/rig.ts'
import { freePort, startEverythingHttp, type Everything } from './fixtures/everything-http.ts'

const servers: Everything[] = []

afterEach(async () => {
  await stopRigs()
  await Promise.all(servers.splice(0).map((server) => server.stop()))
})

async function everything(port: number): Promise<Everything> {
  const server = await startEverythingHttp(port, 'sse')
  servers.push(server)
  return server
}

function sseRow(port: number): RowInput {
  return { transport: 'sse', serverName: 'legacy', url: `http://127.0.0.1:${port}/sse`, startupTimeoutMs: 10_000, reconnect: { ...FAST_RECONNECT, maxAttempts: 50 } } as RowInput
}

describe('transport: sse', () => {
  it('lists and calls the tools of server-everything over HTTP+SSE, and comes back after the server restarts', async () => {
    const port = await freePort()
    const first = await everything(port)
    const rig = await startRig()
    await rig.add(sseRow(port))
    expect(rig.toolNames()).toContain('mcp__legacy__echo')
    expect(await rig.text('mcp__legacy__echo', { message: 'over sse' })).toBe('Echo: over sse')
    expect((await rig.status('legacy')).state).toBe('ready')

    await first.stop()
    servers.splice(servers.indexOf(first), 1)
    await eventually(async () => expect((await rig.status('legacy')).state).not.toBe('ready'))
    await everything(port)
    await eventually(async () => expect((await rig.status('legacy')).state).toBe('ready'), 30_000)
    expect(await rig.text('mcp__legacy__echo', { message: 'again' })).toBe('Echo: again')
    expect((await rig.status('legacy')).detail).toMatch(/reconnected 1 time/)
  })

  // A refused port says plainly that the server at the row's URL cannot be reached, with fetch's
  // cause once: it read 'SSE error: Error: …: TypeError: fetch failed: …' (mcp item 7).
  it('a refused port: MCP_CONNECT_FAILED saying the server at its URL cannot be reached, the cause said once', async () => {
    const port = await freePort()
    const rig = await startRig()
    await rig.add({ ...sseRow(port), reconnect: { ...FAST_RECONNECT, initialDelayMs: 60_000, maxDelayMs: 60_000 } } as RowInput)
    const failure = (await rig.status('legacy')).failure
    expect(failure?.code).toBe('MCP_CONNECT_FAILED')
    expect(failure?.message).toBe(`initialize: the server at http://127.0.0.1:${port}/sse cannot be reached (connect ECONNREFUSED 127.0.0.1:${port})`)
    expect(rig.logs.filter((line) => line.includes('mcp(legacy):'))).toEqual([
      expect.stringMatching(new RegExp(`connection attempt failed: initialize: the server at http://127\\.0\\.0\\.1:${port}/sse cannot be reached \\(connect ECONNREFUSED [^)]*\\) \\[MCP_CONNECT_FAILED\\]$`)),
      expect.stringMatching(/connection failed; retrying in 60000ms \(attempt 1\/3\) \[MCP_CONNECT_FAILED\]$/),
    ])
  })
})
