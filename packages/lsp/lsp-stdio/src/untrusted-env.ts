import type { TrustDecider, Workspace } from 'dsh-core'
import type { ServerConfig } from './config.ts'
import type { Launch, Launcher } from './launch.ts'

/**
 * A server that may run anywhere, but whose tools follow the workspace's files to the network or to
 * a binary the workspace names (gopls's `go` and a go.mod `toolchain` line): in a workspace its user
 * does not trust it starts with the row's `untrustedEnv` (GOTOOLCHAIN=local), which the row's own
 * `env` overrides variable by variable (see Instance). Trusted, the launch is left as it is.
 */
export class UntrustedEnvLauncher implements Launcher {
  constructor(
    private readonly inner: Launcher,
    private readonly serverId: string,
    private readonly untrustedEnv: ServerConfig['untrustedEnv'],
    /** The row's `readsAbove`: a go.work above the root is read by every `go` gopls runs. */
    private readonly readsAbove: readonly string[],
    private readonly trust: TrustDecider,
  ) {}

  describe(): string {
    return this.inner.describe()
  }

  async launch(workspace: Workspace, signal: AbortSignal): Promise<Launch> {
    const untrusted = Object.entries(this.untrustedEnv).map(([name, value]) => (value === null ? `no ${name}` : `${name}=${value}`)).join(', ')
    // Nobody is asked for this alone (`ask: false`): the untrusted launch still works, only more cautiously.
    // The whole tree (subtree): a go.work at the root brings the go.mod (and toolchain line) of a revoked module below it.
    const decision = await this.trust.decide(workspace.path, { brings: `its own choice of the tools the ${this.serverId} language server runs (untrusted, it runs with ${untrusted})`, signal, ask: false, subtree: true, readsAbove: this.readsAbove })
    const launch = await this.inner.launch(workspace, signal)
    return decision.trusted ? launch : { ...launch, env: { ...launch.env, ...this.untrustedEnv } }
  }
}
