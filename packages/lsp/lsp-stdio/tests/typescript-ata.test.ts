// tsserver's automatic type acquisition starts its typingsInstaller, which runs `npm install
// @types/<name>` for each dependency in the workspace's package.json (strace showed it through the
// catalog's typescript row: `npm install --ignore-scripts @types/lodash@ts5.9 …`): network access
// on package names an untrusted repository chose. So tsserver runs without it there:
// typescript-language-server passes it --disableAutomaticTypingAcquisition. The real
// typescript-language-server and tsserver run; the row's tsserver path is a wrapper that records
// tsserver's arguments, then loads the real one.
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { TrustService, trustCommand, type TrustDecider } from 'dsh-core'
import FileSystem from 'dsh-core/fs'
import Subprocess from 'dsh-core/subprocess'
import { afterEach, describe, expect, it } from 'vitest'
import { dshIn, killRunning, removeTempDirs, tempDir } from '../../../cli/cli/tests/helpers.ts'
import { trustIn } from '../../../../test-support/trust.ts'
import { SERVER_CATALOG } from '../src/catalog.ts'
import { ServerConfig } from '../src/config.ts'
import { StdioLspProvider } from '../src/provider.ts'
import { TypescriptLauncher } from '../src/typescript.ts'
import { waitFor } from './fixtures/rig.ts'

// What the host gives the server does not depend on dsh being a process: dsh runs in this worker
// (dshIn), without a node start and the bundle's load per run.
afterEach(async () => {
  await killRunning()
  await removeTempDirs()
})

const realTsserver = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'lib', 'tsserver.js')

