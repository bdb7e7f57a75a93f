import type { TrustDecider, Workspace } from 'dsh-core'
import type { ServerConfig } from './config.ts'
import type { Launch, Launcher } from './launch.ts'
import { revokedCheck } from './trust-change.ts'

/**
 * A server that may run anywhere, but whose tools follow the workspace's files to the network or to
 * a binary the workspace names (gopls's `go` and a go.mod `toolchain` line), or that reads any file a
 * workspace's file names (the json server's `$schema`): in a workspace its user does not trust it
 * starts with the row's `untrustedEnv` (GOTOOLCHAIN=local), which the row's own `env` overrides
 * variable by variable (see Instance), and its `untrustedInitializationOptions`, set over the row's
 * `initializationOptions` key by key. Trusted, the launch is left as it is.
 */
export class UntrustedEnvLauncher implements Launcher {
  constructor(
    private readonly inner: Launcher,
    private readonly serverId: string,
    private readonly untrustedEnv: ServerConfig['untrustedEnv'],
    /** The row's `untrustedInitializationOptions`, over its own `initializationOptions`. */
    private readonly untrustedOptions: ServerConfig['untrustedInitializationOptions'],
    /** The row's `readsAbove`: a go.work above the root is read by every `go` gopls runs. */
    private readonly readsAbove: readonly string[],
    private readonly trust: TrustDecider,
  ) {}

  describe(): string {
    return this.inner.describe()
  }

  async launch(workspace: Workspace, signal: AbortSignal): Promise<Launch> {
    const options = Object.keys(this.untrustedOptions).map((name) => `its ${name} option set`)
    const untrusted = [...Object.entries(this.untrustedEnv).map(([name, value]) => (value === null ? `no ${name}` : `${name}=${value}`)), ...options].join(', ')
    // Nobody is asked for this alone (`ask: false`): the untrusted launch still works, only more cautiously.
    // The whole tree (subtree): a go.work at the root brings the go.mod (and toolchain line) of a revoked module below it.
    const asked = { brings: `its own choice of the tools the ${this.serverId} language server runs (untrusted, it runs with ${untrusted})`, ask: false, subtree: true, readsAbove: this.readsAbove }
    const decision = await this.trust.decide(workspace.path, { ...asked, signal })
    const launch = await this.inner.launch(workspace, signal)
    // Trusted, it runs without untrustedEnv: a revocation stops it, and the next query starts it with it.
    if (decision.trusted) return { ...launch, revoked: revokedCheck(this.trust, workspace.path, asked, decision, launch.revoked) }
    return { ...launch, env: { ...launch.env, ...this.untrustedEnv }, initializationOptions: withUntrusted(launch.initializationOptions, this.untrustedOptions) }
  }
}

/**
 * `options` with `untrusted`'s keys set over it: the catalog's json row sets `handledSchemaProtocols`
 * in both (`[file]`, and `[]` untrusted). A row that wants otherwise sets its own
 * `untrustedInitializationOptions` (`{}`). A non-object `options` (the row's own word) is kept.
 */
function withUntrusted(options: ServerConfig['initializationOptions'], untrusted: ServerConfig['untrustedInitializationOptions']): ServerConfig['initializationOptions'] {
  if (options === null) return { ...untrusted }
  if (typeof options !== 'object' || Array.isArray(options)) return options
  return { ...options, ...untrusted }
}
