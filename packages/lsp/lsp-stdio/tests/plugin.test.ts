// [PROC]/[FS] The plugin as a preset row and as a cordis plugin: transactional activation (every
// command resolved first, all providers register or none do), routing through ctx.lsp, readiness
// rows, and teardown that leaves no server process behind (reference lsp.md §3.2, checklist
// 127, 151–167 adapted).
import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context, type ForkScope, type Plugin } from 'cordis'
import { bootPreset, PresetError, settleTeardowns, type Host } from 'dsh-core'
import FileSystem from 'dsh-core/fs'
import Subprocess from 'dsh-core/subprocess'
import LspService, { type LspQueryRequest } from 'dsh-lsp'
import { afterEach, describe, expect, it } from 'vitest'
import * as lspStdio from '../src/index.ts'
import { fakeEnv, fakeEvents, fakeServerPath, readFakeLog, type FakeLspConfig } from './fixtures/fake-config.ts'
import { cleanupRigs, FAST, isAlive, makeWorkspace, rejection, tempDir, writePreset } from './fixtures/rig.ts'

const hosts: Host[] = []
const apps: Context[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop()
  for (const app of apps.splice(0)) {
    const subprocess = app.get('subprocess')
    await app.stop()
    await settleTeardowns(app)
    await subprocess?.shutdown()
  }
  await cleanupRigs()
})

/** A server entry running the fake with its own log file. */
function fakeServer(fake: FakeLspConfig = {}, extensions: Record<string, string> = { '.ts': 'typescript' }, extra: Record<string, unknown> = {}) {
  const log = join(tempDir('lsp-stdio-plugin-log-'), 'fake.jsonl')
  return { log, config: { command: process.execPath, args: [fakeServerPath], env: fakeEnv(fake, log), extensionToLanguage: extensions, ...FAST, ...extra } }
}

function pidsOf(log: string): number[] {
  const entries = readFakeLog(log)
  return [...fakeEvents(entries, 'started'), ...fakeEvents(entries, 'grandchild')].map((event) => event.pid!)
}

async function boot(servers: Record<string, unknown>): Promise<Host> {
  const host = await bootPreset({ preset: writePreset({ servers }) })
  hosts.push(host)
  return host
}

/** A cordis app with fs, subprocess and the seam; the plugin is mounted by the caller. */
async function seamApp(): Promise<Context> {
  const app = new Context()
  apps.push(app)
  app.plugin(FileSystem)
  app.plugin(Subprocess)
  app.plugin(LspService)
  await app.start()
  return app
}

