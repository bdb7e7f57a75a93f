// [PROC] A row's filenameToLanguage: files known by name (no extension to route on) reach its
// server with the row's language id, a missing server still claims its names, and a name that is
// not a name fails the boot naming it.
import { join } from 'node:path'
import { bootPreset, type Host } from 'dsh-core'
import type { LspQueryRequest } from 'dsh-lsp'
import { afterEach, describe, expect, it } from 'vitest'
import { fakeEnv, fakeMessages, fakeServerPath, readFakeLog } from './fixtures/fake-config.ts'
import { cleanupRigs, FAST, makeWorkspace, rejection, tempDir, writePreset } from './fixtures/rig.ts'

const hosts: Host[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop()
  await cleanupRigs()
})

async function boot(servers: Record<string, unknown>): Promise<Host> {
  const host = await bootPreset({ preset: writePreset({ servers }) })
  hosts.push(host)
  return host
}

const hover = (workspaceRoot: string, filePath: string): LspQueryRequest => ({ operation: 'hover', filePath, position: { line: 0, character: 0 }, workspaceRoot })

describe('a row’s filenameToLanguage', () => {
  it('routes Makefile and GNUmakefile.* to its server, which opens them with the row’s language id; the status row lists the names', async () => {
    const ws = makeWorkspace({ Makefile: 'all:\n\techo hi\n', 'GNUmakefile.local': 'x:\n', 'rules.mk': 'y:\n' })
    const log = join(tempDir('lsp-stdio-filenames-'), 'fake.jsonl')
    const make = {
      command: process.execPath,
      args: [fakeServerPath],
      env: fakeEnv({ results: { 'textDocument/hover': { contents: 'make' } } }, log),
      extensionToLanguage: { '.mk': 'makefile' },
      filenameToLanguage: { Makefile: 'makefile', 'GNUmakefile.*': 'makefile' },
      ...FAST,
    }
    const host = await boot({ make })
    for (const file of ['Makefile', 'GNUmakefile.local', 'rules.mk']) expect(await host.app.lsp.query(hover(ws, file))).toMatchObject({ hover: { contents: 'make' } })
    const opened = fakeMessages(readFakeLog(log), 'in', 'textDocument/didOpen').map((message: any) => [message.params.textDocument.uri.split('/').pop(), message.params.textDocument.languageId])
    expect(opened).toEqual([
      ['Makefile', 'makefile'],
      ['GNUmakefile.local', 'makefile'],
      ['rules.mk', 'makefile'],
    ])
    const row = (await host.app.readiness.report()).find((candidate) => candidate.id === 'make')
    expect(row?.detail).toMatch(/\[\.mk Makefile GNUmakefile\.\*\]$/)
  })

  it('a server that is not installed still claims its names: status lists them, queries are LSP_UNAVAILABLE saying why', async () => {
    const ws = makeWorkspace({ Dockerfile: 'FROM scratch\n' })
    const host = await boot({ docker: { command: 'dsh-lsp-stdio-test-no-such-docker-langserver', extensionToLanguage: { '.dockerfile': 'dockerfile' }, filenameToLanguage: { Dockerfile: 'dockerfile' } } })
    const missing = '`dsh-lsp-stdio-test-no-such-docker-langserver` not found on PATH or in node_modules/.bin'
    expect((await host.app.readiness.report()).find((row) => row.id === 'docker')).toMatchObject({ state: 'unavailable', detail: `${missing} [.dockerfile Dockerfile]` })
    expect(await rejection(host.app.lsp.query(hover(ws, 'Dockerfile')))).toMatchObject({ code: 'LSP_UNAVAILABLE', message: `docker: the language server is unavailable: ${missing}` })
  })

  it('a key that is a path fails the boot with LSP_INVALID_PROVIDER naming it', async () => {
    const error = await rejection(boot({ make: { command: process.execPath, args: [fakeServerPath], extensionToLanguage: { '.mk': 'makefile' }, filenameToLanguage: { 'build/Makefile': 'makefile' } } }))
    expect(error.code).toBe('PRESET_PLUGIN_FAILED')
    expect(error.cause).toMatchObject({ code: 'LSP_INVALID_PROVIDER' })
    expect(error.message).toContain('"build/Makefile"')
  })
})
