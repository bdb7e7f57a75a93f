// Which TypeScript server a workspace gets (typescript: auto | native | tsserver), from the
// workspace's own typescript package, else the one installed beside dsh.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { TrustService, TrustStore, trustCommand, type TrustDecider, type Workspace } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { ServerConfig } from '../src/config.ts'
import { TypescriptLauncher, type TsserverBridge } from '../src/typescript.ts'
import { cleanupRigs, tempDir } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const TYPESCRIPT_7 = realpathSync(fileURLToPath(new URL('../node_modules/typescript-7', import.meta.url)))
const BRIDGE: TsserverBridge = { executable: '/opt/bin/typescript-language-server' }
const SIGNAL = new AbortController().signal
const TRUSTED: TrustDecider = { decide: async (directory) => ({ trusted: true, directory, by: 'hook', command: trustCommand(directory) }) }
const UNTRUSTED: TrustDecider = { decide: async (directory) => ({ trusted: false, directory, by: 'default', command: trustCommand(directory) }) }
/** A launcher in a trusted workspace (the trust gate has its own tests below). */
const ts = (choice: 'auto' | 'native' | 'tsserver', cfg: ServerConfig, bridge: TsserverBridge, installation: string | null, trust: TrustDecider = TRUSTED) => new TypescriptLauncher(choice, cfg, bridge, trust, installation)
const config = (extra: Record<string, unknown> = {}) => ServerConfig.parse({ command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' }, ...extra })

/** A workspace, with `typescript` of that version in its node_modules (7: the real TypeScript 7). */
function workspace(version?: '5.9.3' | '7'): Workspace {
  const path = tempDir('dsh-ts-launch-')
  if (version === '7') {
    mkdirSync(join(path, 'node_modules'))
    symlinkSync(TYPESCRIPT_7, join(path, 'node_modules', 'typescript'))
  } else if (version) {
    mkdirSync(join(path, 'node_modules', 'typescript', 'lib'), { recursive: true })
    writeFileSync(join(path, 'node_modules', 'typescript', 'package.json'), JSON.stringify({ name: 'typescript', version }))
  }
  return { path, url: `file://${path}` } as Workspace
}

/** A typescript 5 package standing for the one beside dsh. */
function installed5(): string {
  const dir = join(tempDir('dsh-ts-installed-'), 'typescript')
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'typescript', version: '5.8.2' }))
  return dir
}

