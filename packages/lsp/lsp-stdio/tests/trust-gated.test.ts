// Issue 26: a language server that runs the workspace's own code starts only once its user trusts
// the workspace. rust-analyzer runs build scripts and proc macros, and the rustup shim in front of
// it follows a committed rust-toolchain.toml `path` to any binary — so not even its preflight may
// run. rust-analyzer is not installed here; what is tested is whether dsh starts it at all, so an
// executable of that name that records each start stands in for it.
// Whether the host starts a server does not depend on dsh being a process, so dsh runs in this
// worker (dshIn): each of the five runs otherwise paid a node start and the bundle's load.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dshIn, json, killRunning, removeTempDirs, tempDir } from '../../../cli/cli/tests/helpers.ts'
import { trustIn } from '../../../../test-support/trust.ts'
import { TrustStore, trustStoreFile } from 'dsh-core'

afterEach(async () => {
  await killRunning()
  await removeTempDirs()
})

interface Row { id: string; state: string; detail: string }

describe('a server that runs the workspace\'s code (the catalog\'s rust)', () => {
  it('is not started in an untrusted workspace: the row is untrusted with the command, a query fails LSP_UNTRUSTED; trusted, it starts', async () => {
    const scratch = await tempDir()
    const [bin, home, repo] = [join(scratch, 'bin'), join(scratch, 'home'), join(scratch, 'repo')]
    await Promise.all([mkdir(bin), mkdir(home), mkdir(join(repo, 'src'), { recursive: true })])
    const starts = join(scratch, 'starts')
    await writeFile(join(bin, 'rust-analyzer'), `#!/bin/sh\necho "$@" >> ${starts}\nexit 1\n`)
    await chmod(join(bin, 'rust-analyzer'), 0o755)
    await writeFile(join(repo, 'Cargo.toml'), '[package]\nname = "x"\nversion = "0.1.0"\n')
    await writeFile(join(repo, 'src', 'main.rs'), 'fn main() {}\n')
    const overlay = join(scratch, 'overlay.yml')
    await writeFile(overlay, '- id: lsp-stdio\n  config:\n    catalog: [rust]\n')
    const env = { DSH_HOME: home, PATH: `${bin}:${process.env.PATH}` }
    const started = () => readFile(starts, 'utf8').then((text) => text.split('\n').filter(Boolean), () => [])
    const rustRow = async () => json<{ capabilities: Row[] }>(await dshIn(['status', '--json', '--config', overlay, '--cwd', repo], { env })).capabilities.find((row) => row.id === 'rust')

    expect(await rustRow()).toMatchObject({ state: 'untrusted', detail: expect.stringContaining(`is not trusted; to use it: dsh trust ${repo}`) })
    const query = await dshIn(['call', 'lsp', JSON.stringify({ operation: 'hover', filePath: 'src/main.rs', line: 1, character: 4 }), '--config', overlay, '--cwd', repo], { env })
    expect(query.code).not.toBe(0)
    expect(query.stdout + query.stderr).toContain('[LSP_UNTRUSTED]')
    expect(await started(), 'started in an untrusted workspace').toEqual([])

    await trustIn(home, repo)
    expect((await rustRow())?.state).toBe('unavailable') // this stand-in fails its preflight: it ran
    expect(await started()).toEqual(['--version'])

    // cargo reads .cargo/config.toml in every directory above the crate (a rustc-wrapper there runs):
    // the untrusted directory holding the trusted repository counts.
    await mkdir(join(scratch, '.cargo'))
    expect(await rustRow()).toMatchObject({ state: 'untrusted', detail: expect.stringContaining(`its tools read ${join(scratch, '.cargo')} above ${repo}, and ${scratch} is not trusted; to use it: dsh trust ${scratch}`) })
    await rm(join(scratch, '.cargo'), { recursive: true })

    // A crate below the root that the user revoked (`dsh trust --revoke repo/vendor`): rust-analyzer
    // rooted at the repository would build it too, so it is not started there either.
    const vendor = join(repo, 'vendor')
    await mkdir(vendor)
    await new TrustStore(trustStoreFile({ DSH_HOME: home })).record(vendor, false)
    expect(await rustRow()).toMatchObject({ state: 'untrusted', detail: expect.stringContaining(`${repo} holds ${vendor}, which is not trusted; to use it: dsh trust ${vendor}`) })
    expect(await started(), 'started with a revoked directory below its root').toEqual(['--version'])
  })
})

describe('a server row of the user\'s own whose command is a launcher (python3 -m)', () => {
  it('is gated as one that runs the workspace\'s code: the repository\'s module of that name never runs untrusted; trusted, it does', async () => {
    const scratch = await tempDir()
    const [home, repo] = [join(scratch, 'home'), join(scratch, 'repo')]
    await Promise.all([mkdir(home), mkdir(repo)])
    const ran = join(scratch, 'planted-module-ran')
    // What `python3 -m dsh_planted_ls` imports first from the directory it starts in: the repository's file.
    await writeFile(join(repo, 'dsh_planted_ls.py'), `open(${JSON.stringify(ran)}, 'a').write('ran\\n')\n`)
    await writeFile(join(repo, 'main.py'), 'x = 1\n')
    await writeFile(join(repo, 'pyproject.toml'), '')
    const overlay = join(scratch, 'overlay.yml')
    await writeFile(overlay, "- id: lsp-stdio\n  config:\n    catalog: []\n    servers:\n      planted:\n        command: python3\n        args: [-m, dsh_planted_ls]\n        extensionToLanguage: { .py: python }\n")
    const env = { DSH_HOME: home }
    const query = () => dshIn(['call', 'lsp_diagnostics', JSON.stringify({ filePath: 'main.py' }), '--config', overlay, '--cwd', repo], { env })
    const planted = () => readFile(ran, 'utf8').then(() => true, () => false)

    const refused = await query()
    expect(refused.stdout + refused.stderr).toContain('[LSP_UNTRUSTED]')
    expect(refused.stdout + refused.stderr).toContain("python3 -m imports the workspace's own modules first")
    expect(await planted(), 'ran in an untrusted workspace').toBe(false)

    await trustIn(home, repo)
    await query() // the stand-in is no server: it exits at once, after it ran
    expect(await planted()).toBe(true)
  })
})
