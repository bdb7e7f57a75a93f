import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type JsonValue, type ToolDefinition, type ToolResult, type ZodToolDefinition } from '../src/index.ts'
import { capturedLogs, useToolsApp } from './helpers.ts'

// A definition's optional presentation fields: `meta` kept with a success, and the UI presenters
// reached through `ctx.tools.presentCall` / `presentResult`. The core never reads what they return.

let app: Context

useToolsApp((created) => (app = created))

/** What the runtime logs. */
const warnings = capturedLogs()

const Input = z.strictObject({ word: z.string().min(1) })

function tool(overrides: Partial<ZodToolDefinition<{ word: string }, JsonValue>> = {}): ToolDefinition<{ word: string }> {
  return {
    name: 'echo',
    description: 'echoes a word',
    input: Input,
    execute: async ({ word }) => ({ word }),
    render: (_args, value) => `said ${(value as { word: string }).word}`,
    ...overrides,
  } as ToolDefinition<{ word: string }>
}

const call = (args: unknown = { word: 'hi' }) => app.tools.execute({ name: 'echo', arguments: args })

describe('meta', () => {
  it('is computed from the parsed arguments and the frozen value after render, and kept deep-frozen', async () => {
    const order: string[] = []
    app.tools.register(
      tool({
        render: () => (order.push('render'), 'said hi'),
        meta: (args, value) => (order.push('meta'), { args, value, list: [1, 2] }),
      }),
    )
    const result = await call()
    expect(result).toEqual({ isError: false, value: { word: 'hi' }, content: [{ type: 'text', text: 'said hi' }], meta: { args: { word: 'hi' }, value: { word: 'hi' }, list: [1, 2] } })
    expect(order).toEqual(['render', 'meta'])
    const meta = result.meta as { list: number[] }
    expect(Object.isFrozen(meta) && Object.isFrozen(meta.list)).toBe(true)
  })

  it('a tool without meta, or one answering undefined, has no meta key', async () => {
    app.tools.register(tool())
    expect('meta' in (await call())).toBe(false)
    app.tools.register(tool({ name: 'quiet', meta: () => undefined }))
    expect('meta' in (await app.tools.execute({ name: 'quiet', arguments: { word: 'x' } }))).toBe(false)
  })

  it('a throwing or non-JSON meta is logged and the result kept without it; the call never fails', async () => {
    app.tools.register(tool({ meta: () => { throw new Error('meta broke') } }))
    const result = await call()
    expect(result).toEqual({ isError: false, value: { word: 'hi' }, content: [{ type: 'text', text: 'said hi' }] })
    expect(warnings.join('\n')).toContain('echo: meta failed and was ignored: meta broke')

    app.tools.register(tool({ name: 'odd', meta: () => ({ when: new Date(0) }) as never }))
    const odd = await app.tools.execute({ name: 'odd', arguments: { word: 'x' } })
    expect([odd.isError, 'meta' in odd]).toEqual([false, false])
    expect(warnings.join('\n')).toContain('odd: meta returned something that is not JSON')
  })

  it('is not asked for on an error', async () => {
    let asked = false
    app.tools.register(tool({ execute: async () => { throw new Error('nope') }, meta: () => ((asked = true), {}) }))
    const result = await call()
    expect([result.isError, 'meta' in result, asked]).toEqual([true, false, false])
  })
})

describe('presentCall / presentResult', () => {
  it('hand the parsed arguments (and the result) to the tool and return its card as frozen JSON', async () => {
    let seen: { args: unknown; result: ToolResult } | undefined
    app.tools.register(
      tool({
        presentCall: ({ word }) => ({ card: 'generic', title: word }),
        presentResult: (args, result) => ((seen = { args, result }), { card: 'echo', meta: result.meta ?? null }),
        meta: (_args, value) => value,
      }),
    )
    const callCard = app.tools.presentCall('echo', { word: 'hi' })
    expect(callCard).toEqual({ card: 'generic', title: 'hi' })
    expect(Object.isFrozen(callCard)).toBe(true)
    const result = await call()
    expect(app.tools.presentResult('echo', { word: 'hi' }, result)).toEqual({ card: 'echo', meta: { word: 'hi' } })
    expect(seen).toEqual({ args: { word: 'hi' }, result })
  })

  it('are undefined for an unknown tool, a tool without presenters, or invalid arguments', async () => {
    app.tools.register(tool({ name: 'plain' }))
    app.tools.register(tool({ presentCall: () => ({ card: 'x' }), presentResult: () => ({ card: 'y' }) }))
    const result = await call()
    expect(app.tools.presentCall('nope', {})).toBeUndefined()
    expect(app.tools.presentCall('plain', { word: 'hi' })).toBeUndefined()
    expect(app.tools.presentResult('plain', { word: 'hi' }, result)).toBeUndefined()
    expect(app.tools.presentCall('echo', { word: '' })).toBeUndefined()
    expect(app.tools.presentResult('echo', 'not an object', result)).toBeUndefined()
    expect(warnings).toEqual([])
  })

  it('a throwing or non-JSON presenter is logged and gives undefined', async () => {
    app.tools.register(
      tool({
        presentCall: () => {
          throw new Error('card broke')
        },
        presentResult: () => ({ size: 1n }) as never,
      }),
    )
    expect(app.tools.presentCall('echo', { word: 'hi' })).toBeUndefined()
    expect(app.tools.presentResult('echo', { word: 'hi' }, await call())).toBeUndefined()
    expect(warnings.join('\n')).toContain('echo: presentCall failed and was ignored: card broke')
    expect(warnings.join('\n')).toContain('echo: presentResult returned something that is not JSON')
  })

  it('leave the catalog as it was', async () => {
    app.tools.register(tool({ presentCall: () => ({}), presentResult: () => ({}), meta: () => ({}) }))
    expect(app.tools.catalog()).toEqual([{ name: 'echo', description: 'echoes a word', parameters: expect.any(Object) }])
  })
})
