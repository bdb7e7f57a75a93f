import type { CapabilityRow, Workspace } from 'dsh-core'
import type { ServerConfig } from './config.ts'

/** How one server process starts for one workspace. */
export interface Launch {
  /** Absolute path of the executable. */
  readonly executable: string
  readonly args: readonly string[]
  readonly initializationOptions: ServerConfig['initializationOptions']
  /** What `dsh status` names the server by when the choice varies (`native 7.0.2`, `tsserver 5.9.3`). */
  readonly label?: string
  /** Variables of this launch (an untrusted workspace's `untrustedEnv`), under the row's `env`. */
  readonly env?: Readonly<Record<string, string | null>>
  /**
   * What this launch answers `workspace/configuration` with, in place of the row's `configuration`
   * (TypeScript 7's server in an untrusted workspace: the row's, with type acquisition off). Unset: the row's.
   */
  readonly configuration?: ServerConfig['configuration']
  /**
   * Set when the launch ran something only a trusted decision allows (the workspace's own
   * TypeScript, a trust-gated server, no `untrustedEnv`): whether that decision has since been
   * revoked (trusted.json changed). The provider then stops the server; the next query launches anew.
   */
  readonly revoked?: () => Promise<boolean>
}

/**
 * Decides the launch of a server for a workspace, just before its process starts. Throws an
 * LspError (LSP_UNAVAILABLE, saying what to install) when nothing can run there.
 */
export interface Launcher {
  /** The idle row's detail: what runs when the first query comes. */
  describe(): string
  launch(workspace: Workspace, signal: AbortSignal): Launch | Promise<Launch>
  /** Rows of state `untrusted` for what a workspace brought and the launcher did not run (the provider's `id`). */
  untrustedRows?(id: string): CapabilityRow[]
}

/** A server whose executable was resolved once, at load: the same launch everywhere. */
export function fixedLauncher(executable: string, config: ServerConfig): Launcher {
  const launch: Launch = { executable, args: config.args, initializationOptions: config.initializationOptions }
  return { describe: () => executable, launch: () => launch }
}