async function jsWorkspace(rowExtra = '') {
  const scratch = await tempDir()
  const [home, repo] = [join(scratch, 'home'), join(scratch, 'repo')]
  await Promise.all([mkdir(home), mkdir(repo)])
  const argvLog = join(scratch, 'tsserver-argv')
  // typescript-language-server takes a tsserver.js path two levels below a package.json with a version.
  await mkdir(join(scratch, 'ts', 'lib'), { recursive: true })
  await writeFile(join(scratch, 'ts', 'package.json'), JSON.stringify({ name: 'typescript', version: '5.9.3' }))
  const wrapper = join(scratch, 'ts', 'lib', 'tsserver.js')
  await writeFile(wrapper, `require('fs').appendFileSync(${JSON.stringify(argvLog)}, JSON.stringify(process.argv.slice(2)) + '\\n')\nrequire(${JSON.stringify(realTsserver)})\n`)
  await writeFile(join(repo, 'package.json'), JSON.stringify({ name: 'x', dependencies: { lodash: '4.17.21' } }))
  await writeFile(join(repo, 'package-lock.json'), '{}')
  await writeFile(join(repo, 'index.js'), "const _ = require('lodash')\nconst n = 1\nn = 2\n")
  // What is checked is how tsserver is started, not what it makes of the project: without the
  // default lib, loading the project is loading index.js (a dsh run's diagnostics took 3.5–7.5 s
  // with lib.*.d.ts on a busy machine, 2.7–3.0 s without). Diagnostics come from the semantic
  // tsserver only, so once they answer it has run and recorded its arguments.
  await writeFile(join(repo, 'jsconfig.json'), JSON.stringify({ compilerOptions: { noLib: true } }))
  const overlay = join(scratch, 'overlay.yml')
  // With type acquisition on (trusted), the typings installer would run `npm install` against the
  // registry: a test reaches no network, so its npm is one that fails at once.
  await writeFile(overlay, `- id: lsp-stdio\n  config:\n    catalog: [typescript]\n    servers:\n      typescript:\n        typescript: tsserver\n        initializationOptions: { tsserver: { path: ${JSON.stringify(wrapper)} }, npmLocation: /bin/false${rowExtra} }\n`)
  const env = { DSH_HOME: home, XDG_CACHE_HOME: join(scratch, 'cache') }
  const diagnose = async () => {
    const result = await dshIn(['call', 'lsp_diagnostics', JSON.stringify({ filePath: 'index.js' }), '--config', overlay, '--cwd', repo], { env })
    expect(result.stdout + result.stderr).toMatch(/No errors|error/)
  }
  // The semantic tsserver's arguments (typescript-language-server may start a syntax one beside it).
  const semantic = async () => (await readFile(argvLog, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[]).filter((argv) => !argv.includes('--serverMode'))
  return { home, repo, argvLog, diagnose, semantic }
}

describe("tsserver's automatic type acquisition (the catalog's typescript row)", () => {
  it('is off in an untrusted workspace and on in a trusted one', async () => {
    const ws = await jsWorkspace()
    await ws.diagnose()
    const untrusted = await ws.semantic()
    expect(untrusted.length).toBeGreaterThan(0)
    for (const argv of untrusted) expect(argv, 'tsserver arguments, untrusted').toContain('--disableAutomaticTypingAcquisition')

    await writeFile(ws.argvLog, '')
    await trustIn(ws.home, ws.repo)
    await ws.diagnose()
    const trusted = await ws.semantic()
    expect(trusted.length).toBeGreaterThan(0)
    for (const argv of trusted) expect(argv, 'tsserver arguments, trusted').not.toContain('--disableAutomaticTypingAcquisition')
    // Its typings installer has an npm that reaches nothing (typescript-language-server quotes the path for the shell it is run by).
    for (const argv of trusted) expect(argv[argv.indexOf('--npmLocation') + 1]).toBe('"/bin/false"')
  })

  it("a disableAutomaticTypingAcquisition the user's row sets is kept", async () => {
    const ws = await jsWorkspace(', disableAutomaticTypingAcquisition: false')
    await ws.diagnose()
    const argvs = await ws.semantic()
    expect(argvs.length).toBeGreaterThan(0)
    for (const argv of argvs) expect(argv).not.toContain('--disableAutomaticTypingAcquisition')
  })
})

// TypeScript 7's own server (tsc --lsp) has automatic type acquisition too: for a project without a
// tsconfig.json it runs `npm install --ignore-scripts types-registry@latest`, then `npm install
// @types/<name>` for the package.json's dependencies, with the `npm` on its PATH. It serves an
// untrusted workspace when it is the TypeScript installed beside dsh (here: the launcher is given
// dsh-lsp-stdio's typescript-7 as that installation). The row's PATH leads to an npm that records its
// call and fails, so nothing reaches the registry; the trusted server beside it shows the setup
// does start an install. A third server is rooted at a trusted directory that holds a revoked one
// (the user's `dsh trust --revoke w/vendor`, in the real trust service): the server would read the
// package.json below it and install what it names, so it runs as in an untrusted workspace.
describe("TypeScript 7's automatic type acquisition (real tsc --lsp)", () => {
  it('runs no npm in an untrusted workspace, nor in a trusted one that holds a revoked directory; it does in a trusted one', async () => {
    const typescript7 = realpathSync(fileURLToPath(new URL('../node_modules/typescript-7', import.meta.url)))
    const scratch = await tempDir()
    const bin = join(scratch, 'bin')
    await mkdir(bin)
    const npm = join(bin, 'npm')
    await writeFile(npm, `#!/bin/sh\necho "$*" >> "$NPM_CALLS"\nexit 1\n`)
    await chmod(npm, 0o755)
    const app = new Context()
    app.plugin(FileSystem)
    app.plugin(Subprocess)
    app.plugin(TrustService, { file: join(scratch, 'trusted.json') })
    await app.start()
    const trust = app.get('trust')!
    const providers: StdioLspProvider[] = []
    const fixed = (trusted: boolean): TrustDecider => ({ decide: async (directory) => ({ trusted, directory, by: 'hook', command: trustCommand(directory) }) })
    const run = async (name: string, decider: TrustDecider, file = 'index.js') => {
      const repo = join(scratch, name)
      const dir = dirname(join(repo, file))
      await mkdir(dir, { recursive: true })
      await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'x', dependencies: { lodash: '4.17.21' } }))
      await writeFile(join(dir, 'index.js'), "const _ = require('lodash')\n")
      const calls = join(scratch, `${name}-npm-calls`)
      const env = { PATH: `${bin}:/usr/bin:/bin`, NPM_CALLS: calls, XDG_CACHE_HOME: join(scratch, `${name}-cache`) }
      const config = ServerConfig.parse({ ...SERVER_CATALOG.typescript!.server, typescript: 'native', env })
      const launcher = new TypescriptLauncher('native', config, { missing: 'not needed' }, decider, typescript7)
      const provider = new StdioLspProvider({ id: 'typescript', config, launcher, fs: app.get('fs')!, subprocess: app.get('subprocess')!, report: () => {} })
      providers.push(provider)
      const hover = () => provider.query({ operation: 'hover', filePath: file, position: { line: 0, character: 6 }, workspaceRoot: repo, languageId: 'javascript' })
      expect((await hover()).kind).toBe('hover')
      return { calls, hover }
    }
    try {
      const holding = join(scratch, 'holding')
      await mkdir(join(holding, 'vendor'), { recursive: true })
      await trust.trust(holding)
      await trust.revoke(join(holding, 'vendor'))
      const [untrusted, revokedBelow, trusted] = await Promise.all([run('untrusted', fixed(false)), run('holding', trust, 'vendor/index.js'), run('trusted', fixed(true))])
      await waitFor(() => existsSync(trusted.calls), "the trusted server's npm install")
      expect(readFileSync(trusted.calls, 'utf8')).toMatch(/^install --ignore-scripts types-registry/)
      // The other servers did the same work: a second query after the trusted one's install.
      await Promise.all([untrusted.hover(), revokedBelow.hover()])
      expect(existsSync(untrusted.calls), 'npm run by the untrusted server').toBe(false)
      expect(existsSync(revokedBelow.calls), 'npm run by the server of a trusted directory holding a revoked one').toBe(false)
    } finally {
      for (const provider of providers) await provider.disposeAll()
      await app.stop()
    }
  })
})
