import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { z } from 'zod'
import type { ToolExecution, ToolResultEvent } from '../src/index.ts'
import { useToolsApp } from './helpers.ts'

// Issue 27 item 3: the tools runtime's per-call cost. A call id is drawn (randomUUID) only when
// something reads it: the body (`exec.callId`), an approver, or a result observer; and the result
// event is only built when someone observes results. Most calls of a harness have neither.
// The draws are counted on node:crypto itself (its named exports re-synced), not by mocking the
// module: the suite shares modules between files (isolate: false), so a mock may come too late.

let draws: MockInstance<typeof crypto.randomUUID>

beforeEach(() => {
  draws = vi.spyOn(crypto, 'randomUUID')
  syncBuiltinESMExports()
})

afterEach(() => {
  draws.mockRestore()
  syncBuiltinESMExports()
})

const drawn = {
  get count(): number {
    return draws.mock.calls.length
  },
}

let app: Context

useToolsApp((created) => (app = created))

describe('call ids', () => {
  it('a call nobody asks the id of draws none', async () => {
    app.tools.register({ name: 'quiet', description: 'q', input: z.object({}), execute: async () => ({}) })
    const before = drawn.count
    const result = await app.tools.execute({ name: 'quiet', arguments: {} })
    expect(result.isError).toBe(false)
    expect(drawn.count - before).toBe(0)
  })

  it('the body and a result observer see one id, drawn once', async () => {
    const ids: string[] = []
    const events: ToolResultEvent[] = []
    app.tools.register({ name: 'asks', description: 'a', input: z.object({}), execute: async (_args, exec: ToolExecution) => (ids.push(exec.callId, exec.callId), {}) })
    app.tools.onResult((event) => events.push(event))
    const before = drawn.count
    await app.tools.execute({ name: 'asks', arguments: {} })
    expect(drawn.count - before).toBe(1)
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(ids[1]).toBe(ids[0])
    expect(events.map((event) => event.callId)).toEqual([ids[0]])
  })

  it('an observer alone gets an id; a given id is never replaced', async () => {
    const events: ToolResultEvent[] = []
    app.tools.register({ name: 'plain', description: 'p', input: z.object({}), execute: async () => ({}) })
    app.tools.onResult((event) => events.push(event))
    const before = drawn.count
    await app.tools.execute({ name: 'plain', arguments: {} })
    await app.tools.execute({ name: 'plain', arguments: {}, callId: 'given-1' })
    await app.tools.execute({ name: 'nope', arguments: {} })
    expect(drawn.count - before).toBe(2)
    expect(events[0]!.callId).toMatch(/^[0-9a-f-]{36}$/)
    expect(events[1]!.callId).toBe('given-1')
    expect(events[2]!.result.isError).toBe(true)
  })
})
