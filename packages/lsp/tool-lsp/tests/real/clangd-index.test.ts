import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ToolResult } from 'dsh-core'
import { describe, expect, it, vi } from 'vitest'
import { realSuite, valueOf } from './harness.ts'

// clangd indexes only the files a compile_commands.json lists (compile_flags.txt lists none). In a
// project without one, a workspace search answered `No symbols match "area".` and incoming calls
// `no callers found` although main.c calls area, with no hint why, and `dsh status` read `ready`
// (found driving `dsh call lsp_symbols` and `lsp_calls`). The catalog's `workspaceIndex` names the
// files clangd needs; without any, an empty answer and the status probe say what to add.

const OVERLAY = `
- id: lsp-stdio
  config:
    catalog: [c]
    servers:
      c: { indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`

const textOf = (result: ToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')

describe('clangd without a compile_commands.json (real clangd)', () => {
  const suite = realSuite('c-rename', { overlay: OVERLAY })
  const call = (name: string, args: Record<string, unknown>) => suite.host.app.tools.execute({ name, arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
  const missing = () => `c: no compile_commands.json or build/compile_commands.json in ${suite.dir}: clangd then knows only the files open`

  it('says so, and what to add, on an empty workspace search', async () => {
    const search = await call('lsp_symbols', { query: 'area' })
    expect(valueOf(search).total).toBe(0)
    expect(valueOf(search).notes).toEqual([expect.stringContaining(missing())])
    expect(textOf(search)).toContain(`No symbols match "area".\n(${missing()}`)
    expect(textOf(search)).toContain('-DCMAKE_EXPORT_COMPILE_COMMANDS=ON')
  })

  it('says so in dsh status', async () => {
    const rows = await suite.host.app.readiness.report({ probe: true, cwd: suite.dir })
    const row = rows.find((candidate) => candidate.surface === 'lsp' && candidate.id === 'c')
    expect(row).toMatchObject({ state: 'ready', detail: expect.stringContaining(missing()) })
  })
})

// On a server of its own: the workspace search above opens a file to search from (main.c, the first
// in name order) for as long as the search takes. clangd keeps what it indexed of a file after the
// file is closed, so once it had built main.c's AST in that time it knew main.c's call to area; a
// burner run found callers that way (the search slower, the AST done before the close). Traced: a
// quiet search then calls found none 4 times out of 4; a hover on main.c (open until its AST answers)
// then calls found main every time. The case below shows both on one server: only shapes.c is open
// for the no-callers query, whatever the load, and the second half is the cause.
describe('clangd without a compile_commands.json, nothing else open (real clangd)', () => {
  const suite = realSuite('c-rename', { overlay: OVERLAY })
  const call = (name: string, args: Record<string, unknown>) => suite.host.app.tools.execute({ name, arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
  const missing = () => `c: no compile_commands.json or build/compile_commands.json in ${suite.dir}: clangd then knows only the files open`

  it('says so, and what to add, on no callers; a file clangd once had open is known after it closes', async () => {
    const calls = await call('lsp_calls', { filePath: 'shapes.c', line: 3, symbol: 'area', direction: 'incoming' })
    expect(textOf(calls)).toContain('no callers found')
    expect(valueOf(calls).notes).toEqual([expect.stringContaining(missing())])
    expect(textOf(calls)).toContain(`(${missing()}`)
    // main.c open (and closed) once, its AST built for the answer: clangd then knows its call (asked
    // until it does, in case its index takes the update after the answer).
    valueOf(await suite.call({ operation: 'hover', filePath: 'main.c', line: 5, character: 21 }))
    await vi.waitFor(async () => {
      const after = await call('lsp_calls', { filePath: 'shapes.c', line: 3, symbol: 'area', direction: 'incoming' })
      expect(textOf(after)).toContain('function main  main.c:4:5')
    }, { timeout: 120_000, interval: 200 })
  })
})

describe('clangd with a compile_commands.json (real clangd)', () => {
  const suite = realSuite('c-rename', {
    overlay: OVERLAY,
    prepare: (dir) => {
      const entry = (file: string) => ({ directory: dir, file: join(dir, file), arguments: ['cc', '-c', file] })
      writeFileSync(join(dir, 'compile_commands.json'), JSON.stringify([entry('shapes.c'), entry('main.c')]))
    },
  })
  const call = (name: string, args: Record<string, unknown>) => suite.host.app.tools.execute({ name, arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })

  it('finds the callers and says nothing of a missing one', async () => {
    const calls = await call('lsp_calls', { filePath: 'shapes.c', line: 3, symbol: 'area', direction: 'incoming' })
    expect(textOf(calls)).toContain('function main  main.c:4:5')
    expect(valueOf(calls).notes).toBeUndefined()
    const rows = await suite.host.app.readiness.report({ probe: true, cwd: suite.dir })
    expect(rows.find((candidate) => candidate.surface === 'lsp' && candidate.id === 'c')?.detail).not.toContain('no compile_commands.json')
  })
})
