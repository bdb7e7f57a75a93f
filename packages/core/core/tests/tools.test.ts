import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  HarnessError,
  ToolError,
  type Session,
  type ToolDefinition,
  type ToolExecution,
  type ToolResult,
} from '../src/index.ts'
import { deferred, harnessThrow, useToolsApp } from './helpers.ts'

let app: Context

useToolsApp((created) => (app = created))

/** A fresh plugin scope whose context registers things (an effect on that scope). */
function pluginScope(name = 'test-plugin') {
  return app.plugin({ name, inject: ['tools', 'sessions'], apply() {} })
}

function tool(overrides: Partial<ToolDefinition> & { name: string }): ToolDefinition {
  return {
    description: `the ${overrides.name} tool`,
    input: z.object({}),
    execute: async () => ({ ok: true }),
    ...overrides,
  } as ToolDefinition
}

function expectError(result: ToolResult, code: string) {
  expect(result.isError, JSON.stringify(result)).toBe(true)
  if (!result.isError) throw new Error('unreachable')
  expect(result.error.code).toBe(code)
  expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.error.message}` }])
  return result.error
}

function expectSuccess(result: ToolResult) {
  expect(result.isError, JSON.stringify(result)).toBe(false)
  if (result.isError) throw new Error('unreachable')
  return result
}

describe('register', () => {
  it('returns a disposer that removes the tool and fires tools/change', () => {
    let changes = 0
    app.on('tools/change', () => changes++)
    const scope = pluginScope()
    const dispose = scope.ctx.tools.register(tool({ name: 'alpha' }))
    expect(typeof dispose).toBe('function')
    expect(app.tools.catalog().map((t) => t.name)).toEqual(['alpha'])
    expect(app.tools.get('alpha')?.name).toBe('alpha')
    expect(changes).toBe(1)
    dispose()
    expect(app.tools.catalog()).toEqual([])
    expect(app.tools.get('alpha')).toBeUndefined()
    expect(changes).toBe(2)
    scope.dispose()
  })

  it('is an effect on the caller plugin scope: disposing the plugin removes its tools', () => {
    let changes = 0
    app.on('tools/change', () => changes++)
    const fork = app.plugin({
      name: 'owner',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(tool({ name: 'owned_a' }))
        ctx.tools.register(tool({ name: 'owned_b' }))
      },
    })
    app.tools.register(tool({ name: 'root_tool' }))
    expect(app.tools.catalog().map((t) => t.name)).toEqual(['owned_a', 'owned_b', 'root_tool'])
    expect(changes).toBe(3)
    fork.dispose()
    expect(app.tools.catalog().map((t) => t.name)).toEqual(['root_tool'])
    expect(changes).toBe(5)
  })

  it('refuses a duplicate name with DUPLICATE_TOOL and keeps the first registration', async () => {
    const first = pluginScope('first')
    const second = pluginScope('second')
    first.ctx.tools.register(tool({ name: 'dup', execute: async () => ({ from: 'first' }) }))
    const error = harnessThrow(() => second.ctx.tools.register(tool({ name: 'dup', execute: async () => ({ from: 'second' }) })))
    expect(error.code).toBe('DUPLICATE_TOOL')
    expect(app.tools.catalog().map((t) => t.name)).toEqual(['dup'])
    // Disposing the scope whose registration failed must not remove the first tool.
    second.dispose()
    expect(expectSuccess(await app.tools.execute({ name: 'dup', arguments: {} })).value).toEqual({ from: 'first' })
    first.dispose()
    expect(app.tools.catalog()).toEqual([])
  })

  it('a name freed by disposal can be registered again', () => {
    const dispose = app.tools.register(tool({ name: 'again' }))
    dispose()
    app.tools.register(tool({ name: 'again' }))
    expect(app.tools.catalog().map((t) => t.name)).toEqual(['again'])
  })

  it.each([
    ['an empty name', { name: '' }],
    ['a name with a space', { name: 'has space' }],
    ['a name with a dot', { name: 'a.b' }],
    ['a 65-character name', { name: 'x'.repeat(65) }],
    ['a non-string name', { name: 42 }],
    ['an empty description', { name: 'ok', description: '' }],
    ['a blank description', { name: 'ok', description: '   ' }],
    ['a missing execute', { name: 'ok', execute: undefined }],
    ['timeoutMs 0', { name: 'ok', timeoutMs: 0 }],
    ['a negative timeoutMs', { name: 'ok', timeoutMs: -5 }],
    ['a fractional timeoutMs', { name: 'ok', timeoutMs: 1.5 }],
    ['an infinite timeoutMs', { name: 'ok', timeoutMs: Infinity }],
    ['a NaN timeoutMs', { name: 'ok', timeoutMs: NaN }],
    ['a timeoutMs beyond the timer ceiling', { name: 'ok', timeoutMs: 2 ** 31 }],
    ['an input schema that is not an object', { name: 'ok', input: z.string() }],
    ['raw parameters that are not an object', { name: 'ok', input: undefined, parameters: ['x'] }],
  ])('refuses %s with INVALID_TOOL', (_label, overrides) => {
    let changes = 0
    app.on('tools/change', () => changes++)
    const error = harnessThrow(() => app.tools.register(tool(overrides as Partial<ToolDefinition> & { name: string })))
    expect(error.code).toBe('INVALID_TOOL')
    expect(app.tools.catalog()).toEqual([])
    expect(changes).toBe(0)
  })

  it('accepts a 64-character name and the largest timeout', () => {
    app.tools.register(tool({ name: 'y'.repeat(64), timeoutMs: 2 ** 31 - 1 }))
    expect(app.tools.catalog().map((t) => t.name)).toEqual(['y'.repeat(64)])
  })
})

describe('catalog', () => {
  it('gives name, description and the JSON Schema of the zod input (input side)', () => {
    const input = z.strictObject({
      query: z.string().min(1).describe('What to look for.'),
      limit: z.number().int().positive().default(10).describe('How many.'),
      mode: z.enum(['fast', 'slow']).optional(),
    })
    app.tools.register(tool({ name: 'search', description: 'Searches things.', input }))
    const expected = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>
    delete expected.$schema
    const [entry] = app.tools.catalog()
    expect(entry).toEqual({ name: 'search', description: 'Searches things.', parameters: expected })
    expect(entry?.parameters).not.toHaveProperty('$schema')
    // A defaulted field is optional for the model.
    expect(entry?.parameters.required).toEqual(['query'])
    expect(Object.keys(entry ?? {}).sort()).toEqual(['description', 'name', 'parameters'])
  })

  it('passes a raw JSON Schema through for parameters tools', () => {
    const parameters = {
      type: 'object',
      properties: { path: { type: 'string', description: 'A file.' }, n: { type: 'integer' } },
      required: ['path'],
      additionalProperties: false,
    }
    app.tools.register({ name: 'raw', description: 'A raw tool.', parameters, execute: async (args) => args })
    expect(app.tools.catalog()).toEqual([{ name: 'raw', description: 'A raw tool.', parameters }])
  })

  it('is sorted by name and cannot be used to change the registration', () => {
    app.tools.register(tool({ name: 'zeta' }))
    app.tools.register(tool({ name: 'alpha' }))
    app.tools.register(tool({ name: 'mid' }))
    const catalog = app.tools.catalog()
    expect(catalog.map((t) => t.name)).toEqual(['alpha', 'mid', 'zeta'])
    expect(() => {
      ;(catalog[0]!.parameters as Record<string, unknown>).type = 'string'
    }).toThrow()
    expect(app.tools.catalog()[0]!.parameters.type).toBe('object')
  })
})

describe('execute', () => {
  it('runs a body and renders its value; the value is deep-frozen', async () => {
    app.tools.register(
      tool({
        name: 'greet',
        input: z.strictObject({ who: z.string() }),
        output: z.object({ greeting: z.string(), parts: z.array(z.object({ word: z.string() })) }),
        execute: async (args: { who: string }) => ({ greeting: `hello ${args.who}`, parts: [{ word: 'hello' }, { word: args.who }] }),
        render: (_args: unknown, value: { greeting: string }) => `<<${value.greeting}>>`,
      }),
    )
    const result = expectSuccess(await app.tools.execute({ name: 'greet', arguments: { who: 'ada' } }))
    expect(result.value).toEqual({ greeting: 'hello ada', parts: [{ word: 'hello' }, { word: 'ada' }] })
    expect(result.content).toEqual([{ type: 'text', text: '<<hello ada>>' }])
    const value = result.value as { parts: { word: string }[] }
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen(value.parts)).toBe(true)
    expect(Object.isFrozen(value.parts[0])).toBe(true)
    expect(() => {
      value.parts[0]!.word = 'changed'
    }).toThrow(TypeError)
  })

  it('uses content blocks from render as they are, and pretty JSON without render', async () => {
    app.tools.register(
      tool({
        name: 'blocks',
        execute: async () => ({ n: 1 }),
        render: () => [
          { type: 'text' as const, text: 'one' },
          { type: 'text' as const, text: 'two' },
        ],
      }),
    )
    app.tools.register(tool({ name: 'plain', execute: async () => ({ n: 2, list: [1] }) }))
    expect(expectSuccess(await app.tools.execute({ name: 'blocks', arguments: {} })).content).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ])
    expect(expectSuccess(await app.tools.execute({ name: 'plain', arguments: {} })).content).toEqual([
      { type: 'text', text: JSON.stringify({ n: 2, list: [1] }, null, 2) },
    ])
  })

  it('answers UNKNOWN_TOOL for a name nobody registered', async () => {
    const error = expectError(await app.tools.execute({ name: 'nope', arguments: {} }), 'UNKNOWN_TOOL')
    expect(error.message).toContain('nope')
  })

  it('answers INVALID_ARGS for a schema violation without running the body', async () => {
    let ran = 0
    app.tools.register(
      tool({
        name: 'strict',
        input: z.strictObject({ text: z.string(), count: z.number().int().optional() }),
        execute: async () => {
          ran++
          return {}
        },
      }),
    )
    expectError(await app.tools.execute({ name: 'strict', arguments: { text: 5 } }), 'INVALID_ARGS')
    expectError(await app.tools.execute({ name: 'strict', arguments: {} }), 'INVALID_ARGS')
    expectError(await app.tools.execute({ name: 'strict', arguments: { text: 'a', extra: true } }), 'INVALID_ARGS')
    const error = expectError(await app.tools.execute({ name: 'strict', arguments: { text: 'a', count: 1.5 } }), 'INVALID_ARGS')
    expect(error.message).toContain('count')
    expect(ran).toBe(0)
  })

  it('answers INVALID_ARGS for arguments that are not JSON', async () => {
    let ran = 0
    app.tools.register(
      tool({
        name: 'any',
        input: z.object({}).passthrough(),
        execute: async () => {
          ran++
          return {}
        },
      }),
    )
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    for (const args of [{ n: 10n }, { f: () => 1 }, { n: NaN }, { d: new Date(0) }, cycle, [undefined]]) {
      expectError(await app.tools.execute({ name: 'any', arguments: args }), 'INVALID_ARGS')
    }
    expect(ran).toBe(0)
  })

  it('answers INVALID_ARGS for a "__proto__" key instead of letting it through the prototype', async () => {
    let ran = 0
    app.tools.register(
      tool({
        name: 'strict',
        input: z.strictObject({ text: z.string() }),
        execute: async () => {
          ran++
          return {}
        },
      }),
    )
    for (const raw of ['{"__proto__":{"text":"smuggled"}}', '{"text":"a","__proto__":{"admin":true}}']) {
      const error = expectError(await app.tools.execute({ name: 'strict', arguments: JSON.parse(raw) }), 'INVALID_ARGS')
      expect(error.message).toContain('__proto__')
    }
    expect(ran).toBe(0)
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
  })

  it('keeps a "__proto__" key as an own property for a raw-parameters tool', async () => {
    app.tools.register({ name: 'raw', description: 'raw', parameters: { type: 'object' }, execute: async (args) => args })
    const value = expectSuccess(await app.tools.execute({ name: 'raw', arguments: JSON.parse('{"__proto__":{"a":1}}') })).value as object
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__'])
  })

  it('answers INVALID_ARGS for arguments nested deeper than maxArgumentDepth, at any depth', async () => {
    app.tools.register({ name: 'raw', description: 'raw', parameters: { type: 'object' }, execute: async () => ({}) })
    for (const depth of [101, 20_000]) {
      const error = expectError(await app.tools.execute({ name: 'raw', arguments: { a: JSON.parse('['.repeat(depth) + ']'.repeat(depth)) } }), 'INVALID_ARGS')
      expect(error.message).toContain('deeper than 100 levels')
    }
    expectSuccess(await app.tools.execute({ name: 'raw', arguments: { a: JSON.parse('['.repeat(98) + ']'.repeat(98)) } }))
  })

  it('answers INVALID_ARGS when a raw-parameters tool gets something other than an object', async () => {
    app.tools.register({ name: 'raw', description: 'raw', parameters: { type: 'object' }, execute: async (args) => args })
    expectError(await app.tools.execute({ name: 'raw', arguments: ['a'] }), 'INVALID_ARGS')
    expectError(await app.tools.execute({ name: 'raw', arguments: 'text' }), 'INVALID_ARGS')
    expect(expectSuccess(await app.tools.execute({ name: 'raw', arguments: { a: 1 } })).value).toEqual({ a: 1 })
  })

  it('answers TOOL_TIMEOUT when a body overruns timeoutMs, and the body saw its signal abort', async () => {
    let sawAbort = false
    app.tools.register(
      tool({
        name: 'slow',
        timeoutMs: 50,
        execute: async (_args: unknown, exec: ToolExecution) => {
          exec.signal.addEventListener('abort', () => (sawAbort = true))
          await exec.lifetime.sleep(30_000)
          return {}
        },
      }),
    )
    const error = expectError(await app.tools.execute({ name: 'slow', arguments: {} }), 'TOOL_TIMEOUT')
    expect(error.message).toBe('tool call timed out after 50 ms')
    expect(sawAbort).toBe(true)
  })

  it("keeps a body's own TOOL_TIMEOUT error (what it waited for, what to do) once the budget ran out, not its rethrown reason", async () => {
    for (const [name, fails] of [
      ['explains', (reason: unknown) => new ToolError('tool call timed out after 50 ms: the server was still searching; ask about a smaller file', 'TOOL_TIMEOUT', { cause: reason })],
      ['rethrows', (reason: unknown) => reason],
    ] as const) {
      app.tools.register(
        tool({
          name,
          timeoutMs: 50,
          execute: async (_args: unknown, exec: ToolExecution) => {
            await exec.lifetime.sleep(30_000).catch(() => {})
            throw fails(exec.lifetime.reason)
          },
        }),
      )
    }
    expect(expectError(await app.tools.execute({ name: 'explains', arguments: {} }), 'TOOL_TIMEOUT').message).toBe('tool call timed out after 50 ms: the server was still searching; ask about a smaller file')
    expect(expectError(await app.tools.execute({ name: 'rethrows', arguments: {} }), 'TOOL_TIMEOUT').message).toBe('tool call timed out after 50 ms')
  })

  it('abandons a body that ignores its signal after abandonAfterMs and still answers TOOL_TIMEOUT', async () => {
    app.tools.register(
      tool({
        name: 'stubborn',
        timeoutMs: 50,
        // Never settles and never looks at its signal.
        execute: () => new Promise<never>(() => {}),
      }),
    )
    expectError(await app.tools.execute({ name: 'stubborn', arguments: {} }), 'TOOL_TIMEOUT')
  })

  it('answers ABORTED when the caller aborts a running call', async () => {
    const started = deferred()
    app.tools.register(
      tool({
        name: 'waits',
        execute: async (_args: unknown, exec: ToolExecution) => {
          started.resolve()
          await exec.lifetime.sleep(30_000)
          return {}
        },
      }),
    )
    const controller = new AbortController()
    const pending = app.tools.execute({ name: 'waits', arguments: {}, signal: controller.signal })
    await started.promise
    controller.abort(new Error('user pressed stop'))
    expectError(await pending, 'ABORTED')
  })

  it('answers ABORTED when the caller aborts a body that ignores its signal', async () => {
    const started = deferred()
    app.tools.register(
      tool({
        name: 'deaf',
        execute: () => {
          started.resolve()
          return new Promise<never>(() => {})
        },
      }),
    )
    const controller = new AbortController()
    const pending = app.tools.execute({ name: 'deaf', arguments: {}, signal: controller.signal })
    await started.promise
    controller.abort()
    expectError(await pending, 'ABORTED')
  })

  it('replaces a success that arrives after the caller aborted with ABORTED', async () => {
    const started = deferred()
    const release = deferred()
    app.tools.register(
      tool({
        name: 'late',
        execute: async () => {
          started.resolve()
          await release.promise
          return { done: true }
        },
      }),
    )
    const controller = new AbortController()
    const pending = app.tools.execute({ name: 'late', arguments: {}, signal: controller.signal })
    await started.promise
    controller.abort()
    release.resolve()
    expectError(await pending, 'ABORTED')
  })

  it('answers ABORTED_BEFORE_DISPATCH for a pre-aborted signal without running the body', async () => {
    let ran = 0
    app.tools.register(
      tool({
        name: 'never',
        execute: async () => {
          ran++
          return {}
        },
      }),
    )
    const controller = new AbortController()
    controller.abort()
    expectError(await app.tools.execute({ name: 'never', arguments: {}, signal: controller.signal }), 'ABORTED_BEFORE_DISPATCH')
    expect(ran).toBe(0)
  })

  it('turns a plain Error into TOOL_FAILED and keeps working', async () => {
    let calls = 0
    app.tools.register(
      tool({
        name: 'flaky',
        input: z.object({ fail: z.boolean() }),
        execute: async (args: { fail: boolean }) => {
          calls++
          if (args.fail) throw new Error('the disk is on fire')
          return { calls }
        },
      }),
    )
    const failed = await app.tools.execute({ name: 'flaky', arguments: { fail: true } })
    const error = expectError(failed, 'TOOL_FAILED')
    expect(error.message).toBe('the disk is on fire')
    expect(failed.content).toEqual([{ type: 'text', text: 'Error: the disk is on fire' }])
    expect(expectSuccess(await app.tools.execute({ name: 'flaky', arguments: { fail: false } })).value).toEqual({ calls: 2 })
  })

  it('turns a synchronous throw and a thrown non-Error into TOOL_FAILED', async () => {
    app.tools.register(
      tool({
        name: 'sync_throw',
        execute: (() => {
          throw new TypeError('sync boom')
        }) as unknown as ToolDefinition['execute'],
      }),
    )
    app.tools.register(
      tool({
        name: 'throws_string',
        execute: async () => {
          throw 'just a string'
        },
      }),
    )
    const sync = expectError(await app.tools.execute({ name: 'sync_throw', arguments: {} }), 'TOOL_FAILED')
    expect(sync.message).toBe('sync boom')
    expect(sync.name).toBe('TypeError')
    expect(expectError(await app.tools.execute({ name: 'throws_string', arguments: {} }), 'TOOL_FAILED').message).toBe('just a string')
  })

  it('keeps the code of a thrown HarnessError', async () => {
    class SurfaceError extends HarnessError {}
    app.tools.register(
      tool({
        name: 'coded',
        execute: async () => {
          throw new SurfaceError('the server went away', 'SURFACE_GONE')
        },
      }),
    )
    const error = expectError(await app.tools.execute({ name: 'coded', arguments: {} }), 'SURFACE_GONE')
    expect(error).toEqual({ message: 'the server went away', code: 'SURFACE_GONE', name: 'SurfaceError' })
  })

  it('answers INVALID_TOOL_OUTPUT for a value that breaks the output schema', async () => {
    app.tools.register(
      tool({
        name: 'liar',
        output: z.object({ count: z.number() }),
        execute: async () => ({ count: 'many' }),
      }),
    )
    const error = expectError(await app.tools.execute({ name: 'liar', arguments: {} }), 'INVALID_TOOL_OUTPUT')
    expect(error.message).toContain('count')
  })

  it('checkOutput: false skips the schema check only: the value is still a frozen JSON copy, and non-JSON is still INVALID_TOOL_OUTPUT', async () => {
    const answered = { count: 'many', nested: { list: [1] } }
    app.tools.register(
      tool({
        name: 'own_type',
        output: z.object({ count: z.number() }),
        checkOutput: false,
        execute: async () => answered as never,
      }),
    )
    const value = expectSuccess(await app.tools.execute({ name: 'own_type', arguments: {} })).value as typeof answered
    expect(value).toEqual(answered)
    expect(value).not.toBe(answered)
    expect([Object.isFrozen(value), Object.isFrozen(value.nested), Object.isFrozen(value.nested.list), Object.isFrozen(answered)]).toEqual([true, true, true, false])
    // Still published: the check is skipped, not the declaration.
    expect(app.tools.outputSchema('own_type')).toMatchObject({ type: 'object', properties: { count: { type: 'number' } } })
    app.tools.register(tool({ name: 'own_nan', output: z.object({ n: z.number() }), checkOutput: false, execute: async () => ({ n: NaN }) as never }))
    expectError(await app.tools.execute({ name: 'own_nan', arguments: {} }), 'INVALID_TOOL_OUTPUT')
    expect(() => app.tools.register(tool({ name: 'bad_flag', checkOutput: 'no' as never }))).toThrow(expect.objectContaining({ code: 'INVALID_TOOL', message: 'tool "bad_flag": checkOutput must be a boolean when given' }))
  })

  it.each([
    ['a function', { f: () => 1 }],
    ['NaN', { n: NaN }],
    ['a bigint', { n: 1n }],
    ['a Map', new Map([['a', 1]])],
    ['undefined', undefined],
  ])('answers INVALID_TOOL_OUTPUT for a value holding %s', async (_label, value) => {
    app.tools.register(tool({ name: 'weird', execute: async () => value as never }))
    expectError(await app.tools.execute({ name: 'weird', arguments: {} }), 'INVALID_TOOL_OUTPUT')
  })

  it('answers INVALID_TOOL_OUTPUT when render throws', async () => {
    app.tools.register(
      tool({
        name: 'bad_render',
        render: () => {
          throw new Error('cannot draw')
        },
      }),
    )
    const error = expectError(await app.tools.execute({ name: 'bad_render', arguments: {} }), 'INVALID_TOOL_OUTPUT')
    expect(error.message).toContain('cannot draw')
  })

  it('gives the body the calling session as exec.session and ctx.sessions.current()', async () => {
    const seen: { exec?: Session | undefined; current?: Session | undefined; afterAwait?: Session | undefined }[] = []
    app.tools.register(
      tool({
        name: 'whoami',
        execute: async (_args: unknown, exec: ToolExecution) => {
          const entry: (typeof seen)[number] = { exec: exec.session, current: app.sessions.current() }
          await new Promise((resolve) => setTimeout(resolve, 5))
          entry.afterAwait = app.sessions.current()
          seen.push(entry)
          return { cwd: exec.session?.cwd ?? null }
        },
      }),
    )
    const one = app.sessions.create({ cwd: '/tmp/one' })
    const two = app.sessions.create({ cwd: '/tmp/two' })
    const [a, b] = await Promise.all([
      app.tools.execute({ name: 'whoami', arguments: {}, session: one }),
      app.tools.execute({ name: 'whoami', arguments: {}, session: two }),
    ])
    expect(expectSuccess(a!).value).toEqual({ cwd: '/tmp/one' })
    expect(expectSuccess(b!).value).toEqual({ cwd: '/tmp/two' })
    const bySession = new Map(seen.map((entry) => [entry.exec, entry]))
    expect(bySession.get(one)).toEqual({ exec: one, current: one, afterAwait: one })
    expect(bySession.get(two)).toEqual({ exec: two, current: two, afterAwait: two })

    const none = await app.tools.execute({ name: 'whoami', arguments: {} })
    expect(expectSuccess(none).value).toEqual({ cwd: null })
    expect(seen[2]).toEqual({ exec: undefined, current: undefined, afterAwait: undefined })
    expect(app.sessions.current()).toBeUndefined()
  })

  it('hands the body its call id, its name and frozen parsed arguments', async () => {
    let exec: ToolExecution | undefined
    let args: unknown
    app.tools.register(
      tool({
        name: 'introspect',
        input: z.object({ list: z.array(z.number()) }),
        execute: async (a: unknown, e: ToolExecution) => {
          args = a
          exec = e
          return {}
        },
      }),
    )
    expectSuccess(await app.tools.execute({ name: 'introspect', callId: 'call-1', arguments: { list: [1, 2] } }))
    expect(exec?.callId).toBe('call-1')
    expect(exec?.name).toBe('introspect')
    expect(args).toEqual({ list: [1, 2] })
    expectSuccess(await app.tools.execute({ name: 'introspect', arguments: { list: [] } }))
    expect(exec?.callId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('runs independent calls concurrently and keeps working after failures', async () => {
    app.tools.register(tool({ name: 'ok', execute: async () => ({ ok: 1 }) }))
    const results = await Promise.all([
      app.tools.execute({ name: 'ok', arguments: {} }),
      app.tools.execute({ name: 'missing', arguments: {} }),
      app.tools.execute({ name: 'ok', arguments: { extra: 1 } }),
    ])
    expect(results.map((r) => r.isError)).toEqual([false, true, false])
  })
})

describe('prompt sections', () => {
  it('lists sections by order, then name', () => {
    app.tools.section({ name: 'tool:web', order: 120, text: 'web guidance' })
    app.tools.section({ name: 'tool:lsp', order: 110, text: 'lsp guidance' })
    app.tools.section({ name: 'tool:b', order: 150, text: 'b' })
    app.tools.section({ name: 'tool:a', order: 150, text: 'a' })
    app.tools.section({ name: 'intro', order: -1, text: 'first' })
    expect(app.tools.sections().map((s) => s.name)).toEqual(['intro', 'tool:lsp', 'tool:web', 'tool:a', 'tool:b'])
    expect(app.tools.sections()[1]).toEqual({ name: 'tool:lsp', order: 110, text: 'lsp guidance' })
  })

  it('refuses a duplicate section name and keeps the first', () => {
    app.tools.section({ name: 'tool:x', order: 1, text: 'first' })
    const error = harnessThrow(() => app.tools.section({ name: 'tool:x', order: 2, text: 'second' }))
    expect(error.code).toBe('DUPLICATE_TOOL')
    expect(app.tools.sections()).toEqual([{ name: 'tool:x', order: 1, text: 'first' }])
  })

  it('refuses an empty name or a non-finite order', () => {
    expect(harnessThrow(() => app.tools.section({ name: '', order: 1, text: 't' })).code).toBe('INVALID_TOOL')
    expect(harnessThrow(() => app.tools.section({ name: 'n', order: NaN, text: 't' })).code).toBe('INVALID_TOOL')
    expect(app.tools.sections()).toEqual([])
  })

  it('removes a section through its disposer and with its plugin scope', () => {
    const dispose = app.tools.section({ name: 'mine', order: 1, text: 'm' })
    const scope = pluginScope()
    scope.ctx.tools.section({ name: 'theirs', order: 2, text: 't' })
    expect(app.tools.sections().map((s) => s.name)).toEqual(['mine', 'theirs'])
    dispose()
    expect(app.tools.sections().map((s) => s.name)).toEqual(['theirs'])
    scope.dispose()
    expect(app.tools.sections()).toEqual([])
  })

  it('keeps a copy: changing the passed object later does not change the section', () => {
    const section = { name: 'copy', order: 1, text: 'before' }
    app.tools.section(section)
    section.text = 'after'
    expect(app.tools.sections()[0]?.text).toBe('before')
  })
})
