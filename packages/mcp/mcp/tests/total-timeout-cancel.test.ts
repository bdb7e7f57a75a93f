// A call that outlives maxTotalTimeoutMs (issue 27 follow-up): the SDK ends it when a progress report
// arrives past the limit, but unlike at its other deadlines it tells the server nothing, so the server
// worked on for a call nobody waited for. The bridge sends notifications/cancelled itself, naming the
// request by the id the SDK also uses as its progress token; on a 2026-07-28 HTTP connection it ends
// the request's event stream instead, as the SDK cancels there. Real fixture servers, stdio and HTTP.
import { describe, expect, it } from 'vitest'
import { eventually, fixtureRow, startCaseRig, type Rig, type RowInput } from './fixtures/rig.ts'
import { startModernServer } from './fixtures/modern-server.ts'
import { startHttpFixture, type TickerState } from './fixtures/server.mjs'

/** A ticker that would report for 50 s, 50 ms apart, on a row whose calls may last 1 s in all. */
const LIMITS = { toolCallTimeoutMs: 1000, maxTotalTimeoutMs: 1000 }
const ENDLESS = { count: 1000, intervalMs: 50 }

async function counters(rig: Rig, prefix: string): Promise<{ cancelled: number; ticker: TickerState | null }> {
  return JSON.parse(await rig.text(`${prefix}counters`)) as { cancelled: number; ticker: TickerState | null }
}

// Side by side, each case its own rig and server (stopped when that case finishes, the rig first):
// most of each case's time is its 1 s limit running out.
describe.concurrent('a call ended by maxTotalTimeoutMs', () => {
  it('stdio: the server gets notifications/cancelled for that request and stops working on it', async (context) => {
    const rig = await startCaseRig(context)
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

  it('Streamable HTTP (2025-11-25): the cancellation reaches the server over the session', async (context) => {
    const server = await startHttpFixture()
    context.onTestFinished(() => server.stop().catch(() => {}))
    const rig = await startCaseRig(context)
    await rig.add({ transport: 'streamable-http', serverName: 'web', url: server.url, startupTimeoutMs: 5000, ...LIMITS } as RowInput)
    const result = await rig.call('mcp__web__ticker', ENDLESS)
    expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
    await eventually(() => {
      expect(server.counters.cancelled).toBe(1)
      expect(server.counters.ticker?.stopped).toBe(true)
    })
    expect(server.counters.ticker!.progressToken).toBe(server.counters.ticker!.requestId)
  })

  it('Streamable HTTP (2026-07-28): the request\'s own event stream is ended, which cancels it there', async (context) => {
    const modern = await startModernServer()
    context.onTestFinished(() => modern.close())
    const rig = await startCaseRig(context)
    await rig.add({ transport: 'streamable-http', serverName: 'modern', url: modern.url, startupTimeoutMs: 5000, ...LIMITS } as RowInput)
    const result = await rig.call('mcp__modern__ticker', ENDLESS)
    expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
    await eventually(() => expect(modern.ticker).toMatchObject({ cancelled: true, stopped: true }))
    // The connection serves on, and ending the stream was no transport fault (the row's own lines:
    // the logger is the process's, and the other cases' rows run beside this one).
    expect(await rig.text('mcp__modern__add', { a: 1, b: 1 })).toBe('2')
    expect(rig.logs.filter((line) => line.includes('mcp(modern):') && /transport error|connection lost/.test(line))).toEqual([])
  })

  it('Streamable HTTP (2026-07-28), multi-round: the request of the round in flight is the one cancelled', async (context) => {
    // The first round answers input_required; the SDK retries on a fresh request id, and that
    // request ticks past the limit. Cancelling the first round's id (answered long ago) left the
    // second ticking.
    const modern = await startModernServer()
    context.onTestFinished(() => modern.close())
    const rig = await startCaseRig(context)
    await rig.add({ transport: 'streamable-http', serverName: 'rounds', url: modern.url, startupTimeoutMs: 5000, ...LIMITS } as RowInput)
    const result = await rig.call('mcp__rounds__ticker-second-round', ENDLESS)
    expect(result.isError && result.error).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'tool call timed out after 1000 ms in all (maxTotalTimeoutMs)' })
    await eventually(() => expect(modern.ticker).toMatchObject({ cancelled: true, stopped: true }))
    const rounds = modern.requests.filter((request) => request.method === 'tools/call').map((request) => request.id)
    expect(rounds).toHaveLength(2)
    expect(modern.ticker.requestId).toBe(rounds[1])
    expect(await rig.text('mcp__rounds__add', { a: 1, b: 1 })).toBe('2')
  })

  it('a call that ends in time sends no cancellation', async (context) => {
    const rig = await startCaseRig(context)
    await rig.add(fixtureRow(LIMITS))
    expect(await rig.text('mcp__fixture__ticker', { count: 3, intervalMs: 10 })).toBe('ticked 3')
    expect((await counters(rig, 'mcp__fixture__')).cancelled).toBe(0)
  })
})
