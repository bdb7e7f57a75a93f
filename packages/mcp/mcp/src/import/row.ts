import { existsSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import type { Context, ForkScope, Inject } from 'cordis'
import { codedDetail, hostWorkspace, rowOrigin, trustOf, type TrustDecision } from 'dsh-core'
import { z } from 'zod'
import type { McpConfig } from '../config.ts'
import { McpError } from '../errors.ts'
import { checkServer, unusableServer, type UnusableServer } from '../unusable.ts'
import { readMcpConfigFile } from './read.ts'
import type { ImportedServer } from './types.ts'
import { dropWhenRevoked } from './revoked.ts'
import { holdUntrusted } from './untrusted.ts'

/**
 * A row that points at another client's config instead of naming one server: every server of a
 * Claude Code `.mcp.json` or a Codex `config.toml` becomes a server of this row, so a project's
 * `.mcp.json` is used without copying it. Read when the row loads (reload the row after editing).
 */
export const McpConfigFileRow = z.strictObject({
  /** The file; a relative path resolves against the preset or overlay that sets it, or see `relativeTo`. */
  mcpConfig: z.string().min(1),
  /**
   * `workspace`: a relative `mcpConfig` is the host workspace's file (`dsh --cwd`), and a workspace
   * without it runs no servers from this row: a project's `.mcp.json` wherever dsh works.
   */
  relativeTo: z.enum(['file', 'workspace']).default('file'),
  /** Only these servers (their names in the file); all when absent. */
  servers: z.array(z.string().min(1)).optional(),
  /** Row settings given to every server (`startupTimeoutMs`, `defaultApproval`, …); the file's own win. */
  defaults: z.record(z.string(), z.unknown()).default({}),
})
export type McpConfigFileRow = z.infer<typeof McpConfigFileRow>

export function isConfigFileRow(config: unknown): boolean {
  return typeof config === 'object' && config !== null && 'mcpConfig' in config
}

/** The file a row reads: `mcpConfig` against the workspace, or against `setBy` (the file that set it; the workspace for a row added by code). */
export function configFileOf(row: Pick<McpConfigFileRow, 'mcpConfig' | 'relativeTo'>, places: { readonly workspace: string; readonly setBy: string | undefined }): string {
  return resolve(row.relativeTo === 'workspace' || !places.setBy ? places.workspace : dirname(places.setBy), row.mcpConfig)
}

/**
 * The servers of the file a row runs: those its `servers` allow-list names (all when absent). A
 * name the file lacks is `MCP_SERVER_UNKNOWN`: a configuration error (nothing was tried, and a retry
 * cannot fix it), not a failed connection. `dsh mcp list` and `get` show the same selection.
 */
export function chosenServers(row: Pick<McpConfigFileRow, 'servers'>, servers: readonly ImportedServer[], file: string): ImportedServer[] {
  const missing = (row.servers ?? []).filter((name) => !servers.some((server) => server.sourceName === name))
  if (missing.length) throw new McpError(`mcpConfig: ${file} has no server ${missing.map((name) => JSON.stringify(name)).join(', ')}`, 'MCP_SERVER_UNKNOWN')
  return pickedServers(row, servers)
}

/** The servers the row's `servers` allow-list names (all when absent), a name the file lacks passed over: what a turned-off row would run. */
export function pickedServers(row: Pick<McpConfigFileRow, 'servers'>, servers: readonly ImportedServer[]): ImportedServer[] {
  return servers.filter((server) => !row.servers || row.servers.includes(server.sourceName))
}

/**
 * Why a row's file could not be used, coded as every reader of it reports it (the runtime's row,
 * `dsh mcp list`/`get`). Not a connection failure: no server was tried. Unreadable (missing, a
 * FIFO, too large) or not JSON/TOML alike.
 */
export function configFileFailure(error: unknown): McpError {
  return new McpError(`mcpConfig: ${(error as Error).message}`, 'MCP_CONFIG_FILE_INVALID', { cause: error })
}

/** Applies one server as a child of the file's row (its scope: unloading the row stops them all). */
export type ServerApply = (ctx: Context, config: McpConfig | UnusableServer, file: string | undefined) => Promise<void>

export async function applyConfigFile(ctx: Context, row: McpConfigFileRow, applyServer: ServerApply, inject: Inject): Promise<void> {
  const origin = rowOrigin(ctx)
  const file = configFileOf(row, { workspace: hostWorkspace(ctx), setBy: origin?.fileOf('mcpConfig') })
  const logger = ctx.logger('mcp')
  let trusted: TrustDecision | undefined
  if (row.relativeTo === 'workspace') {
    if (!existsSync(file)) return logger.debug(`mcpConfig: this workspace has no ${row.mcpConfig}; no servers from it`)
    // A workspace's own file is the repository's word, not the user's: used only once the user trusts it.
    const decision = await trustOf(ctx).decide(dirname(file), { brings: `the MCP servers of ${file}` })
    if (!decision.trusted) return holdUntrusted(ctx, file, decision, row)
    trusted = decision
  }
  let imported
  try {
    imported = await readMcpConfigFile(file)
  } catch (error) {
    const failure = configFileFailure(error)
    // A user's own file fails the boot loudly; a repository's broken file (bad JSON, a FIFO in its
    // place) is that file's unavailable row, and everything else the user runs there still works.
    if (row.relativeTo === 'workspace') return holdUnreadable(ctx, file, failure)
    throw failure
  }
  for (const note of imported.notes) logger.warn(`mcpConfig ${file}: ${note}`)
  let chosen: ImportedServer[]
  try {
    chosen = chosenServers(row, imported.servers, file)
  } catch (error) {
    // A name the user's own file lacks fails the boot; a repository's file that lacks it (the
    // repository changed its .mcp.json) is that file's unavailable row, as a file that cannot be read.
    if (row.relativeTo === 'workspace' && error instanceof McpError) return holdUnreadable(ctx, file, error)
    throw error
  }
  const configs = chosen.flatMap((server): (McpConfig | UnusableServer)[] => {
    if (server.disabled) {
      logger.info(`mcpConfig ${file}: ${server.sourceName} is disabled there; not started`)
      // A call to one of its tools says why there is none, not UNKNOWN_TOOL (dsh call and dsh serve alike).
      const name = String(server.config.serverName)
      ctx.tools.namespace(`mcp__${name}__`, () => new McpError(`MCP server ${name} is turned off in ${file} ([mcp_servers.${server.sourceName}] enabled = false), so it is not started and has no tools; to use it, set enabled = true there`, 'MCP_SERVER_DISABLED'))
      return []
    }
    // A project's stdio servers run in the project: the file's directory, unless the file says
    // otherwise, and a relative `cwd` there is the file's, never the preset's or the workspace's.
    const config = server.config.transport === 'stdio' ? { ...server.config, cwd: resolve(dirname(file), typeof server.config.cwd === 'string' ? server.config.cwd : '.') } : server.config
    const checked = checkServer({ ...row.defaults, ...config })
    if (checked.ok) return [checked.config]
    // One server dsh cannot use (a variable not set here, a field it cannot take) is that server's
    // unavailable row; the file's other servers start.
    return [unusableServer(String(server.config.serverName), checked.problems.map((problem) => `${file}: server ${server.sourceName}: ${problem}`))]
  })
  const servers: ForkScope[] = []
  // A revocation while the host runs (`dsh trust --revoke` in another shell) disconnects them.
  if (trusted) dropWhenRevoked(ctx, file, trusted, row, servers)
  await Promise.all(
    configs.map(
      (config) =>
        new Promise<void>((started, failed) => {
          servers.push(ctx.plugin({
            name: `dsh-mcp(${config.serverName})`,
            reusable: true,
            inject,
            // The login command names the overlay holding this row (dsh reads no .mcp.json as --config).
            apply: (child: Context) => applyServer(child, config, origin?.file).then(started, failed),
          }))
        }),
    ),
  )
}

/**
 * A trusted workspace's file that cannot be read or parsed, or lacks a name the row's `servers`
 * allow-list picks: one `unavailable` row under its file name (none of its servers started), its
 * failure coded as every row's is (the code printed once, by `codedDetail`).
 */
function holdUnreadable(ctx: Context, file: string, failure: McpError): void {
  const status = { state: 'unavailable', detail: failure.message, failure: { code: failure.code, message: failure.message } } as const
  ctx.get('readiness')?.register({ surface: 'mcp', id: basename(file), configured: true, status: () => status, tools: () => [] })
  ctx.logger('mcp').warn(codedDetail(status))
}
