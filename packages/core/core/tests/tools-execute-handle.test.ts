import { Context, ReflectService } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ToolRuntime, untracked, type ToolDefinition, type ToolResult } from '../src/index.ts'
import { useToolsApp } from './helpers.ts'

// Issue 27 item 3: cordis's caller tracking built a shadow context and proxies each time a member of
// `ctx.tools` was read (docs/architecture.md, "Helpers"). The runtime is answered as a property of
// the app's root, as cordis answers its own built-in services: a read builds nothing, and what the
// tracking is for on `ctx.tools` (registrations owned by the caller's scope) stays as it was.

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

  it('builds no shadow context per call, nor per read of another method (ctx.tools.get)', async () => {
    app.tools.register(echo('echo'))
    const fork = app.plugin({ name: 'caller', inject: ['tools'], apply() {} })
    // The plugin's own loading runs on later ticks (and reads services through proxies): let it finish.
    await app.events.flush()
    const tools = fork.ctx.tools
    const { execute } = tools
    // cordis makes each shadow through `Context#extend` (createShadow in @cordisjs/core's utils.ts).
    const extend = vi.spyOn(Context.prototype, 'extend')
    for (let i = 0; i < 5; i++) valueOf(await execute({ name: 'echo', arguments: { text: 'x' } }))
    for (let i = 0; i < 5; i++) expect(tools.get('echo')?.name).toBe('echo')
    // Before the runtime was answered as a root property with `ctx` an accessor, each `get` read built one.
    expect(extend).toHaveBeenCalledTimes(0)
    fork.dispose()
  })

  it('a read of a member of a held ctx.tools builds nothing: no shadow context, no proxy, the runtime\'s own function', async () => {
    app.tools.register(echo('echo'))
    const fork = app.plugin({ name: 'caller', inject: ['tools'], apply() {} })
    await app.events.flush()
    const tools = fork.ctx.tools
    const fromRoot = app.tools
    // Not a proxy around it: what a read returns is what `untracked` reaches.
    expect(tools.execute).toBe(untracked(tools).execute)
    expect(fromRoot.execute).toBe(untracked(fromRoot).execute)
    const extend = vi.spyOn(Context.prototype, 'extend')
    const proxies = countProxies()
    const names: (string | undefined)[] = []
    try {
      for (let i = 0; i < 5; i++) valueOf(await tools.execute({ name: 'echo', arguments: { text: 'x' } }))
      for (let i = 0; i < 5; i++) valueOf(await fromRoot.execute({ name: 'echo', arguments: { text: 'y' } }))
      // A method read that is not `execute` is handed over as it is too.
      for (let i = 0; i < 5; i++) names.push(tools.get('echo')?.name)
    } finally {
      proxies.stop()
    }
    expect(names).toEqual(Array(5).fill('echo'))
    expect(extend).toHaveBeenCalledTimes(0)
    // Before: one proxy per `execute` read (cordis's withProp handing over the receiver, two closures
    // renamed by Object.defineProperty with it), a shadow context and two proxies per `get` read.
    expect(proxies.count).toBe(0)
    fork.dispose()
  })

  it('ctx.tools read per call from a plugin: one tracing proxy, the inject check once per context', async () => {
    app.tools.register(echo('echo'))
    const fork = app.plugin({ name: 'caller', inject: ['tools'], apply() {} })
    await app.events.flush()
    // cordis's inject check: its context handler calls it (with a new Error) on each service read.
    const checks = vi.spyOn(ReflectService, 'checkInject')
    // The first read from a context runs the check (its bail builds proxies of its own).
    valueOf(await fork.ctx.tools.execute({ name: 'echo', arguments: { text: 'first' } }))
    expect(checks).toHaveBeenCalledTimes(1)
    const proxies = countProxies()
    try {
      for (let i = 0; i < 5; i++) valueOf(await fork.ctx.tools.execute({ name: 'echo', arguments: { text: 'x' } }))
    } finally {
      proxies.stop()
    }
    // Before: the check (and its Error) on every read, and proxies of `reflect`, a shadow's and the
    // method proxy around `execute` besides the runtime's own tracing proxy.
    expect(checks).toHaveBeenCalledTimes(1)
    expect(proxies.count).toBe(5)
    fork.dispose()
  })

  it('keeps cordis\'s warning for a plugin that reads ctx.tools without injecting it', async () => {
    const warnings: string[] = []
    app.on('internal/warning', (error: Error) => void warnings.push(error.message))
    let undeclared: Context | undefined
    const fork = app.plugin({ name: 'undeclared', apply: (ctx: Context) => void (undeclared = ctx) })
    const declared = app.plugin({ name: 'declared', inject: ['tools'], apply() {} })
    await app.events.flush()
    for (let i = 0; i < 3; i++) expect(typeof declared.ctx.tools.execute).toBe('function')
    expect(warnings).toEqual([])
    for (let i = 0; i < 3; i++) expect(typeof undeclared!.tools.execute).toBe('function')
    expect(warnings).toEqual(['property tools is not registered, declare it as `inject` to suppress this warning'])
    fork.dispose()
    declared.dispose()
  })

  it('a registration through a held ctx.tools, made after apply, is still the caller\'s: it goes when the caller unloads', async () => {
    const fork = app.plugin({ name: 'later', inject: ['tools'], apply() {} })
    await app.events.flush()
    const tools = fork.ctx.tools
    tools.register(echo('later'))
    tools.registerAll([echo('later2')])
    expect(app.tools.catalog({ all: true }).map((entry) => entry.name)).toEqual(['later', 'later2'])
    fork.dispose()
    expect(app.tools.catalog({ all: true }).map((entry) => entry.name)).toEqual([])
  })

  it('answers no runtime once it unloads, and the next one loaded', async () => {
    const other = new Context()
    const first = other.plugin(ToolRuntime, {})
    await other.start()
    try {
      other.tools.register(echo('one'))
      first.dispose()
      expect(other.tools).toBeUndefined()
      other.plugin(ToolRuntime, {})
      await other.events.flush()
      expect(other.tools.catalog({ all: true })).toEqual([])
      other.tools.register(echo('two'))
      expect(valueOf(await other.tools.execute({ name: 'two', arguments: { text: '2' } }))).toEqual({ text: '2' })
    } finally {
      await other.stop()
    }
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