async function mount(app: Context, config: unknown): Promise<ForkScope> {
  const fork = (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(lspStdio as unknown as Plugin, config)
  await app.events.flush()
  // apply is asynchronous (executables are resolved first): wait until it has registered or failed
  for (let i = 0; i < 500 && fork.status !== 2 && fork.status !== 3; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  return fork
}

const hover = (workspaceRoot: string, filePath = 'a.ts'): LspQueryRequest => ({ operation: 'hover', filePath, position: { line: 0, character: 0 }, workspaceRoot })

describe('booted from a preset', () => {
  it('routes queries to the configured server, reports readiness, and leaves no process after stop()', async () => {
    const ws = makeWorkspace()
    const server = fakeServer({ results: { 'textDocument/hover': { contents: 'from fake' } }, grandchild: true })
    const host = await boot({ fake: server.config })
    const progress: string[] = []
    host.app.on('readiness/progress', (surface, id, message) => progress.push(`${surface}/${id}: ${message}`))

    const before = await host.app.readiness.report()
    expect(before.filter((row) => row.surface === 'lsp')).toEqual([{ surface: 'lsp', id: 'fake', configured: true, tools: [], state: 'idle', detail: expect.stringContaining(process.execPath) }])
    expect(pidsOf(server.log)).toEqual([]) // nothing starts at boot

    expect(await host.app.lsp.query(hover(ws))).toEqual({ kind: 'hover', hover: { contents: 'from fake' }, complete: true })
    expect(progress).toEqual(['lsp/fake: starting', 'lsp/fake: initialized'])
    const after = (await host.app.readiness.report()).find((row) => row.surface === 'lsp')
    expect(after).toMatchObject({ id: 'fake', state: 'ready' })

    const pids = pidsOf(server.log)
    expect(pids).toHaveLength(2) // the server and its grandchild
    await host.stop()
    hosts.splice(hosts.indexOf(host), 1)
    expect(pids.filter(isAlive)).toEqual([])
    expect(fakeEvents(readFakeLog(server.log), 'exit-clean')).toHaveLength(1)
  })

  it('a probing report starts the server for the workspace and shows it ready', async () => {
    const ws = makeWorkspace()
    const server = fakeServer({ serverInfo: { name: 'fake-ls', version: '3' } })
    const host = await boot({ fake: server.config })
    const rows = await host.app.readiness.report({ probe: true, cwd: ws })
    expect(rows.find((row) => row.surface === 'lsp')).toMatchObject({ id: 'fake', state: 'ready', detail: expect.stringContaining('fake-ls 3') })
    expect(pidsOf(server.log)).toHaveLength(1)
  })

  it('two servers in one row each answer for their own extension (127)', async () => {
    const ws = makeWorkspace({ 'a.ts': 'ts\n', 'b.py': 'py\n' })
    const ts = fakeServer({ results: { 'textDocument/hover': { contents: 'ts' } } })
    const py = fakeServer({ results: { 'textDocument/hover': { contents: 'py' } } }, { '.py': 'python' })
    const host = await boot({ typescript: ts.config, python: py.config })
    expect(await host.app.lsp.query(hover(ws, 'b.py'))).toMatchObject({ hover: { contents: 'py' } })
    expect(await host.app.lsp.query(hover(ws, 'a.ts'))).toMatchObject({ hover: { contents: 'ts' } })
    const didOpen = (log: string) => readFakeLog(log).filter((e) => 'method' in e && e.method === 'textDocument/didOpen').map((e: any) => e.params.textDocument.languageId)
    expect(didOpen(ts.log)).toEqual(['typescript'])
    expect(didOpen(py.log)).toEqual(['python'])
    expect((await host.app.readiness.report()).filter((row) => row.surface === 'lsp').map((row) => row.id)).toEqual(['python', 'typescript'])
    expect((await rejection(host.app.lsp.query(hover(ws, 'c.rs')))).code).toBe('LSP_UNAVAILABLE')
  })

  it('a missing command keeps the row: the boot succeeds, status says unavailable and why, queries are LSP_UNAVAILABLE', async () => {
    const ws = makeWorkspace({ 'a.ts': 'ts\n', 'main.go': 'package main\n' })
    const good = fakeServer({ results: { 'textDocument/hover': { contents: 'still served' } } })
    const host = await boot({ good: good.config, go: { command: 'dsh-lsp-stdio-test-no-such-gopls', extensionToLanguage: { '.go': 'go' } } })
    const missing = '`dsh-lsp-stdio-test-no-such-gopls` not found on PATH or in node_modules/.bin'
    for (const rows of [await host.app.readiness.report(), await host.app.readiness.report({ probe: true, cwd: ws })]) {
      expect(rows.find((row) => row.id === 'go')).toMatchObject({ surface: 'lsp', configured: true, state: 'unavailable', detail: `${missing} [.go]` })
    }
    const error = await rejection(host.app.lsp.query(hover(ws, 'main.go')))
    expect(error).toMatchObject({ code: 'LSP_UNAVAILABLE', message: `go: the language server is unavailable: ${missing}` })
    // the other server of the row is unaffected
    expect(await host.app.lsp.query(hover(ws))).toMatchObject({ hover: { contents: 'still served' } })
  })

  it('a malformed command still fails the boot, naming servers.<id>.command', async () => {
    const error = await rejection(boot({ bad: { command: './bin/server', extensionToLanguage: { '.ts': 'typescript' } } }))
    expect(error).toBeInstanceOf(PresetError)
    expect(error.code).toBe('PRESET_PLUGIN_FAILED')
    expect(error.message).toContain('servers.bad.command')
    expect(error.message).toContain('must be a bare name or an absolute path')
    expect(error.cause?.cause).toMatchObject({ code: 'SUBPROCESS_COMMAND_INVALID' })
  })

  it('two servers claiming .ts fail the boot with LSP_CONFLICT', async () => {
    const error = await rejection(boot({ one: fakeServer().config, two: fakeServer().config }))
    expect(error.code).toBe('PRESET_PLUGIN_FAILED')
    expect(error.message).toContain('.ts is already served by "one"')
    expect(error.cause).toMatchObject({ code: 'LSP_CONFLICT' })
    expect(error.message).toMatch(/\[LSP_CONFLICT\]$/)
  })

  it('without a readiness row the plugin still works (readiness is optional)', async () => {
    const ws = makeWorkspace()
    const server = fakeServer()
    const host = await bootPreset({ preset: writePreset({ servers: { fake: server.config } }, { withReadiness: false }) })
    hosts.push(host)
    expect(await host.app.lsp.query(hover(ws))).toMatchObject({ kind: 'hover' })
  })
})

describe('mounted on a cordis app', () => {
  it('after the row is unloaded ctx.lsp.query is LSP_UNAVAILABLE and the server is gone (156)', async () => {
    const app = await seamApp()
    const ws = makeWorkspace()
    const server = fakeServer()
    const fork = await mount(app, { servers: { fake: server.config } })
    expect(app.lsp.routing()).toEqual([{ extension: '.ts', providerId: 'fake', languageId: 'typescript' }])
    await app.lsp.query(hover(ws))
    const [pid] = pidsOf(server.log)
    fork.dispose()
    const error = await rejection(app.lsp.query(hover(ws)))
    expect(error.code).toBe('LSP_UNAVAILABLE')
    await settleTeardowns(app)
    expect(isAlive(pid!)).toBe(false)
    expect(fakeEvents(readFakeLog(server.log), 'exit-clean')).toHaveLength(1)
  })

  it('a query in flight when the row is unloaded fails LSP_DISPOSED and its server is ended', async () => {
    const app = await seamApp()
    const ws = makeWorkspace()
    const server = fakeServer({ hang: ['textDocument/hover'], ignoreShutdown: true, trapSigterm: true })
    const fork = await mount(app, { servers: { fake: server.config } })
    const pending = app.lsp.query(hover(ws))
    pending.catch(() => {})
    for (let i = 0; i < 1000 && !readFakeLog(server.log).some((e) => 'method' in e && e.method === 'textDocument/hover'); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    fork.dispose()
    expect((await rejection(pending)).code).toBe('LSP_DISPOSED')
    await settleTeardowns(app)
    expect(pidsOf(server.log).filter(isAlive)).toEqual([])
  })

  it('unloaded while its executables are still being resolved: nothing registers and no error is reported', async () => {
    const app = new Context()
    apps.push(app)
    const errors: unknown[] = []
    app.on('internal/error', (error) => errors.push(error))
    app.plugin(FileSystem)
    // A lookup that only ends when it is cancelled, so the row is unloaded in the middle of it.
    app.plugin({
      name: 'pending-subprocess',
      apply(ctx: Context) {
        const pending = (_command: string, options: { signal: AbortSignal }) =>
          new Promise<never>((_resolve, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true }))
        ctx.set('subprocess', { resolveExecutable: pending, shutdown: async () => [] })
      },
    })
    app.plugin(LspService)
    await app.start()
    const fork = (app.plugin as (plugin: Plugin, config: unknown) => ForkScope)(lspStdio as unknown as Plugin, { servers: { fake: fakeServer().config } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    fork.dispose()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(errors).toEqual([])
    expect(app.lsp.routing()).toEqual([])
  })

  it('one valid and one missing command: both register, the missing one answers LSP_UNAVAILABLE (164, changed)', async () => {
    const app = await seamApp()
    const ws = makeWorkspace({ 'a.ts': 'x\n', 'b.py': 'y\n' })
    const good = fakeServer()
    await mount(app, { servers: { good: good.config, ghost: { command: 'dsh-lsp-stdio-test-no-such-server', extensionToLanguage: { '.py': 'python' } } } })
    expect(app.lsp.routing().map((route) => route.providerId).sort()).toEqual(['ghost', 'good'])
    expect(await app.lsp.query(hover(ws))).toMatchObject({ kind: 'hover' })
    expect(await rejection(app.lsp.query(hover(ws, 'b.py')))).toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('not found on PATH') })
    expect(pidsOf(good.log)).toHaveLength(1)
  })

  it('two servers claiming .ts: nothing stays registered (167)', async () => {
    const app = await seamApp()
    const ws = makeWorkspace({ 'a.ts': 'x\n', 'b.py': 'y\n' })
    await mount(app, { servers: { py: fakeServer({}, { '.py': 'python' }).config, one: fakeServer().config, two: fakeServer().config } })
    expect(app.lsp.routing()).toEqual([])
    expect((await rejection(app.lsp.query(hover(ws)))).code).toBe('LSP_UNAVAILABLE')
    expect((await rejection(app.lsp.query(hover(ws, 'b.py')))).code).toBe('LSP_UNAVAILABLE')
  })

  it('an absolute command that is not executable, a directory or missing is unavailable, not a failed load (160, 161, changed)', async () => {
    const dir = tempDir()
    const script = join(dir, 'not-executable')
    writeFileSync(script, '#!/bin/sh\n')
    chmodSync(script, 0o644)
    const ws = makeWorkspace()
    for (const command of [script, dir, join(dir, 'missing')]) {
      const app = await seamApp()
      const fork = await mount(app, { servers: { bad: { command, extensionToLanguage: { '.ts': 'typescript' } } } })
      expect(fork.status).toBe(2)
      expect(await rejection(app.lsp.query(hover(ws)))).toMatchObject({ code: 'LSP_UNAVAILABLE', message: `bad: the language server is unavailable: ${command} is not an executable file` })
    }
  })

  it('a bare command found on the PATH given in env starts and serves (154); one not on PATH fails (155)', async () => {
    const bin = join(tempDir(), 'bin')
    mkdirSync(bin)
    const launcher = join(bin, 'dsh-test-fake-lsp')
    writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${fakeServerPath}" "$@"\n`)
    chmodSync(launcher, 0o755)
    const ws = makeWorkspace()
    const server = fakeServer({ results: { 'textDocument/hover': { contents: 'via PATH' } } })
    const app = await seamApp()
    await mount(app, { servers: { fake: { ...server.config, command: 'dsh-test-fake-lsp', args: [], env: { ...server.config.env, PATH: `${bin}:${process.env.PATH ?? ''}` } } } })
    expect(await app.lsp.query(hover(ws))).toMatchObject({ hover: { contents: 'via PATH' } })

    const empty = tempDir()
    const other = await seamApp()
    await mount(other, { servers: { fake: { command: 'dsh-test-fake-lsp', extensionToLanguage: { '.ts': 'typescript' }, env: { PATH: `::${empty}::` } } } })
    expect(await rejection(other.lsp.query(hover(ws)))).toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('`dsh-test-fake-lsp` not found on PATH') })
  })
})

