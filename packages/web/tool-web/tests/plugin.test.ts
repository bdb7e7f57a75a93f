import { Context, type ForkScope, type Plugin } from 'cordis'
import ToolRuntime from 'dsh-core/tools'
import WebService from 'dsh-web'
import { afterEach, describe, expect, it } from 'vitest'
import * as toolWeb from '../src/index.ts'
import { boot, type Harness } from './harness.ts'

// The plugin module: switches, budgets, prompt sections, config checks (T01–T06, T10, T11).

let host: Harness | undefined
afterEach(async () => {
  await host?.stop()
  host = undefined
})

describe('tool-web', () => {
  it('a namespace plugin injecting tools and web (and the subprocess service when there is one: the converters)', () => {
    expect('default' in toolWeb).toBe(false)
    expect([toolWeb.name, toolWeb.inject]).toEqual(['tool-web', { tools: { required: true }, web: { required: true }, subprocess: { required: false } }])
  })

  it('T01, T04, T05: both tools by default, concurrency-safe, 30 s budgets; unloading removes them', async () => {
    host = await boot()
    expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['web_fetch', 'web_search'])
    for (const name of ['web_fetch', 'web_search']) {
      expect(host.app.tools.get(name)).toMatchObject({ timeoutMs: 30_000, concurrencySafe: true, surface: 'web' })
    }
    host.toolFork.dispose()
    expect(host.app.tools.catalog()).toEqual([])
    expect(host.app.tools.sections()).toEqual([])
  })

  it('T05: budgets are configurable', async () => {
    host = await boot({ fetchTimeoutMs: 60_000, searchTimeoutMs: 10_000 })
    expect([host.app.tools.get('web_fetch')?.timeoutMs, host.app.tools.get('web_search')?.timeoutMs]).toEqual([60_000, 10_000])
  })

  it('T02, T10, T11: the switches decide registration and the prompt; search-only never mentions web_fetch', async () => {
    host = await boot()
    expect(host.prompt()).toContain('follow up with web_fetch')
    expect(host.app.tools.sections().map((section) => [section.name, section.order])).toEqual([
      ['tool:web_search', 110],
      ['tool:web_fetch', 111],
    ])
    await host.stop()
    host = await boot({ fetch: false })
    expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['web_search'])
    expect(host.prompt()).not.toContain('web_fetch')
    expect(host.prompt()).toContain('Use the returned source snippets when available')
    await host.stop()
    host = await boot({ search: false })
    expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['web_fetch'])
  })

  it('T06: bad numbers fail the load with the reference message', () => {
    for (const key of ['searchMaxResults', 'searchMaxQueries', 'fetchMaxOutputChars', 'fetchMaxElements', 'searchTimeoutMs', 'fetchTimeoutMs']) {
      for (const bad of [0, -1, 1.5]) expect(() => toolWeb.Config({ [key]: bad }), `${key} ${bad}`).toThrow(`tool-web: ${key} must be a positive integer`)
    }
    expect(() => toolWeb.Config({ searchTimeoutMs: 2_147_483_648 })).toThrow('searchTimeoutMs')
    expect(() => toolWeb.Config({ fetchh: true })).toThrow('fetchh')
    expect(toolWeb.Config(undefined)).toEqual({ search: true, fetch: true, searchMaxResults: 8, searchMaxQueries: 4, searchMaxQueryChars: 1_000, searchMaxOutputChars: 40_000, searchTimeoutMs: 30_000, fetchTimeoutMs: 30_000, fetchMainContent: false, cacheTtlMs: 900_000, cacheMaxBytes: 50_000_000, fetchMaxOutputChars: 200_000, fetchMaxElements: 50_000, conversionWorkers: 2, conversionWorkerMinChars: 8_192, conversionMaxMemoryMb: 1_024 })
    for (const bad of [-1, 1.5, 17]) expect(() => toolWeb.Config({ conversionWorkers: bad }), `conversionWorkers ${bad}`).toThrow('tool-web: conversionWorkers must be an integer from 0 to 16')
    expect(() => toolWeb.Config({ conversionWorkerMinChars: -1 })).toThrow('tool-web: conversionWorkerMinChars must be a non-negative integer')
    expect(() => toolWeb.Config({ conversionMaxMemoryMb: 0 })).toThrow('tool-web: conversionMaxMemoryMb must be a positive integer')
  })

  it('a direct apply() validates too', async () => {
    const app = new Context()
    app.plugin(ToolRuntime)
    ;(app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(WebService as unknown as Plugin, {})
    await app.start()
    expect(() => toolWeb.apply(app, { searchMaxResults: 0 } as toolWeb.ToolWebConfig)).toThrow('searchMaxResults')
    expect(app.tools.catalog()).toEqual([])
    await app.stop()
  })
})
