import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createUserMessage, SessionService, ToolRuntime, TOOL_SEARCH, TOOLS_LOADED_EVENT, type DeferMode, type FoundTool, type JsonObject, type ToolDefinition } from '../src/index.ts'

// Deferred tools: past the `defer` budget, deferrable tools leave the catalog and `tool_search` loads them per session.

let app: Context | undefined

afterEach(async () => {
  await app?.stop()
  app = undefined
})

async function start(config: JsonObject = {}): Promise<Context> {
  app = new Context()
  app.plugin(ToolRuntime, config)
  app.plugin(SessionService)
  await app.start()
  return app
}

function tool(name: string, defer: DeferMode | undefined, description = `the ${name} tool`, parameters: JsonObject = { type: 'object', properties: {} }): ToolDefinition {
  return { name, description, parameters, ...(defer ? { defer } : {}), execute: async (args) => ({ ran: name, args }) }
}

/** A bridged server's worth of tools named like MCP ones: `mcp__<server>__<verb>_<n>`. */
function serverTools(server: string, count: number, defer: DeferMode = 'auto'): ToolDefinition[] {
  return Array.from({ length: count }, (_, i) => tool(`mcp__${server}__item_${String(i).padStart(3, '0')}`, defer, `Reads item number ${i} of the ${server} store`))
}

async function search(ctx: Context, query: string, session = ctx.sessions.create({ cwd: '/' }), limit?: number) {
  const result = await ctx.tools.execute({ name: TOOL_SEARCH, arguments: { query, ...(limit ? { limit } : {}) }, session })
  if (result.isError) throw new Error(result.error.message)
  return { session, value: result.value as { tools: FoundTool[]; notFound: string[] }, text: result.content[0]!.text }
}

const names = (entries: readonly { name: string }[]) => entries.map((entry) => entry.name)

describe('the catalog under the defer budget', () => {
  it('lists every tool and no tool_search while the deferrable ones stay within the budget', async () => {
    const ctx = await start()
    ctx.tools.registerAll([tool('read', undefined), ...serverTools('small', 10)])
    expect(names(ctx.tools.catalog())).not.toContain(TOOL_SEARCH)
    expect(ctx.tools.catalog()).toHaveLength(11)
    expect(ctx.tools.get(TOOL_SEARCH)).toBeUndefined()
    expect(ctx.tools.sections().map((section) => section.name)).not.toContain(`tool:${TOOL_SEARCH}`)
  })

  it('past aboveTools withholds every auto tool, keeps never tools, and lists tool_search after them', async () => {
    const ctx = await start({ defer: { aboveTools: 20 } })
    ctx.tools.registerAll([tool('zz_local', undefined), tool('aa_local', 'never'), ...serverTools('big', 21)])
    expect(names(ctx.tools.catalog())).toEqual(['aa_local', 'zz_local', TOOL_SEARCH])
    expect(ctx.tools.catalog({ all: true })).toHaveLength(23)
    expect(names(ctx.tools.catalog({ all: true }))).not.toContain(TOOL_SEARCH)
    const section = ctx.tools.sections().find((entry) => entry.name === `tool:${TOOL_SEARCH}`)
    expect(section?.text).toContain('21 more tools')
    expect(section?.text).toContain('mcp__big__ (21)')
  })

  it('past aboveChars withholds them too, however few they are', async () => {
    const ctx = await start({ defer: { aboveChars: 1000 } })
    ctx.tools.registerAll([tool('mcp__fat__one', 'auto', 'x'.repeat(1200))])
    expect(names(ctx.tools.catalog())).toEqual([TOOL_SEARCH])
  })

  it('always tools are deferred under the budget; defer.enabled false lists everything', async () => {
    const ctx = await start()
    ctx.tools.registerAll([tool('shy', 'always'), tool('open', 'auto')])
    expect(names(ctx.tools.catalog())).toEqual(['open', TOOL_SEARCH])
    await ctx.stop()
    const off = await start({ defer: { enabled: false } })
    off.tools.registerAll([tool('shy', 'always'), ...serverTools('big', 80)])
    expect(off.tools.catalog()).toHaveLength(81)
    expect(off.tools.get(TOOL_SEARCH)).toBeUndefined()
  })

  it('refuses a tool named tool_search and an unknown defer mode', async () => {
    const ctx = await start()
    expect(() => ctx.tools.register(tool(TOOL_SEARCH, undefined))).toThrow(expect.objectContaining({ code: 'DUPLICATE_TOOL' }))
    expect(() => ctx.tools.register(tool('odd', 'sometimes' as DeferMode))).toThrow(expect.objectContaining({ code: 'INVALID_TOOL' }))
  })

  it('returns to the full listing when the deferred tools go away', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    const dispose = ctx.tools.registerAll(serverTools('gone', 6))
    ctx.tools.register(tool('stay', undefined))
    expect(names(ctx.tools.catalog())).toEqual(['stay', TOOL_SEARCH])
    dispose()
    expect(names(ctx.tools.catalog())).toEqual(['stay'])
  })
})