describe('TypescriptLauncher', () => {
  it('auto: the workspace’s TypeScript 7 runs its own server, directly (no node launcher in between)', async () => {
    const launch = await ts('auto', config(), BRIDGE, installed5()).launch(workspace('7'), SIGNAL)
    // Warnings and errors only in its log (tests/real/typescript-log.test.ts).
    expect(launch).toMatchObject({ args: ['--lsp', '--stdio'], label: 'native 7.0.2', initializationOptions: { logVerbosity: 4 } })
    expect(launch.executable).toMatch(/@typescript\/typescript-linux-x64\/lib\/tsc$/)
  })

  it('auto: the workspace’s TypeScript 5 runs typescript-language-server with that tsserver', async () => {
    const ws = workspace('5.9.3')
    const { revoked, ...launch } = await ts('auto', config(), BRIDGE, TYPESCRIPT_7).launch(ws, SIGNAL)
    // The workspace's own typescript ran by a trusted decision: a change of trusted.json decides again.
    expect(await revoked?.()).toBe(false)
    expect(launch).toEqual({
      executable: BRIDGE.executable,
      args: ['--stdio'],
      // One full tsserver: its partial-semantic companion answers cross-file queries wrongly while the project loads.
      initializationOptions: { tsserver: { useSyntaxServer: 'never', path: join(ws.path, 'node_modules', 'typescript', 'lib', 'tsserver.js') } },
      label: 'tsserver 5.9.3',
    })
  })

  it('auto: without a TypeScript of its own, the workspace gets the installed one', async () => {
    expect((await ts('auto', config(), BRIDGE, TYPESCRIPT_7).launch(workspace(), SIGNAL)).label).toBe('native 7.0.2')
    expect((await ts('auto', config(), BRIDGE, installed5()).launch(workspace(), SIGNAL)).label).toBe('tsserver 5.8.2')
  })

  it('native: the row’s own initializationOptions are kept, its logVerbosity included', async () => {
    const launch = async (initializationOptions: unknown) => (await ts('native', config({ initializationOptions }), BRIDGE, null).launch(workspace('7'), SIGNAL)).initializationOptions
    expect(await launch({ preferences: { quoteStyle: 'single' } })).toEqual({ logVerbosity: 4, preferences: { quoteStyle: 'single' } })
    expect(await launch({ logVerbosity: 3 })).toEqual({ logVerbosity: 3 })
  })

  it('native, untrusted: answers workspace/configuration with type acquisition off, over the row’s configuration unless it chose', async () => {
    const configurationOf = async (configuration: unknown, trust: TrustDecider) => (await ts('native', config({ configuration }), BRIDGE, TYPESCRIPT_7, trust).launch(workspace(), SIGNAL)).configuration
    const off = { tsserver: { automaticTypeAcquisition: { enabled: false } } }
    expect(await configurationOf(null, UNTRUSTED)).toEqual({ 'js/ts': off })
    expect(await configurationOf({ typescript: { preferences: { quoteStyle: 'single' } }, 'js/ts': { tsserver: { maxTsServerMemory: 1 } } }, UNTRUSTED)).toEqual({
      typescript: { preferences: { quoteStyle: 'single' } },
      'js/ts': { tsserver: { maxTsServerMemory: 1, automaticTypeAcquisition: { enabled: false } } },
    })
    // The row's own word on it, in either spelling, stands; trusted, the row's configuration is answered.
    expect(await configurationOf({ 'js/ts': { tsserver: { automaticTypeAcquisition: { enabled: true } } } }, UNTRUSTED)).toEqual({ 'js/ts': { tsserver: { automaticTypeAcquisition: { enabled: true } } } })
    expect(await configurationOf({ javascript: { disableAutomaticTypeAcquisition: false } }, UNTRUSTED)).toEqual({ javascript: { disableAutomaticTypeAcquisition: false } })
    expect(await configurationOf(null, TRUSTED)).toBeUndefined()
  })

  it('keeps a tsserver.path and useSyntaxServer the row set, and the rest of its initializationOptions', async () => {
    const options = { preferences: { quoteStyle: 'single' }, tsserver: { path: '/opt/ts/lib/tsserver.js', logVerbosity: 'off', useSyntaxServer: 'auto' } }
    expect((await ts('auto', config({ initializationOptions: options }), BRIDGE, installed5()).launch(workspace(), SIGNAL)).initializationOptions).toEqual(options)
    const ownPath = { tsserver: { path: '/opt/ts/lib/tsserver.js' } }
    expect((await ts('auto', config({ initializationOptions: ownPath }), BRIDGE, installed5()).launch(workspace(), SIGNAL)).initializationOptions).toEqual({ tsserver: { useSyntaxServer: 'never', path: '/opt/ts/lib/tsserver.js' } })
    const merged = await ts('auto', config({ initializationOptions: { preferences: { quoteStyle: 'single' } } }), BRIDGE, installed5()).launch(workspace(), SIGNAL)
    expect(merged.initializationOptions).toMatchObject({ preferences: { quoteStyle: 'single' }, tsserver: { useSyntaxServer: 'never', path: expect.stringMatching(/tsserver\.js$/) } })
  })

  it('native and tsserver insist, passing over a package of the other kind', async () => {
    expect((await ts('native', config(), BRIDGE, TYPESCRIPT_7).launch(workspace('5.9.3'), SIGNAL)).label).toBe('native 7.0.2')
    expect((await ts('tsserver', config(), BRIDGE, installed5()).launch(workspace('7'), SIGNAL)).label).toBe('tsserver 5.8.2')
  })

  it('says what to install when nothing fits (LSP_UNAVAILABLE)', async () => {
    const ws = workspace('5.9.3')
    await expect(ts('native', config(), BRIDGE, installed5()).launch(ws, SIGNAL)).rejects.toMatchObject({
      code: 'LSP_UNAVAILABLE',
      message: expect.stringMatching(/needs typescript 7 or later: found typescript 5\.9\.3 in .* and typescript 5\.8\.2 beside dsh; install: npm install --save-dev typescript/),
    })
    await expect(ts('tsserver', config(), BRIDGE, TYPESCRIPT_7).launch(workspace('7'), SIGNAL)).rejects.toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('typescript@5 typescript-language-server') })
    await expect(ts('auto', config(), BRIDGE, null).launch(workspace(), SIGNAL)).rejects.toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('no typescript package in the workspace or beside dsh') })
    const noBridge = ts('auto', config(), { missing: '`typescript-language-server` not found on PATH or in node_modules/.bin' }, installed5())
    await expect(noBridge.launch(workspace(), SIGNAL)).rejects.toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('needs typescript-language-server') })
    expect((await noBridge.launch(workspace('7'), SIGNAL)).label).toBe('native 7.0.2')
  })
})

