// The server catalog as config: `catalog: all | [ids]`, a row's own servers replacing (or, without
// a command, adjusting) catalog entries, and a catalog server that is not installed showing its install command.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Context, type ForkScope, type Plugin } from 'cordis'
import { settleTeardowns } from 'dsh-core'
import FileSystem from 'dsh-core/fs'
import Readiness from 'dsh-core/readiness'
import Subprocess from 'dsh-core/subprocess'
import LspService from 'dsh-lsp'
import { afterEach, describe, expect, it } from 'vitest'
import { SERVER_CATALOG } from '../src/catalog.ts'
import { LspStdioConfig } from '../src/config.ts'
import * as lspStdio from '../src/index.ts'
import { makeWorkspace, rejection } from './fixtures/rig.ts'

describe('catalog config', () => {
  it('all: one server per language, with the defaults of a written row', () => {
    const { servers } = LspStdioConfig.parse({ catalog: 'all' })
    expect(Object.keys(servers).sort()).toEqual(['c', 'css', 'dockerfile', 'go', 'html', 'json', 'python', 'rust', 'shell', 'typescript', 'yaml'])
    expect(servers.go).toMatchObject({ command: 'gopls', args: [], extensionToLanguage: { '.go': 'go' }, idleTimeoutMs: 600_000, install: expect.stringContaining('gopls') })
    expect(servers.typescript?.typescript).toBe('auto')
  })

  it('a list takes only those; the row’s own server of the same id replaces the catalog’s', () => {
    const { servers } = LspStdioConfig.parse({ catalog: ['go', 'basedpyright'], servers: { go: { command: '/opt/go/bin/gopls', extensionToLanguage: { '.go': 'go' } } } })
    expect(Object.keys(servers).sort()).toEqual(['basedpyright', 'go'])
    expect(servers.go).toMatchObject({ command: '/opt/go/bin/gopls' })
    expect(servers.go?.install).toBeUndefined()
  })

  it('the row’s own entry without a command adjusts the catalog’s, field by field; a whole bad entry still names its field', () => {
    const { servers } = LspStdioConfig.parse({ catalog: ['typescript'], servers: { typescript: { killGraceMs: 300, args: ['--stdio', '--log-level', '4'] } } })
    expect(servers.typescript).toMatchObject({ command: 'typescript-language-server', typescript: 'auto', killGraceMs: 300, args: ['--stdio', '--log-level', '4'], install: expect.any(String) })
    // Not a catalog entry the row takes: a server of its own, which needs a command.
    const error = (() => {
      try {
        LspStdioConfig.parse({ catalog: ['typescript'], servers: { go: { killGraceMs: 300 } } })
      } catch (caught) {
        return caught as { issues: { path: PropertyKey[] }[] }
      }
      throw new Error('parsed')
    })()
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['servers.go.command', 'servers.go.extensionToLanguage'])
  })

  it('refuses an unknown id, naming the field', () => {
    const error = (() => {
      try {
        LspStdioConfig.parse({ catalog: ['cobol'] })
      } catch (caught) {
        return caught as { issues: { path: PropertyKey[]; message: string }[] }
      }
      throw new Error('parsed')
    })()
    expect(error.issues[0]?.path).toEqual(['catalog'])
    expect(error.issues[0]?.message).toContain('"go"')
  })

  it('every entry is a valid server row with an install command', () => {
    for (const [id, entry] of Object.entries(SERVER_CATALOG)) expect(LspStdioConfig.parse({ servers: { [id]: entry.server } }).servers[id]?.install, id).toBeTruthy()
  })
})

describe('the catalog table in docs/lsp.md', () => {
  /** The rows of "## The server catalog": id, language, server, install, tested here. */
  function documentedRows(): string[][] {
    const docs = readFileSync(fileURLToPath(new URL('../../../../docs/lsp.md', import.meta.url)), 'utf8')
    const section = docs.slice(docs.indexOf('## The server catalog'))
    const table = section.slice(0, section.indexOf('\n## '))
    return table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| /, '').trim()))
  }

  it('lists every catalog entry once, with its language and its install command', () => {
    const rows = documentedRows()
    expect(rows.map(([id]) => id)).toEqual(Object.keys(SERVER_CATALOG).map((id) => `\`${id}\``))
    for (const [id, language, , install] of rows) {
      const entry = SERVER_CATALOG[id!.slice(1, -1)]!
      expect(language, id).toContain(entry.language)
      // The command itself, without the catalog's remarks: "npm install --save-dev yaml-language-server@1 (2.x needs Node 22)".
      expect(install, id).toContain(`\`${entry.server.install!.split(/ \(|, or /)[0]}\``)
    }
  })
})

describe('a catalog server that is not installed', () => {
  const apps: Context[] = []
  afterEach(async () => {
    for (const app of apps.splice(0)) {
      const subprocess = app.get('subprocess')
      await app.stop()
      await settleTeardowns(app)
      await subprocess?.shutdown()
    }
  })

  it('is an unavailable row with its install command, and its queries say it too; the load succeeds', async () => {
    const app = new Context()
    apps.push(app)
    app.plugin(FileSystem)
    app.plugin(Subprocess)
    app.plugin(Readiness)
    app.plugin(LspService)
    await app.start()
    // basedpyright is in the catalog but not installed here (its executables would shadow pyright's).
    const fork = (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(lspStdio as unknown as Plugin, { catalog: ['basedpyright'] })
    await app.events.flush()
    for (let i = 0; i < 500 && fork.status !== 2 && fork.status !== 3; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(fork.status).toBe(2)
    const rows = await app.readiness.report()
    expect(rows.find((row) => row.id === 'basedpyright')).toMatchObject({
      state: 'unavailable',
      detail: '`basedpyright-langserver` not found on PATH or in node_modules/.bin; install: npm install --save-dev basedpyright [.py .pyi]',
    })
    const ws = makeWorkspace({ 'a.py': 'x = 1\n' })
    const error = await rejection(app.lsp.query({ operation: 'hover', filePath: 'a.py', position: { line: 0, character: 0 }, workspaceRoot: ws }))
    expect(error).toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('install: npm install --save-dev basedpyright') })
  })
})
