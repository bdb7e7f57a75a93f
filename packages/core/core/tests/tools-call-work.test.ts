import { Context } from 'cordis'
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { currentSession, isRecord, type JsonValue, type ToolDefinition, type ToolExecution } from '../src/index.ts'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
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

describe('promises per call', () => {
  it('a quick call makes two promises of the runtime\'s own (its answer and the body\'s then), a refused call one of its own', async () => {
    // A body that answers with an already settled promise (its own, counted: 1).
    const answer = { text: 'a' }
    app.tools.register({ name: 'settled', description: 'answers at once', input: Input, ambientSession: false, execute: () => Promise.resolve(answer) } as ToolDefinition)
    const { execute } = app.tools
    const call = () => execute({ name: 'settled', arguments: { text: 'a' } })
    expect((await call()).isError).toBe(false)
    // Counted with the caller's await and the body's own promise: the call's promise and the body's
    // `then` in it are the runtime's. Was 7 (an async run, its await of the body's race, the race's
    // promise and its `then`).
    expect(await asyncInitsOf(call)).toBe(5)
    const refused = () => execute({ name: 'settled', arguments: { text: '' } })
    expect((await refused()).isError).toBe(true)
    // Refused before the body: the result, resolved at once (3 before as after, the caller's await included).
    expect(await asyncInitsOf(refused)).toBe(3)
  })
})

describe('freshValue', () => {
  /** A value shaped like the lsp tool's: a list of locations, each with a nested range. */
  const locations = () => ({
    kind: 'locations',
    total: 3,
    skipped: undefined,
    locations: [0, 1, 2].map((line) => ({ uri: 'file:///w/a.ts', range: { start: { line, character: 1 }, end: { line, character: 4 } }, lineText: 'const a = 1' })),
  })

  it('answers the body\'s own object frozen where it is: no copy of any part, where every part was copied', async () => {
    let answered: ReturnType<typeof locations> | undefined
    app.tools.register({ name: 'fresh', description: 'answers a value built for the call', input: z.strictObject({}), freshValue: true, execute: async () => (answered = locations()) } as unknown as ToolDefinition)
    const result = await app.tools.execute({ name: 'fresh', arguments: {} })
    const value = (result.isError ? undefined : result.value) as unknown as ReturnType<typeof locations>
    // The same objects, every one of them frozen; the undefined key gone, as a copy drops it.
    expect(value).toBe(answered)
    expect(value.locations).toBe(answered!.locations)
    expect(value.locations[2]!.range.end).toBe(answered!.locations[2]!.range.end)
    const parts = [value, value.locations, ...value.locations.flatMap((location) => [location, location.range, location.range.start, location.range.end])]
    expect(parts.every((part) => Object.isFrozen(part))).toBe(true)
    expect('skipped' in value).toBe(false)
    expect(JSON.stringify(value)).toBe(JSON.stringify(locations()))
  })

  it('keeps every check: a value that is not JSON is INVALID_TOOL_OUTPUT; a frozen or non-plain part is copied, not frozen in the body\'s hands', async () => {
    const shared = Object.freeze({ start: Object.freeze({ line: 1, character: 1 }), extra: undefined })
    let answered: { shared: typeof shared; list: number[] } | undefined
    app.tools.register({ name: 'fresh_shared', description: 'a value with a frozen shared part', input: z.strictObject({}), freshValue: true, execute: async () => (answered = { shared, list: [1] }) } as unknown as ToolDefinition)
    const result = await app.tools.execute({ name: 'fresh_shared', arguments: {} })
    const value = (result.isError ? undefined : result.value) as unknown as { shared: { start: object }; list: number[] }
    expect(value).toBe(answered)
    // The frozen part could not lose its undefined key in place: it is a copy without it.
    expect(value.shared).not.toBe(shared)
    expect(value.shared).toEqual({ start: { line: 1, character: 1 } })
    expect(Object.isFrozen(value.shared) && Object.isFrozen(value.list)).toBe(true)
    for (const [name, bad] of [['fresh_nan', { n: NaN }], ['fresh_date', { when: new Date(0) }], ['fresh_list', { list: [undefined] }]] as const) {
      app.tools.register({ name, description: 'answers something that is not JSON', input: z.strictObject({}), freshValue: true, execute: async () => bad } as unknown as ToolDefinition)
      const refused = await app.tools.execute({ name, arguments: {} })
      expect(refused.isError && refused.error.code).toBe('INVALID_TOOL_OUTPUT')
    }
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    app.tools.register({ name: 'fresh_cycle', description: 'answers a cycle', input: z.strictObject({}), freshValue: true, execute: async () => cycle } as unknown as ToolDefinition)
    const cyclic = await app.tools.execute({ name: 'fresh_cycle', arguments: {} })
    expect(cyclic.isError && cyclic.error.message).toBe('fresh_cycle returned a value that is not JSON: $.self is a cycle')
  })

  it('a sealed or non-extensible part (which no delete or assignment may change in place) is copied, not a TypeError', async () => {
    const sealed = Object.seal({ line: 1, gone: undefined })
    const closed = Object.preventExtensions([Object.freeze({ n: 1 })])
    app.tools.register({ name: 'fresh_sealed', description: 'a value with a sealed part', input: z.strictObject({}), freshValue: true, execute: async () => ({ sealed, closed }) } as unknown as ToolDefinition)
    const result = await app.tools.execute({ name: 'fresh_sealed', arguments: {} })
    expect(result.isError ? result.error : undefined).toBeUndefined()
    const value = (result.isError ? undefined : result.value) as unknown as { sealed: object; closed: object[] }
    expect([value.sealed, value.closed]).toEqual([{ line: 1 }, [{ n: 1 }]])
    expect(value.sealed).not.toBe(sealed)
    expect(value.closed).not.toBe(closed)
    expect(Object.isFrozen(value.sealed) && Object.isFrozen(value.closed)).toBe(true)
  })

  it('a value answered without it is still a copy the body can change without touching the result', async () => {
    let answered: ReturnType<typeof locations> | undefined
    app.tools.register({ name: 'copied', description: 'answers a value it may keep', input: z.strictObject({}), execute: async () => (answered = locations()) } as unknown as ToolDefinition)
    const result = await app.tools.execute({ name: 'copied', arguments: {} })
    expect(result.isError ? undefined : result.value).not.toBe(answered)
    expect(Object.isFrozen(answered)).toBe(false)
    expect(() => app.tools.register({ name: 'bad_fresh', description: 'x', input: z.strictObject({}), freshValue: 'yes', execute: async () => ({}) } as unknown as ToolDefinition)).toThrow(expect.objectContaining({ code: 'INVALID_TOOL', message: 'tool "bad_fresh": freshValue must be a boolean when given' }))
  })
})
