import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { lazy, type ToolDefinition } from '../src/index.ts'
import { useToolsApp } from './helpers.ts'

// Issue 27 item 5: start-up pays for what is built at import or registration and never used. A
// catalog (`dsh tools`) shows input schemas only; the output's JSON Schema is for a host relaying
// calls (dsh serve), so it is rendered when one first asks.

let app: Context

useToolsApp((created) => (app = created))

describe('lazy', () => {
  it('builds on the first call only, says whether it built, and retries after a throw', () => {
    let builds = 0
    const value = lazy(() => ({ n: ++builds }))
    expect(value.built).toBe(false)
    expect(builds).toBe(0)
    expect(value()).toBe(value())
    expect(builds).toBe(1)
    expect(value.built).toBe(true)
    let fail = true
    const flaky = lazy(() => {
      if (fail) throw new Error('not yet')
      return 'ok'
    })
    expect(() => flaky()).toThrow('not yet')
    expect(flaky.built).toBe(false)
    fail = false
    expect(flaky()).toBe('ok')
  })
})

describe("a tool's output JSON Schema", () => {
  /** An output schema that counts how often something looks inside it (rendering or parsing does). */
  function countedOutput(): { schema: z.ZodType; looks: () => number } {
    let looks = 0
    const schema = z.lazy(() => {
      looks++
      return z.object({ ok: z.boolean() })
    })
    return { schema, looks: () => looks }
  }

  it('is rendered when a host first asks for it: registering and listing the catalog leave it alone', () => {
    const { schema, looks } = countedOutput()
    app.tools.register({ name: 'probe', description: 'a probe', input: z.object({}), output: schema, execute: async () => ({ ok: true }) } as ToolDefinition)
    expect(app.tools.catalog().map((tool) => tool.name)).toContain('probe')
    expect(looks()).toBe(0)
    const published = app.tools.outputSchema('probe')
    expect(published).toMatchObject({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] })
    expect(Object.isFrozen(published)).toBe(true)
    expect(app.tools.outputSchema('probe')).toBe(published)
    expect(looks()).toBe(1)
  })

  it('stays unpublished for structuredOutput: false and for an output that is not an object', () => {
    app.tools.register({ name: 'plain', description: 'plain', input: z.object({}), output: z.object({ ok: z.boolean() }), structuredOutput: false, execute: async () => ({ ok: true }) } as ToolDefinition)
    app.tools.register({ name: 'text', description: 'text', input: z.object({}), output: z.string(), execute: async () => 'x' } as ToolDefinition)
    expect(app.tools.outputSchema('plain')).toBeUndefined()
    expect(app.tools.outputSchema('text')).toBeUndefined()
  })
})
