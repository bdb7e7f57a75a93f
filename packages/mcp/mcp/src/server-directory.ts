import { join, resolve } from 'node:path'
import type { Context } from 'cordis'
import { dshHome, ensurePrivateDirectory, hostEnv, rowOrigin, trustOf } from 'dsh-core'
import type { McpConfig } from './config.ts'

/** Where a stdio server process runs, and what `dsh status` says about the choice. */
export interface ServerDirectory {
  readonly path: string
  /** Set when the server was kept out of an untrusted workspace. */
  readonly note?: string
}

/**
 * A stdio server with no `cwd` runs in the host's workspace (a `cwd` resolves against the preset or
 * overlay file that set it, or the workspace for a row added by code). Not in a workspace its user
 * has not trusted: the launchers people configure resolve the working directory's own code first —
 * `npx` the workspace's `node_modules` (and its `.npmrc`), `python -m` its modules, `uvx` its
 * `pyproject.toml` — so the user's own row would run the repository's code. There it runs in an
 * empty private directory of dsh's home instead, until `dsh trust <dir>` (or the row sets
 * `runInUntrustedWorkspace`).
 */
export async function serverDirectory(ctx: Context, config: McpConfig, workspace: string): Promise<ServerDirectory> {
  if (config.transport !== 'stdio') return { path: workspace }
  if (config.cwd) return { path: rowOrigin(ctx)?.resolve('cwd', config.cwd) ?? resolve(workspace, config.cwd) }
  if (config.runInUntrustedWorkspace) return { path: workspace }
  const decision = await trustOf(ctx).decide(workspace, {
    brings: `the working directory of MCP server ${config.serverName} (a launcher such as npx, uvx or python -m runs the workspace's own packages there)`,
  })
  if (decision.trusted) return { path: workspace }
  const outside = join(dshHome(hostEnv(ctx)), 'untrusted-cwd')
  await ensurePrivateDirectory(outside)
  return { path: outside, note: `runs in ${outside}, not in ${decision.directory}, which is not trusted (its npx, uvx or python -m would run the workspace's own packages); to run it there: ${decision.command}` }
}
