// A call that outlives maxTotalTimeoutMs (issue 27 follow-up): the SDK ends it when a progress report
// arrives past the limit, but unlike at its other deadlines it tells the server nothing, so the server
// worked on for a call nobody waited for. The bridge sends notifications/cancelled itself, naming the
// request by the id the SDK also uses as its progress token; on a 2026-07-28 HTTP connection it ends
// the request's event stream instead, as the SDK cancels there. Real fixture servers, stdio and HTTP.
import { afterEach, describe, expect, it } from 'vitest'
import { eventually, fixtureRow, startRig, stopRigs, type Rig, type RowInput } from './fixtures/rig.ts'
import { startModernServer } from './fixtures/modern-server.ts'
import { startHttpFixture, type HttpFixture, type TickerState } from './fixtures/server.mjs'

const fixtures: HttpFixture[] = []

afterEach(async () => {
  await stopRigs()
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop().catch(() => {})))
})

/** A ticker that would report for 50 s, 50 ms apart, on a row whose calls may last 1 s in all. */
const LIMITS = { toolCallTimeoutMs: 1000, maxTotalTimeoutMs: 1000 }
const ENDLESS = { count: 1000, intervalMs: 50 }

async function counters(rig: Rig, prefix: string): Promise<{ cancelled: number; ticker: TickerState | null }> {
  return JSON.parse(await rig.text(`${prefix}counters`)) as { cancelled: number; ticker: TickerState | null }
}

describe('a call ended by maxTotalTimeoutMs', () => {
  it('stdio: the server gets notifications/cancelled for that request and stops working on it', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow(LIMITS))
    const result = await rig.call('mcp__fixture__ticker', ENDLESS)
    expect(result.isError && result.error).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'tool call timed out after 1000 ms in all (maxTotalTimeoutMs)' })
    const seen = await eventually(async () => {
      const now = await counters(rig, 'mcp__fixture__')
      expect(now.cancelled).toBe(1)
      expect(now.ticker?.stopped).toBe(true)
      return now
    })
    // The SDK's progress token is the request's JSON-RPC id: the cancellation names the right request.
    expect(seen.ticker!.progressToken).toBe(seen.ticker!.requestId)
    expect(seen.ticker!.sent).toBeLessThan(ENDLESS.count)
    // The connection serves on.
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 1 })).toBe('2')
  })

  it('Streamable HTTP (2025-11-25): the cancellation reaches the server over the session', async () => {
    const server = await startHttpFixture()
    fixtures.push(server)
    const rig = await startRig()
    await rig.add({ transport: 'streamable-http', serverName: 'web', url: server.url, startupTimeoutMs: 5000, ...LIMITS } as RowInput)
    const result = await rig.call('mcp__web__ticker', ENDLESS)
    expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
    await eventually(() => {
      expect(server.counters.cancelled).toBe(1)
      expect(server.counters.ticker?.stopped).toBe(true)
    })
    expect(server.counters.ticker!.progressToken).toBe(server.counters.ticker!.requestId)
  })

  it('Streamable HTTP (2026-07-28): the request\'s own event stream is ended, which cancels it there', async () => {
    const modern = await startModernServer()
    try {
      const rig = await startRig()
      await rig.add({ transport: 'streamable-http', serverName: 'modern', url: modern.url, startupTimeoutMs: 5000, ...LIMITS } as RowInput)
      const result = await rig.call('mcp__modern__ticker', ENDLESS)
      expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
      await eventually(() => expect(modern.ticker).toMatchObject({ cancelled: true, stopped: true }))
      // The connection serves on, and ending the stream was no transport fault.
      expect(await rig.text('mcp__modern__add', { a: 1, b: 1 })).toBe('2')
      expect(rig.logs.filter((line) => /transport error|connection lost/.test(line))).toEqual([])
    } finally {
      await stopRigs()
      await modern.close()
    }
  })

  it('Streamable HTTP (2026-07-28), multi-round: the request of the round in flight is the one cancelled', async () => {
    // The first round answers input_required; the SDK retries on a fresh request id, and that
    // request ticks past the limit. Cancelling the first round's id (answered long ago) left the
    // second ticking.
    const modern = await startModernServer()
    try {
      const rig = await startRig()
      await rig.add({ transport: 'streamable-http', serverName: 'modern', url: modern.url, startupTimeoutMs: 5000, ...LIMITS } as RowInput)
      const result = await rig.call('mcp__modern__ticker-second-round', ENDLESS)
      expect(result.isError && result.error).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'tool call timed out after 1000 ms in all (maxTotalTimeoutMs)' })
      await eventually(() => expect(modern.ticker).toMatchObject({ cancelled: true, stopped: true }))
      const rounds = modern.requests.filter((request) => request.method === 'tools/call').map((request) => request.id)
      expect(rounds).toHaveLength(2)
      expect(modern.ticker.requestId).toBe(rounds[1])
      expect(await rig.text('mcp__modern__add', { a: 1, b: 1 })).toBe('2')
    } finally {
      await stopRigs()
      await modern.close()
    }
  })

  it('a call that ends in time sends no cancellation', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow(LIMITS))
    expect(await rig.text('mcp__fixture__ticker', { count: 3, intervalMs: 10 })).toBe('ticked 3')
    expect((await counters(rig, 'mcp__fixture__')).cancelled).toBe(0)
  })
})
