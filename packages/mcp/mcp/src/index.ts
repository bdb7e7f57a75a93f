import type { Context } from 'cordis'
import { effectWithTeardown, hostLifetime, hostWorkspace, rowOrigin, untracked, type CredentialService } from 'dsh-core'
import { McpConfig } from './config.ts'
import { McpError } from './errors.ts'
import { ServerExtras } from './extras.ts'
import { rowAuth } from './oauth/row.ts'
import { applyConfigFile, isConfigFileRow, McpConfigFileRow } from './import/row.ts'
import { WorkspaceRoots } from './roots.ts'
import { elicitationHandler } from './elicitation.ts'
import { serverDirectory } from './server-directory.ts'
import { mountServerSkills } from './skills/mount.ts'
import { serverStatus } from './status.ts'
import { Supervisor, type StartupOutcome } from './supervisor.ts'
import { applyUnusable, checkServer, unusableServer, type UnusableServer } from './unusable.ts'

export { McpConfig, StdioServerConfig, HttpServerConfig, SseServerConfig, ReconnectConfig, type RemoteServerConfig } from './config.ts'
export { OAuthConfig } from './oauth/config.ts'
export { login, DEFAULT_LOGIN_TIMEOUT_MS, type LoginOptions, type LoginOutcome } from './oauth/login.ts'
export { TokenStore, defaultStorePath, loginKey, type LoginRecord } from './oauth/store.ts'
export { rowAuth, userMcpOverlay } from './oauth/row.ts'
export { MASK, maskedUrl, maskedUrlsIn, readable } from './url-secrets.ts'
export { AuthRequiredError } from './oauth/auth-required.ts'
export { SseTransport } from './sse-transport.ts'
export { McpConfigFileRow, chosenServers, configFileFailure, configFileOf, pickedServers } from './import/row.ts'
export { readMcpConfigFile, MAX_MCP_CONFIG_FILE_BYTES } from './import/read.ts'
export { fromClaudeJson } from './import/claude.ts'
export { fromCodexToml } from './import/codex.ts'
export { serverNameFor, type ImportResult, type ImportedServer } from './import/types.ts'
export { McpError, McpErrorCode } from './errors.ts'
export { checkServer, describeIssue, type UnusableServer, type ServerCheck } from './unusable.ts'
export { publicToolName } from './naming.ts'
export { expandVariables } from './expand.ts'
export { StdioTransport } from './stdio-transport.ts'
export { HttpTransport } from './http-transport.ts'
export type { CallValue } from './results.ts'

export const name = 'dsh-mcp'
/** One row per server: the plugin is applied once per row. */
export const reusable = true
export const inject = {
  tools: { required: true },
  subprocess: { required: true },
  readiness: { required: false },
  credentials: { required: false },
  sessions: { required: false },
  dshHost: { required: false },
  fs: { required: false },
  trust: { required: false },
  skills: { required: false },
}

/**
 * One server, or `mcpConfig:` a Claude Code `.mcp.json` / Codex `config.toml` whose servers this
 * row runs, or a server whose only problem is a `${VAR}` not set here: that is no mistake in the
 * file (the variable may be set where the row usually runs), so the row loads as the server's
 * `unavailable` status row naming the variable instead of failing every dsh command.
 */
export type McpRowConfig = McpConfig | McpConfigFileRow | UnusableServer
export const Config = (config: unknown): McpRowConfig => {
  if (isConfigFileRow(config)) return McpConfigFileRow.parse(config)
  const checked = checkServer(config)
  if (checked.ok) return checked.config
  if (checked.unsetOnly) return unusableServer(String((config as { serverName: unknown }).serverName), checked.problems)
  return McpConfig.parse(config)
}

/** Server names of the live rows, per app. */
const reservations = new WeakMap<Context, Set<string>>()

/**
 * One MCP server: its tools as `mcp__<serverName>__<tool>`, supervised. Activation waits for the
 * first connection and full discovery; a `required` server gets its retries while they begin within
 * `startupTimeoutMs` and fails the boot if none connects, any other starts with no tools and keeps
 * retrying. Unloading closes the connection (for stdio, the process
 * group is gone before the teardown ends), unregisters the tools, then frees the name.
 */
export async function apply(ctx: Context, config: McpRowConfig): Promise<void> {
  if ('mcpConfig' in config) return applyConfigFile(ctx, config, applyAny, inject)
  return applyAny(ctx, config, rowOrigin(ctx)?.file)
}

function applyAny(ctx: Context, config: McpConfig | UnusableServer, file: string | undefined): Promise<void> {
  if ('unusable' in config) {
    applyUnusable(ctx, config, reserveName)
    return Promise.resolve()
  }
  return applyServer(ctx, config, file)
}

/** Takes `serverName` for this row; another live row holding it fails this one. */
function reserveName(ctx: Context, serverName: string): Set<string> {
  const names = reservations.get(ctx.root) ?? new Set<string>()
  reservations.set(ctx.root, names)
  if (names.has(serverName)) {
    throw new McpError(`serverName "${serverName}" is already used by another dsh-mcp row; give each server its own name`, 'MCP_SERVER_NAME_TAKEN')
  }
  names.add(serverName)
  return names
}

