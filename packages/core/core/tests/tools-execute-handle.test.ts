import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ToolRuntime, untracked, type ToolDefinition, type ToolResult } from '../src/index.ts'
import { useToolsApp } from './helpers.ts'

// Issue 27 item 3: cordis's caller tracking builds a shadow context and two proxies each time
// `ctx.tools.execute` is read (docs/architecture.md, "Helpers"). `execute` does not use `this`, so a
// harness or plugin takes it once and pays nothing per call; what the tracking is for on
// `ctx.tools` (registrations owned by the caller's scope) stays as it was.

let app: Context

useToolsApp((created) => (app = created))

afterEach(() => {
  vi.restoreAllMocks()
})

function echo(name: string): ToolDefinition {
  return {
    name,
    description: `the ${name} tool`,
    input: z.object({ text: z.string() }),
    execute: async ({ text }: { text: string }) => ({ text }),
  } as ToolDefinition
}

/** Counts `new Proxy(...)` made anywhere (cordis builds its tracing proxies with the global `Proxy`). */
function countProxies(): { count: number; stop(): void } {
  const original = globalThis.Proxy
  const counter = { count: 0, stop: () => void (globalThis.Proxy = original) }
  globalThis.Proxy = new original(original, {
    construct(target, args: [object, ProxyHandler<object>]) {
      counter.count++
      return new target(...args)
    },
  })
  return counter
}

function valueOf(result: ToolResult): unknown {
  if (result.isError) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value
}

describe('execute taken once from ctx.tools', () => {
  it('runs calls without its receiver, from a plugin context and from the root', async () => {
    app.tools.register(echo('echo'))
    const fork = app.plugin({ name: 'caller', inject: ['tools'], apply() {} })
    const { execute } = fork.ctx.tools
    expect(valueOf(await execute({ name: 'echo', arguments: { text: 'a' } }))).toEqual({ text: 'a' })
    const { execute: fromRoot } = app.tools
    expect(valueOf(await fromRoot({ name: 'echo', arguments: { text: 'b' } }))).toEqual({ text: 'b' })
    // Never throws, taken apart or not: a bad call is still an error result with a code.
    const unknown = await execute({ name: 'nope', arguments: {} })
    expect(unknown.isError && unknown.error.code).toBe('UNKNOWN_TOOL')
    fork.dispose()
  })

  it('builds no shadow context per call, where each read of another method (ctx.tools.get) still builds one', async () => {
    app.tools.register(echo('echo'))
    const fork = app.plugin({ name: 'caller', inject: ['tools'], apply() {} })
    // The plugin's own loading runs on later ticks (and reads services through proxies): let it finish.
    await app.events.flush()
    const tools = fork.ctx.tools
    const { execute } = tools
    // cordis makes each shadow through `Context#extend` (createShadow in @cordisjs/core's utils.ts).
    const extend = vi.spyOn(Context.prototype, 'extend')
    for (let i = 0; i < 5; i++) valueOf(await execute({ name: 'echo', arguments: { text: 'x' } }))
    expect(extend).toHaveBeenCalledTimes(0)
    for (let i = 0; i < 5; i++) expect(tools.get('echo')?.name).toBe('echo')
    expect(extend.mock.calls.length).toBeGreaterThanOrEqual(5)
    fork.dispose()
  })

  it('a read of ctx.tools.execute answers the runtime\'s own function: no shadow context, one proxy, a plain call', async () => {
    app.tools.register(echo('echo'))
    const fork = app.plugin({ name: 'caller', inject: ['tools'], apply() {} })
    await app.events.flush()
    const tools = fork.ctx.tools
    // Not a proxy around it: what a read returns is what `untracked` reaches.
    expect(tools.execute).toBe(untracked(tools).execute)
    expect(app.tools.execute).toBe(untracked(app.tools).execute)
    const extend = vi.spyOn(Context.prototype, 'extend')
    const proxies = countProxies()
    try {
      for (let i = 0; i < 5; i++) valueOf(await tools.execute({ name: 'echo', arguments: { text: 'x' } }))
    } finally {
      proxies.stop()
    }
    expect(extend).toHaveBeenCalledTimes(0)
    // cordis's tracing proxy still wraps its context in one proxy per read to hand over the
    // receiver (withProp in @cordisjs/core's utils.ts); before, a read made a shadow and two proxies.
    expect(proxies.count).toBe(5)
    fork.dispose()
  })

  it('an isolated runtime answers its own execute', async () => {
    app.tools.register(echo('outer'))
    const inner = app.isolate('tools')
    // A second runtime of its own in the same app (cordis loads one plugin object once per app).
    inner.plugin(class InnerTools extends ToolRuntime {}, {})
    await app.events.flush()
    inner.tools.register(echo('inner'))
    const fromInner = await inner.tools.execute({ name: 'inner', arguments: { text: 'in' } })
    expect(valueOf(fromInner)).toEqual({ text: 'in' })
    const outerFromInner = await inner.tools.execute({ name: 'outer', arguments: { text: 'x' } })
    expect(outerFromInner.isError && outerFromInner.error.code).toBe('UNKNOWN_TOOL')
    expect(valueOf(await app.tools.execute({ name: 'outer', arguments: { text: 'out' } }))).toEqual({ text: 'out' })
    expect(inner.tools.execute).not.toBe(app.tools.execute)
  })

  it('another app in the same process answers its own execute', async () => {
    app.tools.register(echo('first'))
    const other = new Context()
    other.plugin(ToolRuntime, {})
    await other.start()
    try {
      other.tools.register(echo('second'))
      expect(valueOf(await other.tools.execute({ name: 'second', arguments: { text: 's' } }))).toEqual({ text: 's' })
      const first = await other.tools.execute({ name: 'first', arguments: { text: 'f' } })
      expect(first.isError && first.error.code).toBe('UNKNOWN_TOOL')
      expect(other.tools.execute).not.toBe(app.tools.execute)
    } finally {
      await other.stop()
    }
  })

  it('leaves registrations owned by the caller: a plugin calling through its execute still loses its tools when it unloads', async () => {
    app.tools.register(echo('echo'))
    let execute: Context['tools']['execute'] | undefined
    const fork = app.plugin({
      name: 'owner',
      inject: ['tools'],
      apply(ctx: Context) {
        ;({ execute } = ctx.tools)
        ctx.tools.register(echo('owned'))
      },
    })
    expect(valueOf(await execute!({ name: 'owned', arguments: { text: 'mine' } }))).toEqual({ text: 'mine' })
    expect(app.tools.catalog({ all: true }).map((entry) => entry.name)).toEqual(['echo', 'owned'])
    fork.dispose()
    expect(app.tools.catalog({ all: true }).map((entry) => entry.name)).toEqual(['echo'])
    // The call itself belonged to no scope before either: the runtime outlives the caller.
    const after = await execute!({ name: 'owned', arguments: { text: 'gone' } })
    expect(after.isError && after.error.code).toBe('UNKNOWN_TOOL')
  })
})
