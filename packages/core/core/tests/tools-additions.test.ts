import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { HarnessError, type ToolDefinition, type ToolExecution, type ToolResult, type ToolResultEvent } from '../src/index.ts'
import { capturedLogs, useToolsApp } from './helpers.ts'

// Tools runtime additions: a definition's finalizeContent, result observers (onResult), and registerAll.

let app: Context

useToolsApp((created) => (app = created))

/** What the runtime logs. */
const warnings = capturedLogs()

function tool(overrides: Partial<ToolDefinition> & { name: string }): ToolDefinition {
  return { description: `the ${overrides.name} tool`, input: z.object({}), execute: async () => ({ ok: true }), ...overrides } as ToolDefinition
}

function results(): ToolResultEvent[] {
  const seen: ToolResultEvent[] = []
  app.tools.onResult((event) => void seen.push(event))
  return seen
}

describe('finalizeContent', () => {
  it('replaces the content of a success and keeps the value; it sees the exec and the rendered result', async () => {
    let seen: { exec: ToolExecution; result: ToolResult } | undefined
    app.tools.register(
      tool({
        name: 'pic',
        execute: async () => ({ blocks: ['a', 'b'] }),
        render: () => 'rendered',
        finalizeContent: (exec, result) => {
          seen = { exec, result }
          return [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }]
        },
      }),
    )
    const result = await app.tools.execute({ name: 'pic', arguments: {}, callId: 'call-1' })
    expect(result).toEqual({ isError: false, value: { blocks: ['a', 'b'] }, content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] })
    expect(Object.isFrozen(result.content)).toBe(true)
    expect(seen?.exec.callId).toBe('call-1')
    expect(seen?.exec.name).toBe('pic')
    expect(seen?.result.content).toEqual([{ type: 'text', text: 'rendered' }])
  })

  it('keeps the content when it returns undefined', async () => {
    app.tools.register(tool({ name: 'same', render: () => 'kept', finalizeContent: () => undefined }))
    expect((await app.tools.execute({ name: 'same', arguments: {} })).content).toEqual([{ type: 'text', text: 'kept' }])
  })

  it('runs for error outcomes too and keeps their code and message', async () => {
    app.tools.register(
      tool({
        name: 'fails',
        execute: async () => {
          throw new HarnessError('short message', 'SOME_CODE')
        },
        finalizeContent: (_exec, result) => (result.isError ? [{ type: 'text', text: `Error: the long story, in order` }] : undefined),
      }),
    )
    const result = await app.tools.execute({ name: 'fails', arguments: {} })
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: the long story, in order' }],
      error: { message: 'short message', code: 'SOME_CODE', name: 'HarnessError' },
    })
  })

  it('runs for a timeout (the runtime has decided the outcome first)', async () => {
    let outcome: string | undefined
    app.tools.register(
      tool({
        name: 'slow',
        timeoutMs: 20,
        execute: async (_args: unknown, exec: ToolExecution) => {
          await exec.lifetime.sleep(5000)
          return {}
        },
        finalizeContent: (_exec, result) => {
          outcome = result.isError ? result.error.code : 'success'
          return undefined
        },
      }),
    )
    const result = await app.tools.execute({ name: 'slow', arguments: {} })
    expect(result.isError && result.error.code).toBe('TOOL_TIMEOUT')
    expect(outcome).toBe('TOOL_TIMEOUT')
  })

  it('does not run when the call never reached the body', async () => {
    let calls = 0
    app.tools.register(
      tool({
        name: 'strict',
        input: z.strictObject({ n: z.number() }),
        finalizeContent: () => {
          calls++
          return undefined
        },
      }),
    )
    const invalid = await app.tools.execute({ name: 'strict', arguments: { n: 'x' } })
    expect(invalid.isError && invalid.error.code).toBe('INVALID_ARGS')
    const controller = new AbortController()
    controller.abort()
    const aborted = await app.tools.execute({ name: 'strict', arguments: { n: 1 }, signal: controller.signal })
    expect(aborted.isError && aborted.error.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(calls).toBe(0)
  })

  it.each([
    ['throws', () => {
      throw new Error('boom')
    }],
    ['returns a non-list', () => 'text' as never],
    ['returns a non-text block', () => [{ type: 'image', data: '' }] as never],
  ])('is ignored (and logged) when it %s', async (_what, finalizeContent) => {
    app.tools.register(tool({ name: 'bad', render: () => 'original', finalizeContent }))
    const result = await app.tools.execute({ name: 'bad', arguments: {} })
    expect(result).toEqual({ isError: false, value: { ok: true }, content: [{ type: 'text', text: 'original' }] })
    expect(warnings.some((line) => line.includes('bad: finalizeContent'))).toBe(true)
  })
})

