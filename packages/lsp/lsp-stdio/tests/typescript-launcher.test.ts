// Which TypeScript server a workspace gets (typescript: auto | native | tsserver), from the
// workspace's own typescript package, else the one installed beside dsh.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Workspace } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { ServerConfig } from '../src/config.ts'
import { TypescriptLauncher, type TsserverBridge } from '../src/typescript.ts'
import { cleanupRigs, tempDir } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const TYPESCRIPT_7 = realpathSync(fileURLToPath(new URL('../node_modules/typescript-7', import.meta.url)))
const BRIDGE: TsserverBridge = { executable: '/opt/bin/typescript-language-server' }
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
  it('auto: the workspace’s TypeScript 7 runs its own server, directly (no node launcher in between)', () => {
    const launch = new TypescriptLauncher('auto', config(), BRIDGE, installed5()).launch(workspace('7'))
    expect(launch).toMatchObject({ args: ['--lsp', '--stdio'], label: 'native 7.0.2', initializationOptions: null })
    expect(launch.executable).toMatch(/@typescript\/typescript-linux-x64\/lib\/tsc$/)
  })

  it('auto: the workspace’s TypeScript 5 runs typescript-language-server with that tsserver', () => {
    const ws = workspace('5.9.3')
    const launch = new TypescriptLauncher('auto', config(), BRIDGE, TYPESCRIPT_7).launch(ws)
    expect(launch).toEqual({
      executable: BRIDGE.executable,
      args: ['--stdio'],
      initializationOptions: { tsserver: { path: join(ws.path, 'node_modules', 'typescript', 'lib', 'tsserver.js') } },
      label: 'tsserver 5.9.3',
    })
  })

  it('auto: without a TypeScript of its own, the workspace gets the installed one', () => {
    expect(new TypescriptLauncher('auto', config(), BRIDGE, TYPESCRIPT_7).launch(workspace()).label).toBe('native 7.0.2')
    expect(new TypescriptLauncher('auto', config(), BRIDGE, installed5()).launch(workspace()).label).toBe('tsserver 5.8.2')
  })

  it('keeps a tsserver.path the row set, and the rest of its initializationOptions', () => {
    const options = { preferences: { quoteStyle: 'single' }, tsserver: { path: '/opt/ts/lib/tsserver.js', logVerbosity: 'off' } }
    expect(new TypescriptLauncher('auto', config({ initializationOptions: options }), BRIDGE, installed5()).launch(workspace()).initializationOptions).toEqual(options)
    const merged = new TypescriptLauncher('auto', config({ initializationOptions: { preferences: { quoteStyle: 'single' } } }), BRIDGE, installed5()).launch(workspace())
    expect(merged.initializationOptions).toMatchObject({ preferences: { quoteStyle: 'single' }, tsserver: { path: expect.stringMatching(/tsserver\.js$/) } })
  })

  it('native and tsserver insist, passing over a package of the other kind', () => {
    expect(new TypescriptLauncher('native', config(), BRIDGE, TYPESCRIPT_7).launch(workspace('5.9.3')).label).toBe('native 7.0.2')
    expect(new TypescriptLauncher('tsserver', config(), BRIDGE, installed5()).launch(workspace('7')).label).toBe('tsserver 5.8.2')
  })

  it('says what to install when nothing fits (LSP_UNAVAILABLE)', () => {
    const ws = workspace('5.9.3')
    expect(() => new TypescriptLauncher('native', config(), BRIDGE, installed5()).launch(ws)).toThrow(
      expect.objectContaining({ code: 'LSP_UNAVAILABLE', message: expect.stringMatching(/needs typescript 7 or later: found typescript 5\.9\.3 in .* and typescript 5\.8\.2 beside dsh; install: npm install --save-dev typescript/) }),
    )
    expect(() => new TypescriptLauncher('tsserver', config(), BRIDGE, TYPESCRIPT_7).launch(workspace('7'))).toThrow(expect.objectContaining({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('typescript@5 typescript-language-server') }))
    expect(() => new TypescriptLauncher('auto', config(), BRIDGE, null).launch(workspace())).toThrow(expect.objectContaining({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('no typescript package in the workspace or beside dsh') }))
    const noBridge = new TypescriptLauncher('auto', config(), { missing: '`typescript-language-server` not found on PATH or in node_modules/.bin' }, installed5())
    expect(() => noBridge.launch(workspace())).toThrow(expect.objectContaining({ code: 'LSP_UNAVAILABLE', message: expect.stringContaining('needs typescript-language-server') }))
    expect(noBridge.launch(workspace('7')).label).toBe('native 7.0.2')
  })
})
