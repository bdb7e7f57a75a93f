import type { Context } from 'cordis'
import { effectWithTeardown, untracked } from 'dsh-core'
import { McpConfig } from './config.ts'
import { McpError } from './errors.ts'
import { ServerExtras } from './extras.ts'
import { serverStatus } from './status.ts'
import { Supervisor, type StartupOutcome } from './supervisor.ts'

export { McpConfig, StdioServerConfig, HttpServerConfig, ReconnectConfig } from './config.ts'
export { McpError, McpErrorCode } from './errors.ts'
export { publicToolName } from './naming.ts'
export { StdioTransport } from './stdio-transport.ts'
export { HttpTransport } from './http-transport.ts'
export type { CallValue } from './results.ts'

export const name = 'dsh-mcp'
/** One row per server: the plugin is applied once per row. */
export const reusable = true
export const inject = { tools: { required: true }, subprocess: { required: true }, readiness: { required: false }, credentials: { required: false }, sessions: { required: false } }

export const Config = (config: unknown) => McpConfig.parse(config)

/** Server names of the live rows, per app. */
const reservations = new WeakMap<Context, Set<string>>()

/**
 * One MCP server: its tools as `mcp__<serverName>__<tool>`, supervised. Activation waits for the
 * first connection and full discovery; a `required` server that fails it fails the boot, any other
 * starts with no tools and keeps retrying. Unloading closes the connection (for stdio, the process
 * group is gone before the teardown ends), unregisters the tools, then frees the name.
 */
export async function apply(ctx: Context, config: McpConfig): Promise<void> {
  const names = reservations.get(ctx.root) ?? new Set<string>()
  reservations.set(ctx.root, names)
  if (names.has(config.serverName)) {
    throw new McpError(`serverName "${config.serverName}" is already used by another dsh-mcp row; give each server its own name`, 'MCP_SERVER_NAME_TAKEN')
  }
  names.add(config.serverName)

  const logger = ctx.logger('mcp')
  const extras = new ServerExtras(config, logger)
  const credentials = ctx.get('credentials')
  const supervisor = new Supervisor({
    config,
    // Spawns and lookups register nothing on our scope: skip cordis's per-call caller tracking.
    services: { subprocess: untracked(ctx.subprocess), credentials: credentials && untracked(credentials) },
    register: (definitions) => ctx.tools.registerAll(definitions),
    logger,
    reserved: extras.reserved,
    onConnected: (generation, signal) => extras.connected(generation, signal),
  })

  let startup!: Promise<StartupOutcome>
  effectWithTeardown(ctx, () => {
    startup = supervisor.start()
    return async () => {
      try {
        await supervisor.dispose()
      } finally {
        names.delete(config.serverName)
      }
    }
  })
  extras.install(ctx, supervisor)
  ctx.get('readiness')?.register({
    surface: 'mcp',
    id: config.serverName,
    configured: true,
    status: () => serverStatus(supervisor, extras.statusLines()),
    tools: () => [...supervisor.tools, ...extras.reserved],
  })

  const outcome = await startup
  // Unloaded before the first connection: nothing failed, and a rejection would reach cordis after
  // the app stopped, whose fallback prints it on stdout (a boot interrupted by ^C).
  if (outcome.error && config.required && !supervisor.isDisposed) {
    throw new McpError(`MCP server ${config.serverName} is required but did not start: ${outcome.error.message}`, 'MCP_STARTUP_FAILED', { cause: outcome.error })
  }
}
