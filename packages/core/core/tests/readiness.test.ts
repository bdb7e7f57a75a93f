import { getEventListeners } from 'node:events'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ReadinessService, ToolRuntime, type Capability } from '../src/index.ts'
import { harnessThrow } from './helpers.ts'

let app: Context

beforeEach(async () => {
  app = new Context()
  app.plugin(ToolRuntime, {})
  app.plugin(ReadinessService, { probeTimeoutMs: 200 })
  await app.start()
})

afterEach(async () => {
  await app.stop()
})

const capability = (overrides: Partial<Capability> & { surface: string; id: string }): Capability => ({
  configured: true,
  status: () => ({ state: 'idle', detail: 'starts on first use' }),
  ...overrides,
})

describe('report', () => {
  it('lists capabilities with their surface tools, and tools no capability claims', async () => {
    app.readiness.register(capability({ surface: 'lsp', id: 'typescript' }))
    app.tools.register({ name: 'lsp', description: 'Code intelligence.', surface: 'lsp', input: z.object({}), execute: async () => ({}) })
    app.tools.register({ name: 'echo', description: 'Echo.', input: z.object({}), execute: async () => ({}) })
    expect(await app.readiness.report()).toEqual([
      { surface: 'lsp', id: 'typescript', configured: true, tools: ['lsp'], state: 'idle', detail: 'starts on first use' },
      { surface: 'tool', id: 'echo', configured: true, tools: ['echo'], state: 'ready', detail: '' },
    ])
  })

  it('probes a dozen capabilities listening on the one probe signal without a MaxListeners warning', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      for (let i = 0; i < 12; i++) {
        app.readiness.register(
          capability({
            surface: 'web',
            id: `provider-${i}`,
            probe: async ({ signal }) => {
              signal.addEventListener('abort', () => {}, { once: true })
              await new Promise((settle) => setImmediate(settle))
              return { state: 'ready', detail: '' }
            },
          }),
        )
      }
      expect(await app.readiness.report({ probe: true })).toHaveLength(12)
      // Node emits process warnings on a later tick.
      await new Promise((settle) => setImmediate(settle))
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('gives each probe a signal of its own, which the other probes do not listen on (issue 27 item 1)', async () => {
    const signals: AbortSignal[] = []
    const listening: number[] = []
    let arrived = 0
    let release!: () => void
    const allArrived = new Promise<void>((resolve) => (release = resolve))
    for (let i = 0; i < 12; i++) {
      app.readiness.register(
        capability({
          surface: 'web',
          id: `provider-${i}`,
          probe: async ({ signal }) => {
            signals.push(signal)
            signal.addEventListener('abort', () => {}, { once: true })
            if (++arrived === 12) release()
            await allArrived
            listening.push(getEventListeners(signal, 'abort').length)
            return { state: 'ready', detail: '' }
          },
        }),
      )
    }
    expect(await app.readiness.report({ probe: true })).toHaveLength(12)
    expect(new Set(signals).size).toBe(12)
    // Its own listener, and at most one of the report's: never the eleven other probes'.
    expect(Math.max(...listening)).toBeLessThanOrEqual(2)
  })

  it('the signal of an overrunning probe aborts with PROBE_TIMEOUT', async () => {
    let reason: unknown
    app.readiness.register(
      capability({
        surface: 'web',
        id: 'slow',
        probe: ({ signal }) =>
          new Promise((_, reject) => {
            signal.addEventListener('abort', () => {
              reason = signal.reason
              reject(signal.reason as Error)
            })
          }),
      }),
    )
    const [row] = await app.readiness.report({ probe: true })
    expect(row?.detail).toBe('PROBE_TIMEOUT after 200ms')
    expect((reason as { code?: string }).code).toBe('PROBE_TIMEOUT')
  })

  it('probes only when asked, passing the workspace', async () => {
    let probedWith: string | undefined
    app.readiness.register(
      capability({
        surface: 'web',
        id: 'search',
        probe: async (context) => {
          probedWith = context.cwd
          return { state: 'ready', detail: 'key found' }
        },
      }),
    )
    expect((await app.readiness.report())[0]?.state).toBe('idle')
    expect(probedWith).toBeUndefined()
    expect((await app.readiness.report({ probe: true, cwd: '/work/space' }))[0]).toMatchObject({ state: 'ready', detail: 'key found' })
    expect(probedWith).toBe('/work/space')
  })

  it('with a surface, reports and probes that surface only (dsh mcp list started the language servers its lsp rows probe)', async () => {
    const probed: string[] = []
    const probe = (name: string) => async () => {
      probed.push(name)
      return { state: 'ready' as const, detail: name }
    }
    app.readiness.register(capability({ surface: 'lsp', id: 'typescript', probe: probe('lsp') }))
    app.readiness.register(capability({ surface: 'mcp', id: 'fixture', probe: probe('mcp') }))
    app.tools.register({ name: 'mcp__gone__echo', description: 'Echo.', surface: 'mcp', input: z.object({}), execute: async () => ({}) })
    app.tools.register({ name: 'lsp', description: 'Code intelligence.', surface: 'lsp', input: z.object({}), execute: async () => ({}) })
    app.tools.register({ name: 'echo', description: 'Echo.', input: z.object({}), execute: async () => ({}) })
    const rows = await app.readiness.report({ probe: true, surface: 'mcp' })
    expect(rows.map((row) => [row.surface, row.id, row.state])).toEqual([['mcp', 'fixture', 'ready']])
    expect(probed).toEqual(['mcp'])
    // Without it, every surface as before.
    expect((await app.readiness.report({ probe: true })).map((row) => row.surface)).toEqual(['lsp', 'mcp', 'tool'])
  })

  it('reports a failing or overrunning probe as unavailable instead of failing the report', async () => {
    app.readiness.register(
      capability({
        surface: 'mcp',
        id: 'broken',
        probe: async () => {
          throw new Error('server binary missing')
        },
      }),
    )
    app.readiness.register(capability({ surface: 'mcp', id: 'hangs', probe: () => new Promise(() => {}) }))
    app.readiness.register(
      capability({
        surface: 'mcp',
        id: 'status-throws',
        status: () => {
          throw new Error('status exploded')
        },
      }),
    )
    const rows = await app.readiness.report({ probe: true })
    expect(rows.map((r) => [r.id, r.state])).toEqual([
      ['broken', 'unavailable'],
      ['hangs', 'unavailable'],
      ['status-throws', 'unavailable'],
    ])
    expect(rows[0]?.detail).toBe('server binary missing')
    expect(rows[2]?.detail).toBe('status exploded')
  })

  it('refuses a duplicate surface/id and removes a capability with its scope', async () => {
    const fork = app.plugin({ name: 'surface', inject: ['readiness'], apply: (ctx: Context) => void ctx.readiness.register(capability({ surface: 's', id: 'a' })) })
    expect(harnessThrow(() => app.readiness.register(capability({ surface: 's', id: 'a' }))).code).toBe('DUPLICATE_CAPABILITY')
    expect((await app.readiness.report()).map((r) => r.id)).toEqual(['a'])
    fork.dispose()
    expect(await app.readiness.report()).toEqual([])
  })
})
