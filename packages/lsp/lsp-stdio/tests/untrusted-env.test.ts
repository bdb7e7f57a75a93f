// A row's untrustedEnv (the catalog's go: GOTOOLCHAIN=local) is set in an untrusted workspace, and
// finding out asks nobody: the launch works either way, and a trust question in every Go workspace
// would teach users to say yes (tests/go-toolchain.test.ts runs the real gopls).
import { trustCommand, type TrustDecider, type Workspace } from 'dsh-core'
import { describe, expect, it } from 'vitest'
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
    const launch = await new UntrustedEnvLauncher(INNER, 'go', { GOTOOLCHAIN: 'local' }, decider).launch(WORKSPACE, SIGNAL)
    expect(launch.env).toEqual({ GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' })
    expect(asks).toEqual([false])
  })

  it('leaves a trusted workspace’s launch as it is', async () => {
    const { decider, asks } = recording(true)
    const launch = await new UntrustedEnvLauncher(INNER, 'go', { GOTOOLCHAIN: 'local' }, decider).launch(WORKSPACE, SIGNAL)
    expect(launch.env).toEqual({ GOFLAGS: '-mod=mod' })
    expect(asks).toEqual([false])
  })
})
