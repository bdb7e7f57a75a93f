import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ReadinessService, ToolRuntime, type Capability } from '../src/index.ts'

// Capability.tools(): a capability that serves only some tools of its surface (one MCP server of several).

let app: Context

beforeEach(async () => {
  app = new Context()
  app.plugin(ToolRuntime, {})
  app.plugin(ReadinessService, {})
  await app.start()
})

afterEach(async () => {
  await app.stop()
})

const server = (id: string, tools?: () => readonly string[]): Capability => ({
  surface: 'mcp',
  id,
  configured: true,
  status: () => ({ state: 'ready', detail: '' }),
  ...(tools ? { tools } : {}),
})

function register(name: string): void {
  app.tools.register({ name, description: `${name}.`, surface: 'mcp', parameters: { type: 'object' }, execute: async () => ({}) })
}

describe('Capability.tools', () => {
  it('lists only the tools a capability claims, sorted, read at report time', async () => {
    const served = { a: ['mcp__a__y', 'mcp__a__x'], b: ['mcp__b__x'] }
    app.readiness.register(server('a', () => served.a))
    app.readiness.register(server('b', () => served.b))
    for (const name of [...served.a, ...served.b]) register(name)
    const rows = await app.readiness.report()
    expect(rows.map((row) => [row.id, row.tools])).toEqual([
      ['a', ['mcp__a__x', 'mcp__a__y']],
      ['b', ['mcp__b__x']],
    ])
    served.b = []
    expect((await app.readiness.report()).find((row) => row.id === 'b')?.tools).toEqual([])
  })

  it('without tools(), a capability lists every tool of its surface (unchanged)', async () => {
    app.readiness.register(server('all'))
    register('mcp__a__x')
    register('mcp__b__x')
    expect((await app.readiness.report())[0]?.tools).toEqual(['mcp__a__x', 'mcp__b__x'])
  })
})
