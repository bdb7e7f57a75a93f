import { untrustedReason, type TrustDecider, type Workspace } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import type { Launch, Launcher } from './launch.ts'
import { revokedCheck } from './trust-change.ts'

/**
 * A server that executes the code of the workspace it serves (`runsWorkspaceCode`): it starts only in
 * a workspace its user trusts. Asked before anything of the server runs, its preflight included;
 * elsewhere the query fails with `LSP_UNTRUSTED` and the probed row is `untrusted`.
 */
export class TrustGatedLauncher implements Launcher {
  constructor(
    private readonly inner: Launcher,
    private readonly serverId: string,
    private readonly why: string,
    /** The row's `readsAbove`: what its tools read in the directories above the root. */
    private readonly readsAbove: readonly string[],
    private readonly trust: TrustDecider,
  ) {}

  describe(): string {
    return `${this.inner.describe()} (in trusted workspaces only)`
  }

  async launch(workspace: Workspace, signal: AbortSignal): Promise<Launch> {
    // The whole tree (subtree): the server runs the code of every crate below its root, a revoked /w/vendor's included.
    const options = { brings: `the ${this.serverId} language server, which runs its code (${this.why})`, subtree: true, readsAbove: this.readsAbove }
    const decision = await this.trust.decide(workspace.path, { ...options, signal })
    if (!decision.trusted) throw new LspError(`${this.serverId} was not started: ${this.why}, and ${untrustedReason(decision)}; to use it: ${decision.command}`, 'LSP_UNTRUSTED')
    const launch = await this.inner.launch(workspace, signal)
    return { ...launch, revoked: revokedCheck(this.trust, workspace.path, options, decision, launch.revoked) }
  }
}