describe('a workspace’s own TypeScript and workspace trust', () => {
  it('is not run in an untrusted workspace: the installed one serves, and a row names what was found and the command', async () => {
    const installed = installed5()
    const ws = workspace('7')
    const launcher = ts('auto', config(), BRIDGE, installed, UNTRUSTED)
    expect(await launcher.launch(ws, SIGNAL)).toMatchObject({ executable: BRIDGE.executable, label: 'tsserver 5.8.2', initializationOptions: { tsserver: { path: join(installed, 'lib', 'tsserver.js') } } })
    expect(launcher.untrustedRows('typescript')).toEqual([
      {
        id: 'typescript:workspace-typescript',
        state: 'untrusted',
        detail: `typescript 7.0.2 in ${ws.path} (${join(ws.path, 'node_modules', 'typescript')}) was not run: ${ws.path} is not trusted; typescript 5.8.2 beside dsh serves ${ws.path} instead; to use it: dsh trust ${ws.path}`,
      },
    ])
    const tsserverOnly = ts('auto', config(), BRIDGE, installed, UNTRUSTED)
    expect((await tsserverOnly.launch(workspace('5.9.3'), SIGNAL)).label).toBe('tsserver 5.8.2')
    // Nothing else to serve it: the error says why the workspace's own was not used.
    await expect(ts('auto', config(), BRIDGE, null, UNTRUSTED).launch(ws, SIGNAL)).rejects.toMatchObject({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining(`typescript 7.0.2 in ${ws.path} was not run (the workspace is not trusted: dsh trust ${ws.path})`) })
  })

  it('is the installation’s own when it is the same directory (dsh run in its own checkout): run without asking', async () => {
    const ws = workspace('5.9.3')
    const asked: string[] = []
    const looked: string[] = []
    const recording: TrustDecider = {
      decide: async (directory, { brings, ask }) => ((ask === false ? looked : asked).push(brings), { trusted: false, directory, by: 'default', command: trustCommand(directory) }),
    }
    const launcher = ts('auto', config(), BRIDGE, join(ws.path, 'node_modules', 'typescript'), recording)
    expect((await launcher.launch(ws, SIGNAL)).label).toBe('tsserver 5.9.3')
    // Nobody is asked: its typescript is dsh's own, and whether tsserver may acquire types (npm
    // install @types/…) is only looked up (a question about that alone would come in every workspace).
    expect(asked).toEqual([])
    expect(looked).toEqual([expect.stringContaining('automatic type acquisition')])
    expect(launcher.untrustedRows('typescript')).toEqual([])
  })

  it('runs once the workspace is recorded as trusted', async () => {
    const ws = workspace('5.9.3')
    const store = new TrustStore(join(tempDir('dsh-ts-home-'), 'trusted.json'))
    const recorded: TrustDecider = { decide: async (directory) => { const record = await store.lookup(directory); return { trusted: record?.trusted ?? false, directory, by: record ? 'record' : 'default', command: trustCommand(directory) } } }
    const launcher = ts('auto', config(), BRIDGE, installed5(), recorded)
    expect((await launcher.launch(ws, SIGNAL)).label).toBe('tsserver 5.8.2')
    await store.record(ws.path, true)
    expect((await launcher.launch(ws, SIGNAL)).label).toBe('tsserver 5.9.3')
    expect(launcher.untrustedRows('typescript')).toEqual([])
  })

  // tsserver loads the plugins a tsconfig names (an `extends` of ../tsconfig.base.json included) from
  // its package's node_modules and every node_modules above: with a trusted /w/app and an untrusted /w,
  // /w/node_modules/<plugin> ran (reproduced through real dsh and tsserver 5.9.3). So the trust of
  // every directory above that holds a node_modules counts, and the real trust service decides.
  it('is not run when a node_modules above it is in a directory that is not trusted', async () => {
    const outer = tempDir('dsh-ts-outer-')
    const ws = { path: join(outer, 'app'), url: `file://${join(outer, 'app')}` } as Workspace
    mkdirSync(join(ws.path, 'node_modules', 'typescript'), { recursive: true })
    writeFileSync(join(ws.path, 'node_modules', 'typescript', 'package.json'), JSON.stringify({ name: 'typescript', version: '5.9.3' }))
    mkdirSync(join(outer, 'node_modules'))
    const app = new Context()
    app.plugin(TrustService, { file: join(tempDir('dsh-ts-home-'), 'trusted.json') })
    await app.start()
    try {
      await app.trust.trust(ws.path)
      const launcher = ts('auto', config(), BRIDGE, installed5(), app.trust)
      expect((await launcher.launch(ws, SIGNAL)).label).toBe('tsserver 5.8.2')
      expect(launcher.untrustedRows('typescript')[0]?.detail).toContain(`was not run: its tools read ${join(outer, 'node_modules')} above ${ws.path}, and ${outer} is not trusted;`)
      expect(launcher.untrustedRows('typescript')[0]?.detail).toContain(`to use it: dsh trust ${outer}`)
      await app.trust.trust(outer)
      expect((await launcher.launch(ws, SIGNAL)).label).toBe('tsserver 5.9.3')
    } finally {
      await app.stop()
    }
  })
})
