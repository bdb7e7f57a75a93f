// A row's untrustedEnv (the catalog's go: GOTOOLCHAIN=local) is set in an untrusted workspace, and
// finding out asks nobody: the launch works either way, and a trust question in every Go workspace
// would teach users to say yes (tests/go-toolchain.test.ts runs the real gopls).
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { TrustService, trustCommand, type TrustDecider, type Workspace } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { SERVER_CATALOG } from '../src/catalog.ts'
import type { Launch, Launcher } from '../src/launch.ts'
import { UntrustedEnvLauncher } from '../src/untrusted-env.ts'

const WORKSPACE = { path: '/w/go', url: 'file:///w/go' } as Workspace
const SIGNAL = new AbortController().signal
const INNER: Launcher = {
  describe: () => 'gopls',
  launch: (): Launch => ({ executable: '/usr/bin/gopls', args: [], initializationOptions: null, env: { GOFLAGS: '-mod=mod' } }),
}

function recording(trusted: boolean): { decider: TrustDecider; asks: (boolean | undefined)[] } {
  const asks: (boolean | undefined)[] = []
  const decider: TrustDecider = {
    decide: async (directory, { ask }) => (asks.push(ask), { trusted, directory, by: trusted ? 'record' : 'default', command: trustCommand(directory) }),
  }
  return { decider, asks }
}

describe('UntrustedEnvLauncher', () => {
  it('adds the row’s untrustedEnv in an untrusted workspace, looking the decision up without asking', async () => {
    const { decider, asks } = recording(false)
    const launch = await new UntrustedEnvLauncher(INNER, 'go', { GOTOOLCHAIN: 'local' }, {}, [], decider).launch(WORKSPACE, SIGNAL)
    expect(launch.env).toEqual({ GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' })
    expect(asks).toEqual([false])
  })

  // The real trust service: a trusted module below an untrusted directory that holds a go.work (which
  // every `go` gopls runs reads, toolchain line included) is as untrusted; so is one holding a revoked directory.
  it('asks about the whole tree and what the row reads above it (the catalog go row’s go.work)', async () => {
    const outer = await realpath(await mkdtemp(join(tmpdir(), 'dsh-go-outer-')))
    const app = new Context()
    app.plugin(TrustService, { file: join(outer, 'home', 'trusted.json') })
    await app.start()
    try {
      const module = join(outer, 'mod')
      await mkdir(join(module, 'vendor'), { recursive: true })
      await writeFile(join(outer, 'go.work'), 'go 1.22\ntoolchain go1.99.0\nuse ./mod\n')
      await app.trust.trust(module)
      const workspace = { path: module, url: `file://${module}` } as Workspace
      const launcher = new UntrustedEnvLauncher(INNER, 'go', { GOTOOLCHAIN: 'local' }, {}, SERVER_CATALOG.go!.server.readsAbove!, app.trust)
      expect((await launcher.launch(workspace, SIGNAL)).env).toMatchObject({ GOTOOLCHAIN: 'local' })
      await app.trust.trust(outer)
      expect((await launcher.launch(workspace, SIGNAL)).env).toEqual({ GOFLAGS: '-mod=mod' })
      await app.trust.revoke(join(module, 'vendor'))
      expect((await launcher.launch(workspace, SIGNAL)).env).toMatchObject({ GOTOOLCHAIN: 'local' })
    } finally {
      await app.stop()
      await rm(outer, { recursive: true, force: true })
    }
  })

  it('leaves a trusted workspace’s launch as it is', async () => {
    const { decider, asks } = recording(true)
    const launch = await new UntrustedEnvLauncher(INNER, 'go', { GOTOOLCHAIN: 'local' }, {}, [], decider).launch(WORKSPACE, SIGNAL)
    expect(launch.env).toEqual({ GOFLAGS: '-mod=mod' })
    expect(asks).toEqual([false])
  })
})
