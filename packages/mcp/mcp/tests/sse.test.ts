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
})
