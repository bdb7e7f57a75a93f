import { Context } from 'cordis'
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { currentSession, isRecord, type JsonValue, type ToolDefinition, type ToolExecution } from '../src/index.ts'
import { useToolsApp } from './helpers.ts'

// Issue 27 item 2: the runtime's own work per call, counted (schema parses, walks), never timed.

let app: Context

useToolsApp((created) => (app = created))

afterEach(() => {
  vi.restoreAllMocks()
})

const Input = z.strictObject({ text: z.string().min(1) })

function quickTool(quickArgs: (args: JsonValue) => { text: string } | undefined): ToolDefinition {
  return { name: 'quick', description: 'a tool with a quick check', input: Input, quickArgs, execute: async ({ text }: { text: string }) => ({ text }) } as ToolDefinition
}

describe('quickArgs', () => {
  it('answers for the arguments it takes, and the schema is not parsed; otherwise the schema decides and words the error', async () => {
    const quick = vi.fn((args: JsonValue) => {
      const record = args as { readonly text?: unknown }
      return isRecord(args) && Object.keys(args).length === 1 && typeof record.text === 'string' && record.text ? (args as { text: string }) : undefined
    })
    app.tools.register(quickTool(quick))
    const parses = vi.spyOn(Input, 'safeParse')
    const ok = await app.tools.execute({ name: 'quick', arguments: { text: 'a' } })
    expect(ok.isError ? ok.error : ok.value).toEqual({ text: 'a' })
    expect(parses).toHaveBeenCalledTimes(0)
    // It sees the frozen copy, never the caller's object.
    const given = { text: 'b' }
    await app.tools.execute({ name: 'quick', arguments: given })
    expect(quick.mock.calls.at(-1)![0]).not.toBe(given)
    expect(Object.isFrozen(quick.mock.calls.at(-1)![0])).toBe(true)
    const bad = await app.tools.execute({ name: 'quick', arguments: { text: '' } })
    expect(bad.isError && bad.error.code).toBe('INVALID_ARGS')
    expect(bad.isError && bad.error.message).toMatch(/^invalid arguments for quick: text: /)
    expect(parses).toHaveBeenCalledTimes(1)
  })

  it('is refused at registration when it is not a function', () => {
    expect(() => app.tools.register({ ...quickTool(() => undefined), quickArgs: 'yes' } as unknown as ToolDefinition)).toThrow(expect.objectContaining({ code: 'INVALID_TOOL' }))
  })
})

describe('ambientSession', () => {
  function sessionTool(ambientSession: boolean | undefined): ToolDefinition {
    return {
      name: 'where',
      description: 'tells which session it runs in',
      input: z.strictObject({}),
      ...(ambientSession === undefined ? {} : { ambientSession }),
      execute: async (_args: object, exec: ToolExecution) => ({ ambient: currentSession()?.id ?? null, explicit: exec.session?.id ?? null }),
    } as ToolDefinition
  }

  it('false: the body runs outside the ambient session (no AsyncLocalStorage entered, so no async hooks), and still gets its session from exec', async () => {
    app.tools.register(sessionTool(false))
    const session = app.sessions.create({ cwd: process.cwd() })
    const entered = vi.spyOn(AsyncLocalStorage.prototype, 'run')
    const result = await app.tools.execute({ name: 'where', arguments: {}, session })
    expect(result.isError ? result.error : result.value).toEqual({ ambient: null, explicit: session.id })
    expect(entered).toHaveBeenCalledTimes(0)
  })

  it('by default the body, and what it awaits, sees the call as the current session', async () => {
    app.tools.register(sessionTool(undefined))
    const session = app.sessions.create({ cwd: process.cwd() })
    const result = await app.tools.execute({ name: 'where', arguments: {}, session })
    expect(result.isError ? result.error : result.value).toEqual({ ambient: session.id, explicit: session.id })
  })

  it('is refused at registration when it is not a boolean', () => {
    expect(() => app.tools.register({ ...sessionTool(undefined), ambientSession: 'no' } as unknown as ToolDefinition)).toThrow(expect.objectContaining({ code: 'INVALID_TOOL' }))
  })
})
