// Faults real servers produce, over stdio against the SDK-built fixture (issue 17): JSON-RPC errors
// kept with the server's code and message, answers that are not objects, messages over
// maxMessageBytes, stderr kept out of model-visible text, tools/list pages with a bad tool, and
// messages that say when dsh itself stopped a server.
import { afterEach, describe, expect, it } from 'vitest'
import { McpError } from '../src/errors.ts'
import { fixtureRow, sharedRigOf, startRig, stopRigs } from './fixtures/rig.ts'

afterEach(stopRigs)

// The cases of one it.each share a server: each checks it keeps serving after its answer.
describe('JSON-RPC errors the server sends', () => {
  const sharedRig = sharedRigOf(fixtureRow())
  it.each([-32000, -32001, -32602])('code %i is MCP_SERVER_ERROR with the server message, not the SDK\'s own closed/timeout', async (code) => {
    const rig = await sharedRig()
    const result = await rig.call('mcp__fixture__rpc-error', { code, message: 'database is locked' })
    expect(result.isError && result.error.code).toBe('MCP_SERVER_ERROR')
    expect(result.isError && result.error.message).toBe(`rpc-error: MCP server fixture answered with error ${code}: database is locked`)
    // The connection was never in question.
    expect((await rig.status()).state).toBe('ready')
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 1 })).toBe('2')
  })

  it('an error answer to initialize is the server\'s message with its code, not "the server exited with code 0"', async () => {
    const rig = await startRig()
    const fork = await rig.add(fixtureRow({ required: true, env: { FIXTURE_INITIALIZE_ERROR: 'FOO_API_KEY is not set' } }))
    expect(fork.error).toMatchObject({ code: 'MCP_STARTUP_FAILED', cause: { code: 'MCP_SERVER_ERROR', rpcCode: -32000 } })
    expect(String(fork.error.message)).toContain('initialize: the server answered with error -32000: FOO_API_KEY is not set')
    expect(String(fork.error.message)).not.toContain('exited with code 0')
    await rig.remove(fork)
  })
})

describe('an answer that is not an object', () => {
  // A long tool timeout: an answer that waits for it would fail the test's own deadline.
  const sharedRig = sharedRigOf(fixtureRow({ toolCallTimeoutMs: 600_000 }))
  it.each([['a string', 'a string'], ['null', null], ['an array', [1, 2]]])('a tools/call result that is %s is MCP_MALFORMED_RESPONSE at once; the connection keeps working', async (_what, result) => {
    const rig = await sharedRig()
    const outcome = await rig.call('mcp__fixture__raw-result', { result })
    expect(outcome.isError && outcome.error.code).toBe('MCP_MALFORMED_RESPONSE')
    expect(outcome.isError && outcome.error.message).toMatch(/^raw-result: MCP server fixture answered with a result that is not an object/)
    expect(await rig.text('mcp__fixture__add', { a: 2, b: 2 })).toBe('4')
  })
})

describe('an answer to an id never asked', () => {
  it('is logged as a transport error on one bounded, readable line (it quoted the whole answer: a line as long as the server liked, escapes included); the call it came before still answers, and an answer to its id with the other JSON type ("5" for 5) is one more stray, not the call\'s answer', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: { FIXTURE_STRAY_ANSWER: '200000' } }))
    expect(await rig.text('mcp__fixture__echo', { message: 'hi' })).toBe('Echo: hi')
    const lines = rig.logs.filter((line) => line.includes('transport error'))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('987654')
    expect(lines[0]!.length).toBeLessThan(1200)
    expect(lines[0]).not.toMatch(/[\u001b\n]/)
    // The answer to the call's id as a string ("5" for 5) came first: the SDK took it for the call
    // (it matches by Number(id)); it is a stray answer, and the call waits for its own.
    expect(lines[1]).toMatch(/the server answered id "\d+", which no request of ours waits for; request \d+ waits, and an id matches only in type and value/)
  })
})

