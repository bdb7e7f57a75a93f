import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { z } from 'zod'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { FileSystem, quote, ToolRuntime, type Workspace } from '../src/index.ts'
import { harnessRejection, removeTempDirs, tempDir } from './helpers.ts'

// Issue 16, item 3: an error repeats a caller's value at most once and bounded, so a megabyte
// argument cannot come back whole (three times, in one case) and make the reply larger than clients accept.

const HUGE = 'a'.repeat(1_000_000)

describe('quote', () => {
  it('keeps short values whole and cuts long ones with an ellipsis and the whole length', () => {
    expect(quote('src/a.ts')).toBe('"src/a.ts"')
    expect(quote(7)).toBe('7')
    const cut = quote(HUGE)
    expect(cut).toBe(`"${'a'.repeat(199)}…" (1000000 characters)`)
    expect(quote({ list: [HUGE] }, 20)).toMatch(/^\{"list":\["a+… \(1000013 characters as JSON\)$/)
    expect(quote('😀'.repeat(300), 10)).not.toMatch(/[\uD800-\uDBFF]…/)
    expect(quote(undefined)).toBe('undefined')
  })
})

describe('bounded echoes in ctx.fs errors', () => {
  let app: Context
  let workspace: Workspace

  beforeAll(async () => {
    app = new Context()
    app.plugin(FileSystem)
    await app.start()
    const dir = await tempDir()
    await mkdir(join(dir, 'ws'))
    workspace = await app.fs.workspace(join(dir, 'ws'))
  })

  afterAll(async () => {
    await app.stop()
    await removeTempDirs()
  })

  it.each([
    ['a name too long for the system', () => app.fs.readContainedText(workspace, `${HUGE}.ts`, { maxBytes: 1000 })],
    ['a path outside the workspace', () => app.fs.contained(workspace, `/${HUGE}`)],
    ['a missing file', () => app.fs.readText(join(workspace.path, `${'b'.repeat(200)}/${'c'.repeat(200)}.ts`), { maxBytes: 10 })],
    ['a missing workspace', () => app.fs.workspace(`/nowhere/${HUGE}`)],
  ])('%s', async (_what, call) => {
    const error = await harnessRejection(call())
    expect(error.message.length, error.message.slice(0, 300)).toBeLessThan(1000)
  })
})

describe('bounded echoes in the tools runtime', () => {
  let app: Context

  afterEach(async () => {
    await app?.stop()
  })

  it('an unknown tool name is quoted, bounded', async () => {
    app = new Context()
    app.plugin(ToolRuntime)
    await app.start()
    const result = await app.tools.execute({ name: HUGE, arguments: {} })
    expect(result.isError && result.error.code).toBe('UNKNOWN_TOOL')
    expect(result.isError && result.error.message).toBe(`no tool named ${quote(HUGE)}`)
  })

  it('INVALID_ARGS lists at most ten problems, each cut short, however bad the arguments', async () => {
    app = new Context()
    app.plugin(ToolRuntime)
    await app.start()
    app.tools.register({ name: 'strict', description: 'Takes a list of numbers.', input: z.strictObject({ numbers: z.array(z.number()) }), execute: async () => ({}) })
    const many = await app.tools.execute({ name: 'strict', arguments: { numbers: Array.from({ length: 1000 }, () => 'x') } })
    expect(many.isError && many.error.message).toMatch(/; and 990 more$/)
    expect(many.isError && many.error.message.length).toBeLessThan(2000)
    const key = await app.tools.execute({ name: 'strict', arguments: { numbers: [], [HUGE]: 1 } })
    expect(key.isError && key.error.code).toBe('INVALID_ARGS')
    expect(key.isError && key.error.message.length).toBeLessThan(1000)
  })
})