describe('the dsh command', () => {
  const DSH = fileURLToPath(new URL('../../../cli/cli/bin/dsh.mjs', import.meta.url))
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [DSH, ...args], { timeout: 90_000 }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }))
    })

  it('dsh status with an overlay naming a server that is not installed boots and shows that row unavailable, saying why', async () => {
    const ws = makeWorkspace()
    const server = fakeServer({ serverInfo: { name: 'fake-ls', version: '1' } })
    const preset = writePreset({ servers: { fake: server.config } })
    const overlay = join(tempDir(), 'go.yml')
    writeFileSync(overlay, '- id: lsp-stdio\n  config:\n    servers:\n      go:\n        command: dsh-lsp-stdio-test-no-such-gopls\n        extensionToLanguage: { .go: go }\n')
    const result = await run(['status', '--json', '--preset', preset, '--config', overlay, '--cwd', ws])
    expect(result.code, result.stderr).toBe(0)
    const rows: { id: string }[] = JSON.parse(result.stdout).capabilities
    expect(rows.find((row) => row.id === 'go')).toEqual({
      surface: 'lsp',
      id: 'go',
      configured: true,
      tools: [],
      state: 'unavailable',
      detail: '`dsh-lsp-stdio-test-no-such-gopls` not found on PATH or in node_modules/.bin [.go]',
    })
    expect(rows.find((row) => row.id === 'fake')).toMatchObject({ state: 'ready', detail: expect.stringContaining('fake-ls 1') })
    expect(pidsOf(server.log).filter(isAlive)).toEqual([])
  })
})