/** `file`: where the row was written (for the login command in messages). */
async function applyServer(ctx: Context, config: McpConfig, file: string | undefined): Promise<void> {
  const names = reserveName(ctx, config.serverName)

  const logger = ctx.logger('mcp')
  const extras = new ServerExtras(config, logger)
  const workspace = hostWorkspace(ctx)
  const credentials = workspaceCredentials(ctx, workspace)
  // Opt-in (issue 26 item 3): a server may widen its own sandbox to whatever roots it is given.
  const roots = config.roots ? new WorkspaceRoots(workspace, () => supervisor.rootsChanged()) : undefined
  const auth = config.transport === 'stdio' ? undefined : rowAuth(config, { file, credentials })
  const directory = await serverDirectory(ctx, config, workspace)
  if (directory.note) logger.info(`mcp(${config.serverName}): ${directory.note}`)
  // Taken as a plain reference: every registration is an effect on this row's scope all the same.
  const tools = ctx.tools
  // SEP-2640: the server's skills in ctx.skills (issue 30 item 3).
  const skills = mountServerSkills(ctx, config, () => supervisor)
  const reserved = skills ? new Set([...extras.reserved, skills.toolName]) : extras.reserved
  const supervisor = new Supervisor({
    config,
    // Spawns and lookups register nothing on our scope: skip cordis's per-call caller tracking.
    services: { subprocess: untracked(ctx.subprocess), credentials, auth },
    cwd: directory.path,
    register: (definitions) => tools.registerAll(definitions),
    batch: (change) => tools.batch(change),
    logger,
    reserved,
    ...(roots ? { roots: () => roots.list() } : {}),
    ...(config.elicitation ? { elicit: elicitationHandler(config.serverName, (question) => tools.ask(question), (text) => logger.warn(text)) } : {}),
    ...(skills ? { onResourcesChanged: (generation) => skills.resourcesChanged(generation) } : {}),
    onConnected: async (generation, signal) => {
      await extras.connected(generation, signal)
      await skills?.connected(generation, signal)
    },
    // A long-lived host connects again once `dsh mcp login` stored a login; a one-shot command only reports needs_auth.
    onNeedsAuth: (signal) => {
      if (auth && hostLifetime(ctx) === 'long-lived') void auth.waitForLogin(signal, (reason) => logger.warn(`mcp(${config.serverName}): ${reason}; after dsh mcp login, reload the row`)).then((found) => found && supervisor.resume())
    },
  })

  let startup!: Promise<StartupOutcome>
  effectWithTeardown(ctx, () => {
    startup = supervisor.start()
    return async () => {
      skills?.dispose()
      try {
        await supervisor.dispose()
      } finally {
        names.delete(config.serverName)
      }
    }
  })
  // A call to a name of this server that it does not list: while the server is down that is why.
  tools.namespace(`mcp__${config.serverName}__`, () => (supervisor.live ? undefined : supervisor.unavailable()))
  roots?.follow(ctx)
  extras.install(ctx, supervisor)
  ctx.get('readiness')?.register({
    surface: 'mcp',
    id: config.serverName,
    configured: true,
    status: () => {
      const shown = skills ? { reserved: new Set([...extras.reserved, ...skills.tools]), statusLines: () => [...extras.statusLines(), ...skills.statusLines()] } : extras
      const status = serverStatus(supervisor, shown)
      return directory.note ? { ...status, detail: `${status.detail}; ${directory.note}` } : status
    },
    tools: () => [...supervisor.tools, ...extras.reserved, ...(skills?.tools ?? [])],
  })

  const outcome = await startup
  // Unloaded before the first connection: nothing failed, and a rejection would reach cordis after
  // the app stopped, whose fallback prints it on stdout (a boot interrupted by ^C).
  if (outcome.error && config.required && !supervisor.isDisposed) {
    // For the operator (a boot failure), so with the server's stderr.
    const why = supervisor.lastError?.detail ?? outcome.error.message
    const attempts = `${outcome.attempts} attempt${outcome.attempts === 1 ? '' : 's'}`
    throw new McpError(`MCP server ${config.serverName} is required but did not start (${attempts}): ${why}`, 'MCP_STARTUP_FAILED', { cause: outcome.error })
  }
}

/**
 * Secrets the row names (bearer token, header variables, OAuth client secret) are looked up from
 * the host's workspace (`dsh --cwd`): a server outlives any one session, so no session's directory
 * is the right one. Untracked: a lookup registers nothing on our scope.
 */
function workspaceCredentials(ctx: Context, workspace: string): Pick<CredentialService, 'resolve'> | undefined {
  const credentials = ctx.get('credentials')
  if (!credentials) return undefined
  const service = untracked(credentials)
  return { resolve: (variable) => service.resolve(variable, { cwd: workspace }) }
}
