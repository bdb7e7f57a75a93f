import { existsSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { Context } from 'cordis'
import { bootPreset, codedDetail, CredentialService, FileSystem, SubprocessService, trustCommand, TrustService, TrustStore, isHarnessError, oneLine, type CapabilityReport } from 'dsh-core'
import { checkServer, Config, login, McpError, loginKey, readMcpConfigFile, rowAuth, TokenStore, userMcpOverlay, type McpRowConfig, type RemoteServerConfig } from 'dsh-mcp'
import { checkWorkspace, commandLineError, COMPOSITION_OPTIONS, HOME_CODES, invocationDir, presetPath, shippedPreset, UsageError } from '../args.ts'
import { BOOT_INTERRUPTED_LINE, ExitCode } from '../exit.ts'
import { routeLogsToStderr } from '../logging.ts'
import { failureLine, outputFailure, tellStderr, writeOut } from '../output.ts'
import { rowCell } from '../terminal-text.ts'
import { OverlayFile } from './overlay-file.ts'
import { PROJECT_FILE, ProjectMcpFile } from './project-file.ts'
import { literalSecrets, maskedConfig, maskedUrlsIn } from './secrets.ts'
import { composedServers, turnedOffDetail, type ServerEntry } from './servers.ts'

export const MCP_USAGE = `usage: dsh mcp <command> [--preset <p>] [--config <overlay.yml>]... [--cwd <dir>] [--json]
  list                                   the servers: transport, state, tools, login
  get <name>                             one server: its row (secrets masked), state, last error, tools
  add [--scope user|project] <name> [--env K=V]... -- <command> [args...]             a stdio server
  add [--scope user|project] --transport http|sse <name> <url> [--header K:V]...     a remote server
  remove [--scope user|project] <name>   removes the server
  import <file>                          the servers of a Claude Code .mcp.json or a Codex config.toml
  login <name>                           OAuth login (prints the URL; the browser comes back to 127.0.0.1)
  logout <name>                          forgets the stored login
add, remove and import write to the one --config file, default (--scope user) $DSH_HOME/mcp.yml (default ~/.dsh/mcp.yml), read by
every dsh command; --scope project writes the workspace's ${PROJECT_FILE} (Claude Code's project file), which dsh then reads in every workspace`

interface McpIo {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

interface Options {
  readonly preset: string
  readonly overlays: readonly string[]
  readonly cwd: string
  readonly json: boolean
  readonly transport: string | undefined
  /** add/remove: which default file (`user`: the user overlay, `project`: the workspace's .mcp.json). */
  readonly scope: 'user' | 'project' | undefined
  readonly headers: readonly string[]
  readonly env: readonly string[]
  /** Where logs go: the command's stderr. */
  readonly stderr: McpIo['stderr']
}

/** `dsh mcp …`: parsed here, not by the main command line (its options differ). */
export async function runMcpCommand(argv: readonly string[], io: McpIo, signal: AbortSignal): Promise<ExitCode> {
  const separator = argv.indexOf('--')
  const own = separator < 0 ? argv : argv.slice(0, separator)
  const trailing = separator < 0 ? [] : argv.slice(separator + 1)
  try {
    // Not an import of node:util: on Node 22 that loads worker_threads at start (lazy-load.test.ts).
    const { values, positionals } = process.getBuiltinModule('node:util').parseArgs({
      args: [...own],
      allowPositionals: true,
      options: {
        ...COMPOSITION_OPTIONS,
        transport: { type: 'string', short: 't' },
        scope: { type: 'string', short: 's' },
        header: { type: 'string', multiple: true, short: 'H' },
        env: { type: 'string', multiple: true, short: 'e' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const [command, ...rest] = positionals
    if (values.help || !command) return await say(io, `${MCP_USAGE}\n`)
    // As for every dsh command, logs (a .env that cannot be read, a row's warnings) go to stderr: stdout carries the answer.
    routeLogsToStderr({ verbose: false, stderr: io.stderr }).booted(true)
    const from = invocationDir()
    const options: Options = {
      preset: presetPath(values.preset ?? 'coding', from),
      overlays: (values.config ?? []).map((file) => resolve(from, file)),
      cwd: checkWorkspace(resolve(from, values.cwd ?? '.')),
      json: values.json ?? false,
      transport: values.transport,
      scope: scopeOf(values.scope, values.config),
      headers: values.header ?? [],
      env: values.env ?? [],
      stderr: io.stderr,
    }
    const output = await dispatch(command, rest, trailing, options, io, signal)
    return await say(io, output.endsWith('\n') ? output : `${output}\n`)
  } catch (error) {
    const lost = outputFailure(error, io.stderr)
    if (lost !== undefined) return lost
    const failure = commandLineError(error)
    // Interrupted while the composition boots: as every command says it (main.ts), exit 130.
    if (isHarnessError(failure) && failure.code === 'PRESET_BOOT_ABORTED') {
      tellStderr(io.stderr, BOOT_INTERRUPTED_LINE)
      return ExitCode.INTERRUPTED
    }
    tellStderr(io.stderr, failureLine(failure, { help: 'dsh mcp --help', uncoded: 'MCP_COMMAND_FAILED' }))
    // A mistake on the command line, a home dsh cannot use (HOME_UNKNOWN, DSH_HOME_INVALID), or a
    // composition that cannot be read or booted (PRESET_*: a missing or invalid --config) is a
    // usage or boot error, exit 2, as for every command.
    return failure instanceof UsageError || (isHarnessError(failure) && (HOME_CODES.has(failure.code) || failure.code.startsWith('PRESET_'))) ? ExitCode.USAGE : ExitCode.TOOL_ERROR
  }
}

async function say(io: McpIo, text: string): Promise<ExitCode> {
  await writeOut(io.stdout, text)
  return ExitCode.OK
}

async function dispatch(command: string, rest: readonly string[], trailing: readonly string[], options: Options, io: McpIo, signal: AbortSignal): Promise<string> {
  const one = (what: string) => {
    if (rest.length !== 1) throw new UsageError(`mcp ${what} takes one server name`)
    return rest[0]!
  }
  switch (command) {
    case 'list':
      return list(options, signal)
    case 'get':
      return get(one('get'), options, signal)
    case 'add':
      return add(rest, trailing, options, io)
    case 'remove':
      return remove(one('remove'), options)
    case 'import':
      if (rest.length !== 1) throw new UsageError('mcp import takes one file')
      return importFile(resolve(invocationDir(), rest[0]!), options)
    case 'login':
      return loginTo(one('login'), options, io, signal)
    case 'logout':
      return logout(one('logout'), options, signal)
    default:
      throw new UsageError(`unknown mcp command "${command}"`)
  }
}

function scopeOf(scope: string | undefined, config: readonly string[] | undefined): Options['scope'] {
  if (scope === undefined) return undefined
  if (scope !== 'user' && scope !== 'project') throw new UsageError(`--scope must be user or project (got "${scope}")`)
  if (config?.length) throw new UsageError('--scope picks a default file and --config names one: give one of them')
  return scope
}

/** The overlays a command reads: the user-level one when it exists, then --config. */
function readOverlays(options: Options): string[] {
  const user = userMcpOverlay()
  return [...(existsSync(user) && !options.overlays.includes(user) ? [user] : []), ...options.overlays]
}

/** The one file add/remove/import write to. */
function targetOverlay(options: Options): Promise<OverlayFile> {
  if (options.overlays.length > 1) throw new UsageError('add, remove and import write to one file: give at most one --config')
  return OverlayFile.open(options.overlays[0] ?? userMcpOverlay(), dirname(presetPath('coding', '/')))
}

/** Where add and remove write: the overlay, or with --scope project the workspace's .mcp.json. */
function targetFile(options: Options): Promise<OverlayFile | ProjectMcpFile> {
  return options.scope === 'project' ? ProjectMcpFile.open(options.cwd) : targetOverlay(options)
}

/** The user-overlay row that makes dsh read the workspace's .mcp.json (what --scope project writes). */
const PROJECT_ROW_ID = 'project-mcp-json'

/** Adds that row unless it is there; says whether it added it. */
async function readProjectFiles(): Promise<boolean> {
  const user = await OverlayFile.open(userMcpOverlay(), dirname(presetPath('coding', '/')))
  if (user.hasRow(PROJECT_ROW_ID)) return false
  user.addRow({ id: PROJECT_ROW_ID, name: 'dsh-mcp', config: { mcpConfig: PROJECT_FILE, relativeTo: 'workspace' } })
  await user.save()
  return true
}

/**
 * The composition's servers. A row the boot fails on (the user's own `mcpConfig:` file that cannot be
 * read, …) fails the command as it fails `dsh status`, by booting: exit 2 with the boot's code, the
 * row, the field and the reason. Misconfiguration fails loudly where it is loaded, alike everywhere.
 */
async function servers(options: Options, signal: AbortSignal): Promise<ServerEntry[]> {
  const composition = { preset: options.preset, presetTwin: shippedPreset(options.preset), overlays: readOverlays(options), cwd: options.cwd }
  const entries = await composedServers(composition)
  const failing = entries.find((entry) => entry.failsBoot !== undefined)
  if (!failing) return entries
  await report(options, signal)
  // The boot did not fail (the file was mended meanwhile): what the listing met is the answer.
  throw failing.failsBoot
}

async function find(name: string, options: Options, signal: AbortSignal): Promise<ServerEntry> {
  const entries = await servers(options, signal)
  const entry = entries.find((server) => server.name === name)
  if (entry) return entry
  // A file dsh cannot read or use may hold the server: that is the answer, not a mistaken name.
  const unreadable = entries.find((server) => server.unreadable && !server.disabled)?.unreadable
  if (unreadable) throw new McpError(`no MCP server "${name}" among the servers dsh can read, and it may be in a file it cannot use: ${unreadable.message}`, unreadable.code)
  throw new UsageError(`no MCP server "${name}" in this composition (dsh mcp list shows them)`)
}

/** The row as the bridge reads it (`${VAR}` expanded), for a remote server. */
function remoteConfig(entry: ServerEntry): RemoteServerConfig {
  const parsed = Config(entry.config) as McpRowConfig
  if ('unusable' in parsed) throw new UsageError(`${entry.name} cannot be used as written: ${parsed.reason}`)
  if ('mcpConfig' in parsed || parsed.transport === 'stdio') throw new UsageError(`${entry.name} is a stdio server; login is for servers reached over HTTP`)
  return parsed
}

async function report(options: Options, signal: AbortSignal): Promise<CapabilityReport[]> {
  // Logs go to stderr, as for every dsh command: stdout carries the answer only.
  const logs = routeLogsToStderr({ verbose: false, stderr: options.stderr })
  let host
  try {
    host = await bootPreset({ preset: options.preset, presetTwin: shippedPreset(options.preset), overlays: readOverlays(options), signal, lifetime: 'one-shot', workspace: options.cwd })
  } finally {
    logs.booted(host !== undefined)
  }
  try {
    const readiness = host.app.get('readiness')
    return readiness ? await readiness.report({ probe: true, signal, cwd: options.cwd, surface: 'mcp' }) : []
  } finally {
    await host.stop()
  }
}

async function loginState(entry: ServerEntry, state: string | undefined): Promise<string> {
  if (state === 'needs_auth') return 'needs login'
  if (isFileEntry(entry) || entry.config.transport === 'stdio' || entry.config.oauth === false) return '-'
  const url = String(entry.config.url ?? '')
  const clientId = (entry.config.oauth as { clientId?: string } | undefined)?.clientId
  return (await new TokenStore().get(loginKey(url, clientId)))?.tokens ? 'logged in' : entry.config.oauth ? 'not logged in' : '-'
}

async function list(options: Options, signal: AbortSignal): Promise<string> {
  const entries = await servers(options, signal)
  const rows = await report(options, signal)
  const out = await Promise.all(
    entries.map(async (entry) => {
      const row = rows.find((candidate) => candidate.id === entry.name)
      return { name: entry.name, transport: transportOf(entry), state: stateOf(entry, row), tools: row?.tools.length ?? 0, auth: await loginState(entry, row?.state), detail: detailOf(entry, row), ...failureOf(entry, row) }
    }),
  )
  if (options.json) return JSON.stringify({ servers: out })
  if (!out.length) return 'no MCP servers (dsh mcp add or dsh mcp import adds one)'
  const table = [['name', 'transport', 'state', 'tools', 'login'], ...out.map((server) => [server.name, server.transport, server.state, String(server.tools), server.auth].map(rowCell))]
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)))
  // One line per server: a detail with the server's multi-line stderr tail is folded (--json keeps it whole).
  return table.map((cells, index) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ') + (index ? `  ${rowCell(oneLine(shownDetail(out[index - 1]!)))}` : '  detail')).join('\n')
}

/**
 * A server's state: its status row's, or `disabled` when its config file turns it off (a state of its
 * own, as Codex's and Claude Code's lists show it, not a failure); a server with no row is unavailable.
 */
/** An entry that stands for an `mcpConfig:` row's file, not one server (its file cannot be read, or the turned-off row does not parse). */
function isFileEntry(entry: ServerEntry): boolean {
  return entry.unreadable !== undefined || 'mcpConfig' in entry.config
}

function transportOf(entry: ServerEntry): string {
  return isFileEntry(entry) ? '-' : String(entry.config.transport ?? 'stdio')
}

function stateOf(entry: ServerEntry, row: CapabilityReport | undefined): string {
  return entry.disabled ? 'disabled' : (row?.state ?? 'unavailable')
}

function detailOf(entry: ServerEntry, row: CapabilityReport | undefined): string {
  if (entry.disabled) return turnedOffDetail({ ...entry, disabled: entry.disabled })
  // An untrusted workspace's file: its status row says how to trust it, then why the file would not
  // start once trusted (it cannot be read, or lacks a name the row picks), as `dsh status` does.
  if (entry.unreadable && !untrusted(row)) return entry.unreadable.message
  return maskedUrlsIn(row?.detail ?? '')
}

function untrusted(row: CapabilityReport | undefined): boolean {
  return row?.state === 'untrusted'
}

/** The coded failure of a server's row, or of its unreadable file (`--json`: `code` and `message`; urls masked as in the detail). */
function failureOf(entry: ServerEntry, row: CapabilityReport | undefined): { code?: string; message?: string } {
  // A server turned off is in a state of its own, not a failure (its file is not used, readable or not).
  if (entry.disabled) return {}
  if (entry.unreadable && !untrusted(row)) return { ...entry.unreadable }
  return row?.failure ? { code: row.failure.code, message: maskedUrlsIn(row.failure.message) } : {}
}

/** The detail as the text output shows it: the failure's code once at its end. */
function shownDetail(server: { detail: string; code?: string; message?: string }): string {
  return codedDetail({ detail: server.detail, ...(server.code ? { failure: { code: server.code, message: server.message ?? '' } } : {}) })
}

async function get(name: string, options: Options, signal: AbortSignal): Promise<string> {
  const entry = await find(name, options, signal)
  const row = (await report(options, signal)).find((candidate) => candidate.id === name)
  // The revision the connection speaks, as the status row names it (none while it is not connected).
  const protocol = /(?:^|[;,] )protocol (\d{4}-\d{2}-\d{2})\b/.exec(row?.detail ?? '')?.[1] ?? null
  const value = { name, file: entry.file, config: maskedConfig(entry.config), state: stateOf(entry, row), protocol, login: await loginState(entry, row?.state), detail: detailOf(entry, row), ...failureOf(entry, row), tools: row?.tools ?? [] }
  if (options.json) return JSON.stringify(value)
  return [`${name} (${entry.file})`, `state: ${value.state}`, `protocol: ${protocol ?? '-'}`, `login: ${value.login}`, `detail: ${shownDetail(value)}`, `config: ${JSON.stringify(value.config)}`, `tools: ${value.tools.join(', ') || '-'}`].join('\n')
}

function pairs(items: readonly string[], separator: ':' | '=', flag: string): Record<string, string> {
  return Object.fromEntries(
    items.map((item) => {
      const at = item.indexOf(separator)
      if (at <= 0) throw new UsageError(`${flag} ${item}: expected NAME${separator}VALUE`)
      return [item.slice(0, at).trim(), item.slice(at + 1).trim()]
    }),
  )
}

async function add(rest: readonly string[], trailing: readonly string[], options: Options, io: McpIo): Promise<string> {
  const transport = options.transport ?? 'stdio'
  const [name, url, ...extra] = rest
  if (!name) throw new UsageError('mcp add needs a server name')
  let config: Record<string, unknown>
  if (transport === 'stdio') {
    if (url !== undefined) throw new UsageError('a stdio server takes its command after --: dsh mcp add <name> -- <command> [args...]')
    if (!trailing.length) throw new UsageError('mcp add needs the command after --')
    if (options.headers.length) throw new UsageError('--header is for http and sse servers')
    const [command, ...args] = trailing
    config = { serverName: name, transport: 'stdio', command, ...(args.length ? { args } : {}), ...(options.env.length ? { env: pairs(options.env, '=', '--env') } : {}) }
  } else if (transport === 'http' || transport === 'sse' || transport === 'streamable-http') {
    if (!url || extra.length || trailing.length) throw new UsageError(`mcp add --transport ${transport} takes a name and a URL`)
    if (options.env.length) throw new UsageError('--env is for stdio servers (a remote server reads variables through ${VAR} in headers, envHeaders or bearerTokenEnvVar)')
    config = { serverName: name, transport: transport === 'sse' ? 'sse' : 'streamable-http', url, ...(options.headers.length ? { headers: pairs(options.headers, ':', '--header') } : {}) }
  } else throw new UsageError(`--transport must be stdio, http or sse (got "${transport}")`)
  checkRow(config)
  const target = await targetFile(options)
  if (target.has(name)) throw new UsageError(`${target.path} already has a server "${name}" (dsh mcp remove ${name} first)`)
  target.add(config)
  await target.save()
  if (target instanceof ProjectMcpFile) warnOfCommittedSecrets(target.path, config, io)
  const enabled = options.scope === 'project' && (await readProjectFiles())
  if (options.json) return JSON.stringify({ added: name, file: target.path })
  const untrusted = options.scope === 'project' && !(await new TrustStore().lookup(await TrustStore.canonical(options.cwd)))?.trusted
  const trustNote = untrusted ? `\nits servers start once you trust this workspace: ${trustCommand(await TrustStore.canonical(options.cwd))}` : ''
  return `added ${name} to ${target.path}${enabled ? `\ndsh now reads the ${PROJECT_FILE} of the workspace it works in (row ${PROJECT_ROW_ID} in ${userMcpOverlay()})` : ''}${trustNote}`
}

/** A project's .mcp.json goes into the repository: a literal secret written there is shared with everyone who clones it. */
function warnOfCommittedSecrets(path: string, config: Record<string, unknown>, io: McpIo): void {
  const secrets = literalSecrets(config)
  if (!secrets.length) return
  tellStderr(
    io.stderr,
    `dsh: warning: ${path} is meant to be committed, and ${secrets.join(', ')} holds a literal secret; write \${VAR} there instead and keep the value in the environment or a .env file (or add the server with --scope user)`,
  )
}

/** The shape is checked now; a `${VAR}` that is not set here may be set where the row runs. */
function checkRow(config: Record<string, unknown>): void {
  const checked = checkServer(config)
  if (checked.ok || checked.unsetOnly) return
  throw new UsageError(`server ${String(config.serverName)}: ${checked.problems.find((problem) => !problem.includes('is not set in the environment'))}`)
}

async function remove(name: string, options: Options): Promise<string> {
  const target = await targetFile(options)
  if (!target.remove(name)) throw new UsageError(`${target.path} has no server "${name}"`)
  await target.save()
  return options.json ? JSON.stringify({ removed: name, file: target.path }) : `removed ${name} from ${target.path}`
}

/**
 * Every server of the file that dsh can use becomes a row; one it cannot is reported with its field
 * and the reason and left out, never refusing the rest. A `${VAR}` that is not set here is a warning:
 * the row is written, and until the variable is set it is that server's unavailable status row.
 */
async function importFile(file: string, options: Options): Promise<string> {
  if (options.scope === 'project') throw new UsageError(`import writes dsh rows to an overlay; a project's ${PROJECT_FILE} is read as it is (--scope project with add)`)
  const result = await readMcpConfigFile(file)
  const overlay = await targetOverlay(options)
  const imported: string[] = []
  const skipped: { server: string; problems: string[] }[] = []
  const notes = [...result.notes]
  const warnings: string[] = []
  for (const server of result.servers) {
    const name = String(server.config.serverName)
    if (overlay.has(name)) {
      notes.push(`${name}: ${overlay.path} already has a server of that name; not imported (dsh mcp remove ${name} first)`)
      continue
    }
    const config = anchoredToFile(server.config, file)
    const checked = checkServer(config)
    if (!checked.ok && !checked.unsetOnly) {
      const problems = checked.problems.filter((problem) => !problem.includes('is not set in the environment'))
      skipped.push({ server: server.sourceName, problems })
      notes.push(`${server.sourceName}: not imported: ${problems.join('; ')}`)
      continue
    }
    if (!checked.ok) warnings.push(`${name}: ${checked.problems.join('; ')}: dsh shows the server as unavailable, naming the variable, until it is set`)
    overlay.add(config, server.disabled)
    imported.push(name)
  }
  if (imported.length) await overlay.save()
  if (options.json) return JSON.stringify({ format: result.format, file: overlay.path, imported, skipped, warnings, notes })
  const head = `imported ${imported.length} server${imported.length === 1 ? '' : 's'} from ${file} (${result.format === 'codex' ? 'Codex config.toml' : 'Claude Code .mcp.json'}) into ${overlay.path}${imported.length ? `: ${imported.join(', ')}` : ''}`
  return [head, ...warnings.map((warning) => `warning: ${warning}`), ...notes.map((note) => `note: ${note}`)].join('\n')
}

/**
 * A stdio server of an imported file runs where that file's client ran it: in the file's directory,
 * or its own `cwd` resolved against that directory. The row lands in an overlay read in every
 * workspace, so a relative path left as it is would mean each workspace's own file.
 */
function anchoredToFile(config: Record<string, unknown>, file: string): Record<string, unknown> {
  if (config.transport !== 'stdio') return config
  const base = dirname(file)
  const cwd = resolve(base, typeof config.cwd === 'string' ? config.cwd : '.')
  const command = typeof config.command === 'string' && !isAbsolute(config.command) && /[\\/]/.test(config.command) ? { command: resolve(cwd, config.command) } : {}
  return { ...config, ...command, cwd }
}

async function loginTo(name: string, options: Options, io: McpIo, signal: AbortSignal): Promise<string> {
  const entry = await find(name, options, signal)
  if (entry.workspaceFile) await refuseUntrusted(name, entry.workspaceFile)
  return withLoginServices(options.cwd, async ({ credentials, subprocess }) => {
    const session = rowAuth(remoteConfig(entry), { file: entry.file, credentials })
    if (!session) throw new UsageError(`${name} sets its own Authorization (bearerTokenEnvVar or a header) or has oauth: false`)
    const outcome = await login({
      store: session.store,
      settings: session.settings,
      signal,
      onAuthorizationUrl: (url) => {
        tellStderr(io.stderr, `To log in to ${name}, open this URL in a browser (it comes back to this machine):\n${url.href}`)
        if (io.stderr.isTTY) void openBrowser(subprocess, url.href, options.cwd)
      },
    })
    const scope = outcome.scope ? ` (scope: ${outcome.scope})` : ''
    return options.json ? JSON.stringify({ loggedIn: name, scope: outcome.scope ?? null }) : `logged in to ${name}${scope}; the login is stored in ${session.store.path}`
  })
}

/**
 * A login reaches the server's URL with its `${VAR}`s expanded: from a repository's `.mcp.json` that
 * is the repository's URL, and any variable of the environment could be sent there. As the runtime
 * starts none of its servers, the login waits until the user trusts the workspace (the recorded
 * decision: `dsh mcp` asks nobody).
 */
async function refuseUntrusted(name: string, file: string): Promise<void> {
  const directory = await TrustStore.canonical(dirname(file))
  if ((await new TrustStore().lookup(directory))?.trusted) return
  throw new McpError(`MCP server ${name} comes from ${file}, and ${directory} is not trusted: no login reaches its URL (its \${VAR}s are not expanded); to use it: ${trustCommand(directory)}`, 'MCP_UNTRUSTED')
}

interface LoginServices {
  readonly credentials: Pick<CredentialService, 'resolve'>
  readonly subprocess: SubprocessService
}

/**
 * Runs `work` with dsh-core's credential lookup, as every row reads its secrets (the environment,
 * then the workspace's `.env`, then the user's `.env`; read when asked, never kept), and
 * `ctx.subprocess` for the browser.
 */
async function withLoginServices<T>(workspace: string, work: (services: LoginServices) => Promise<T>): Promise<T> {
  const app = new Context()
  app.plugin(FileSystem)
  // The workspace's .env is read only when the workspace is trusted (nobody is asked here).
  app.plugin(TrustService)
  app.plugin(CredentialService)
  app.plugin(SubprocessService)
  await app.start()
  try {
    const service = app.get('credentials')!
    return await work({ credentials: { resolve: (variable) => service.resolve(variable, { cwd: workspace }) }, subprocess: app.get('subprocess')! })
  } finally {
    await app.stop()
  }
}

async function logout(name: string, options: Options, signal: AbortSignal): Promise<string> {
  const entry = await find(name, options, signal)
  const session = rowAuth(remoteConfig(entry), { file: entry.file, credentials: undefined })
  const had = session ? Boolean(await session.store.get(session.key)) : false
  if (session && had) await session.store.update(session.key, () => undefined)
  const text = had ? `logged out of ${name}` : `no login was stored for ${name}`
  return options.json ? JSON.stringify({ loggedOut: name, removed: had }) : text
}

/**
 * Best effort, for a person at a terminal: the platform's opener, through `ctx.subprocess` like
 * every child (the scrubbed environment: the browser never sees the keys dsh was given; the
 * executable looked up outside the workspace), handed off so the browser outlives dsh. Without an
 * opener the printed URL is the way.
 */
async function openBrowser(subprocess: SubprocessService, url: string, cwd: string): Promise<void> {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return
  try {
    const executable = await subprocess.resolveExecutable(opener)
    subprocess.spawn({ argv: [executable, url], cwd, handOff: true })
  } catch {
    // No opener: the URL is printed.
  }
}