describe('messages over maxMessageBytes', () => {
  it('an oversized answer is MCP_MALFORMED_RESPONSE naming the size; the same server keeps serving (no respawn)', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ maxMessageBytes: 1_000_000 }))
    const before = await rig.serverPids()
    const result = await rig.call('mcp__fixture__big', { chars: 2_000_000 })
    expect(result.isError && result.error.code).toBe('MCP_MALFORMED_RESPONSE')
    expect(result.isError && result.error.message).toMatch(/^big: MCP server fixture sent a message of 2000\d{3} bytes, over maxMessageBytes \(1000000\)/)
    expect((await rig.serverPids()).pid).toBe(before.pid)
    expect(rig.logged('reconnecting')).toBe(false)
    expect(rig.logged('mcp(fixture): transport error: the server sent a message of 2000')).toBe(true)
  })

  it('the default (32 MiB) carries a 20 MB result whole', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ maxResultChars: 100 }))
    const result = await rig.call('mcp__fixture__big', { chars: 20_000_000 })
    expect(result.isError).toBe(false)
    expect((result.isError === false && (result.value as { content: { text: string }[] }).content[0]!.text.length)).toBe(20_000_000)
  })
})

describe('stderr', () => {
  it('stays out of model-visible text (a lost call, an unavailable server) and is in the status row', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: { FIXTURE_STDERR: 'SERVICE_API_KEY=sk-do-not-show' }, reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, maxAttempts: 3 } }))
    const lost = await rig.call('mcp__fixture__exit-now')
    expect(lost.isError && lost.error.code).toBe('MCP_CONNECTION_LOST')
    expect(lost.isError && lost.error.message).toContain('exited with code 3')
    const down = await rig.call('mcp__fixture__add', { a: 1, b: 1 })
    expect(down.isError && down.error.code).toBe('MCP_UNAVAILABLE')
    for (const result of [lost, down]) {
      expect(JSON.stringify(result)).not.toContain('sk-do-not-show')
      expect(JSON.stringify(result)).not.toContain('fixture: exiting without an answer')
    }
    const status = await rig.status()
    expect(status.detail).toContain('stderr: SERVICE_API_KEY=sk-do-not-show')
    expect(rig.logged('sk-do-not-show')).toBe(true)
  })
})

describe('a tools/list page with a tool the SDK refuses', () => {
  it('keeps the valid tools, refuses the bad ones with a one-line reason in status, and does not retry', async () => {
    const rig = await startRig()
    const fork = await rig.add(fixtureRow({ env: { FIXTURE_BAD_TOOLS: '1' } }))
    expect(fork.status).toBe(2)
    expect(rig.toolNames()).toContain('mcp__fixture__add')
    expect(rig.toolNames()).not.toContain('mcp__fixture__bad-required')
    expect(rig.toolNames()).not.toContain('mcp__fixture__')
    const status = await rig.status()
    expect(status.state).toBe('ready')
    expect(status.detail).toContain('2 tools refused (MCP_MALFORMED_RESPONSE): "bad-required": inputSchema.required: Invalid input: expected array, received string; #')
    expect(status.detail).toMatch(/#\d+ "": the name is empty/)
    expect(rig.logged('connection attempt failed')).toBe(false)
    expect(rig.logs.filter((line) => line.includes('tool "bad-required" is refused'))).toHaveLength(1)
  })
})

describe('when dsh stops the server itself', () => {
  it('a startup timeout says dsh stopped the server, not that it exited or was killed', async () => {
    const rig = await startRig()
    const fork = await rig.add(fixtureRow({ required: true, startupTimeoutMs: 300, env: { FIXTURE_HANG_INITIALIZE: '1' } }))
    expect(fork.error).toMatchObject({ code: 'MCP_STARTUP_FAILED', cause: { code: 'MCP_TIMEOUT' } })
    const message = String(fork.error.message)
    expect(message).toContain('initialize: no answer within 300 ms (the server was stopped by dsh)')
    expect(message).not.toMatch(/exited with code|killed by/)
    await rig.remove(fork)
  })

  it('unloading the row: a call in flight says the row was unloaded', async () => {
    const rig = await startRig()
    const fork = await rig.add(fixtureRow())
    const pending = rig.call('mcp__fixture__hang')
    // Answered after the hang request was read: the server has both.
    await rig.text('mcp__fixture__add', { a: 1, b: 1 })
    await rig.remove(fork)
    const result = await pending
    expect(result.isError && result.error.code).toBe('MCP_DISPOSED')
    expect(result.isError && result.error.message).not.toMatch(/exited with code|killed by/)
  })
})

describe('McpError', () => {
  it('keeps the HTTP status when there is one', () => {
    expect(new McpError('x', 'MCP_SERVER_ERROR', { httpStatus: 500 }).httpStatus).toBe(500)
  })
})
