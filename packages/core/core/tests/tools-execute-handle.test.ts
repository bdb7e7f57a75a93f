import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { ToolDefinition, ToolResult } from '../src/index.ts'
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

  it('builds no shadow context per call, where each read of ctx.tools.execute builds one', async () => {
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
    for (let i = 0; i < 5; i++) valueOf(await tools.execute({ name: 'echo', arguments: { text: 'x' } }))
    expect(extend.mock.calls.length).toBeGreaterThanOrEqual(5)
    fork.dispose()
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