describe('tool_search', () => {
  it('puts the exact full name first and loads it into that session only, appended in load order', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll([tool('local', undefined), ...serverTools('a', 30), ...serverTools('b', 30)])
    const before = names(ctx.tools.catalog())
    const { session, value } = await search(ctx, 'mcp__b__item_007')
    expect(value.tools[0]).toMatchObject({ name: 'mcp__b__item_007', status: 'loaded', parameters: { type: 'object' } })
    await search(ctx, 'mcp__a__item_002', session)
    const after = names(ctx.tools.catalog({ session }))
    expect(after.slice(0, before.length)).toEqual(before)
    expect(names(value.tools)).toEqual(['mcp__b__item_007'])
    expect(after.slice(before.length)).toEqual(['mcp__b__item_007', 'mcp__a__item_002'])
    expect(names(ctx.tools.catalog({ session: ctx.sessions.create({ cwd: '/' }) }))).toEqual(before)
    const facts = session.events.filter((event) => event.type === TOOLS_LOADED_EVENT)
    expect(facts[0]?.data).toEqual({ names: names(value.tools) })
  })

  it('finds a tool by the server\'s own name, ahead of anything ranked, in every case', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll([...serverTools('a', 40), tool('mcp__gh__create_issue', 'auto', 'Opens an issue in a repository'), tool('mcp__gh__create_issue_comment', 'auto', 'Comments on an issue')])
    for (const query of ['create_issue', 'CREATE_ISSUE', 'mcp__gh__create_issue', 'MCP__GH__CREATE_ISSUE']) {
      const { value } = await search(ctx, query)
      expect(value.tools[0]?.name, query).toBe('mcp__gh__create_issue')
    }
  })

  it('select: loads the named tools and says which names it does not know', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll([tool('listed', undefined), ...serverTools('a', 10)])
    const { session, value, text } = await search(ctx, 'select:mcp__a__item_001, item_002 ,listed,nope')
    expect(names(value.tools)).toEqual(['mcp__a__item_001', 'mcp__a__item_002', 'listed'])
    expect(value.tools.map((found) => found.status)).toEqual(['loaded', 'loaded', 'available'])
    expect(value.notFound).toEqual(['nope'])
    expect(text).toContain('No tool named "nope"')
    expect(names(ctx.tools.catalog({ session })).slice(-2)).toEqual(['mcp__a__item_001', 'mcp__a__item_002'])
  })

  it('ranks words over names, descriptions and parameter names, within the limit', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll([
      ...serverTools('noise', 30),
      tool('mcp__git__log', 'auto', 'Shows the commit history of a branch'),
      tool('mcp__pg__run', 'auto', 'Runs a statement', { type: 'object', properties: { sqlQuery: { type: 'string' } } }),
      tool('mcp__cal__createEvent', 'auto', 'Adds a meeting'),
    ])
    expect(names((await search(ctx, 'commit history')).value.tools)[0]).toBe('mcp__git__log')
    expect(names((await search(ctx, 'sql')).value.tools)[0]).toBe('mcp__pg__run')
    expect(names((await search(ctx, 'create event')).value.tools)[0]).toBe('mcp__cal__createEvent')
    expect((await search(ctx, 'item store', undefined, 3)).value.tools).toHaveLength(3)
    const none = await search(ctx, 'zzqx')
    expect(none.value.tools).toEqual([])
    expect(none.text).toContain('No tool matches')
  })

  it('a deferred tool runs when called by its exact name without a search', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll(serverTools('a', 10))
    const result = await ctx.tools.execute({ name: 'mcp__a__item_004', arguments: { x: 1 } })
    expect(result).toMatchObject({ isError: false, value: { ran: 'mcp__a__item_004', args: { x: 1 } } })
  })

  it('tells tools/change listeners when a search grew a catalog, and not when it loaded nothing new', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll(serverTools('a', 10))
    let changes = 0
    ctx.on('tools/change', () => void changes++)
    const { session } = await search(ctx, 'mcp__a__item_001')
    expect(changes).toBe(1)
    await search(ctx, 'mcp__a__item_001', session)
    expect(changes).toBe(1)
  })

  it('re-indexes after the registry changes', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll(serverTools('a', 10))
    expect((await search(ctx, 'telescope')).value.tools).toEqual([])
    ctx.tools.register(tool('mcp__sky__aim', 'auto', 'Points the telescope'))
    expect(names((await search(ctx, 'telescope')).value.tools)).toEqual(['mcp__sky__aim'])
  })

  it('rejects an empty query as INVALID_ARGS', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll(serverTools('a', 10))
    const result = await ctx.tools.execute({ name: TOOL_SEARCH, arguments: { query: '  ' } })
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
  })
})

describe('a loaded tool that goes away', () => {
  it('leaves the session catalog and is named to that session\'s model once, before its next request', async () => {
    const ctx = await start({ defer: { aboveTools: 5 } })
    ctx.tools.registerAll(serverTools('keep', 6))
    const dispose = ctx.tools.registerAll(serverTools('gone', 3))
    const { session } = await search(ctx, 'select:mcp__gone__item_001,mcp__keep__item_002')
    const other = ctx.sessions.create({ cwd: '/' })
    dispose()
    expect(names(ctx.tools.catalog({ session })).slice(-1)).toEqual(['mcp__keep__item_002'])
    const step = async (target = session) => {
      const decision = await ctx.sessions.runPreStep(target, [createUserMessage('next', { kind: 'user' })])
      return decision.kind === 'enter' ? decision.messages : []
    }
    const first = await step()
    expect(first.map((message) => message.source.kind)).toEqual(['user', 'tools-vanished'])
    expect(first[1]?.content[0]?.text).toContain('mcp__gone__item_001')
    expect(first[1]?.content[0]?.text).not.toContain('mcp__keep__item_002')
    expect((await step()).map((message) => message.source.kind)).toEqual(['user'])
    expect((await step(other)).map((message) => message.source.kind)).toEqual(['user'])
  })
})

describe('zod-typed tools', () => {
  it('defer works on zod-typed tools and their parameter names are searchable', async () => {
    const ctx = await start({ defer: { aboveTools: 0 } })
    ctx.tools.register({ name: 'weather', description: 'Forecast', input: z.object({ latitude: z.number() }), defer: 'auto', execute: async () => ({}) })
    expect(names((await search(ctx, 'latitude')).value.tools)).toEqual(['weather'])
  })
})