describe('onResult', () => {
  it('reports every call with its final result, call id, session and duration', async () => {
    const seen = results()
    const session = app.sessions.create({ cwd: process.cwd() })
    app.tools.register(tool({ name: 'ok', render: () => 'fine', finalizeContent: () => [{ type: 'text', text: 'final' }] }))
    const result = await app.tools.execute({ name: 'ok', arguments: {}, callId: 'c-7', session })
    expect(seen).toHaveLength(1)
    expect(seen[0]!.result).toBe(result)
    expect(seen[0]!.result.content).toEqual([{ type: 'text', text: 'final' }])
    expect(seen[0]).toMatchObject({ callId: 'c-7', name: 'ok', session })
    expect(seen[0]!.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('reports failures that never reached a body, with a generated call id', async () => {
    const seen = results()
    const result = await app.tools.execute({ name: 'missing', arguments: {} })
    expect(seen).toHaveLength(1)
    expect(seen[0]!.name).toBe('missing')
    expect(seen[0]!.callId).toMatch(/^[0-9a-f-]{36}$/)
    expect(seen[0]!.result).toBe(result)
    expect(result.isError && result.error.code).toBe('UNKNOWN_TOOL')
  })

  it('an observer that throws is logged and changes nothing; the observers after it still hear', async () => {
    app.tools.onResult(() => {
      throw new Error('observer broke')
    })
    const seen = results()
    app.tools.register(tool({ name: 'ok' }))
    const result = await app.tools.execute({ name: 'ok', arguments: {} })
    expect(result.isError).toBe(false)
    expect(seen).toHaveLength(1)
    expect(warnings.some((line) => line.includes('observer broke'))).toBe(true)
  })

  it('is an effect of the observing plugin: unloading it, or the disposer, stops the reports', async () => {
    const seen: string[] = []
    const fork = app.plugin({
      name: 'observer',
      inject: ['tools'],
      apply: (ctx: Context) => {
        ctx.tools.onResult((event) => void seen.push(`plugin:${event.name}`))
      },
    })
    const stop = app.tools.onResult((event) => void seen.push(`direct:${event.name}`))
    app.tools.register(tool({ name: 'ok' }))
    await app.tools.execute({ name: 'ok', arguments: {} })
    fork.dispose()
    stop()
    await app.tools.execute({ name: 'ok', arguments: {} })
    expect(seen).toEqual(['plugin:ok', 'direct:ok'])
  })

  it('the same call id reaches the body, finalizeContent and the event', async () => {
    const seen = results()
    const ids: string[] = []
    app.tools.register(
      tool({
        name: 'ids',
        execute: async (_args: unknown, exec: ToolExecution) => {
          ids.push(exec.callId)
          return {}
        },
        finalizeContent: (exec) => {
          ids.push(exec.callId)
          return undefined
        },
      }),
    )
    await app.tools.execute({ name: 'ids', arguments: {} })
    expect(ids).toHaveLength(2)
    expect(ids[0]).toBe(ids[1])
    expect(seen[0]!.callId).toBe(ids[0])
  })
})

describe('registerAll', () => {
  const raw = (name: string): ToolDefinition => ({ name, description: `${name}.`, parameters: { type: 'object' }, execute: async () => ({ name }) })

  it('adds every tool with one tools/change, and its disposer removes them with one more', async () => {
    let changes = 0
    app.on('tools/change', () => void changes++)
    const dispose = app.tools.registerAll([raw('a'), raw('b'), raw('c')])
    expect(app.tools.catalog().map((tool) => tool.name)).toEqual(['a', 'b', 'c'])
    expect(changes).toBe(1)
    expect(await app.tools.execute({ name: 'b', arguments: {} })).toMatchObject({ isError: false, value: { name: 'b' } })
    dispose()
    expect(app.tools.catalog()).toEqual([])
    expect(changes).toBe(2)
  })

  it('registers none of them when one name is taken or listed twice', () => {
    app.tools.register(raw('taken'))
    expect(() => app.tools.registerAll([raw('free'), raw('taken')])).toThrow(expect.objectContaining({ code: 'DUPLICATE_TOOL' }))
    expect(() => app.tools.registerAll([raw('x'), raw('x')])).toThrow(expect.objectContaining({ code: 'DUPLICATE_TOOL' }))
    expect(app.tools.catalog().map((tool) => tool.name)).toEqual(['taken'])
  })

  it('refuses an invalid definition before registering anything', () => {
    expect(() => app.tools.registerAll([raw('fine'), { ...raw('bad name!') }])).toThrow(expect.objectContaining({ code: 'INVALID_TOOL' }))
    expect(app.tools.catalog()).toEqual([])
  })

  it('is an effect on the caller scope, and a stale disposer leaves newer registrations alone', () => {
    const fork = app.plugin({ name: 'batch', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.registerAll([raw('p'), raw('q')]) })
    expect(app.tools.catalog()).toHaveLength(2)
    fork.dispose()
    expect(app.tools.catalog()).toEqual([])
    const first = app.tools.registerAll([raw('r')])
    first()
    app.tools.registerAll([raw('r')])
    first()
    expect(app.tools.catalog().map((tool) => tool.name)).toEqual(['r'])
  })
})

describe('batch', () => {
  it('holds tools/change back until the batch ends, then emits it once; a batch that changes nothing emits none', () => {
    let changes = 0
    app.on('tools/change', () => void changes++)
    const first = app.tools.registerAll([tool({ name: 'a' }), tool({ name: 'b' })])
    expect(changes).toBe(1)
    app.tools.batch(() => {
      first()
      app.tools.batch(() => app.tools.register(tool({ name: 'c' })))
      expect(app.tools.catalog().map((entry) => entry.name)).toEqual(['c'])
      expect(changes).toBe(1)
    })
    expect(changes).toBe(2)
    app.tools.batch(() => {})
    expect(changes).toBe(2)
  })

  it('a throw inside still releases the held notice', () => {
    let changes = 0
    app.on('tools/change', () => void changes++)
    expect(() =>
      app.tools.batch(() => {
        app.tools.register(tool({ name: 'x' }))
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(changes).toBe(1)
  })
})

describe('namespace', () => {
  it('a claimed prefix explains calls to names no tool has; other names stay UNKNOWN_TOOL', async () => {
    const stop = app.tools.namespace('srv__', (name) => (name === 'srv__known-gap' ? undefined : new HarnessError(`server srv is down, so ${name} cannot run`, 'SRV_DOWN')))
    app.tools.register(tool({ name: 'srv__here' }))
    expect((await app.tools.execute({ name: 'srv__here', arguments: {} })).isError).toBe(false)
    expect(await app.tools.execute({ name: 'srv__gone', arguments: {} })).toMatchObject({ isError: true, error: { code: 'SRV_DOWN', message: 'server srv is down, so srv__gone cannot run' } })
    expect(await app.tools.execute({ name: 'srv__known-gap', arguments: {} })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    expect(await app.tools.execute({ name: 'other', arguments: {} })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    stop()
    expect(await app.tools.execute({ name: 'srv__gone', arguments: {} })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
  })

  it('an explanation that throws is logged and the answer stays UNKNOWN_TOOL', async () => {
    app.tools.namespace('x__', () => {
      throw new Error('explainer broke')
    })
    expect(await app.tools.execute({ name: 'x__y', arguments: {} })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    expect(warnings.some((line) => line.includes('the namespace x__ failed to explain "x__y": explainer broke'))).toBe(true)
  })
})
