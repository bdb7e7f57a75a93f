import { existsSync, statSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { userMcpOverlay } from 'dsh-mcp/user-overlay'
import { SERVE_OPTIONS, SERVE_USAGE, serveFlagsGiven, serveSettings, ServeUsageError, type ServeFlagValues, type ServeSettings } from './serve-args.ts'

export type { ServeLimits, ServeSettings } from './serve-args.ts'

/**
 * The codes of what `dsh` refuses before (or instead of) running a command: the last ` [CODE]` of
 * its one `dsh:` line, exit 2. Stable: scripts route on them (README "Errors and exit codes").
 */
export const UsageErrorCode = {
  /** A command-line mistake: an unknown command or option, a flag of another command, a wrong number of arguments. */
  USAGE_INVALID: 'USAGE_INVALID',
  /** `--preset <name>` names no preset dsh ships. */
  PRESET_NOT_FOUND: 'PRESET_NOT_FOUND',
  /** The preset mounts no `tools`, `sessions` or `readiness` row, which the command needs. */
  PRESET_ROW_MISSING: 'PRESET_ROW_MISSING',
  /** The workspace (`--cwd`, or the directory dsh runs in) does not exist, is not a directory, or has a path that is not UTF-8. */
  WORKSPACE_INVALID: 'WORKSPACE_INVALID',
  /** `call`'s arguments are not JSON, or on stdin not UTF-8 or over the size bound. */
  CALL_ARGS_INVALID: 'CALL_ARGS_INVALID',
  /** `DSH_START_TIMEOUT_MS` is not a positive whole number of milliseconds. */
  START_TIMEOUT_INVALID: 'START_TIMEOUT_INVALID',
} as const
export type UsageErrorCode = (typeof UsageErrorCode)[keyof typeof UsageErrorCode]

export class UsageError extends Error {
  constructor(
    message: string,
    readonly code: UsageErrorCode = UsageErrorCode.USAGE_INVALID,
  ) {
    super(message)
  }
}

export type Command =
  | { readonly kind: 'status' }
  | { readonly kind: 'tools'; readonly all: boolean }
  | { readonly kind: 'call'; readonly tool: string; readonly input: string | undefined; readonly approve: boolean }
  | { readonly kind: 'context'; readonly messages: readonly string[]; readonly searches: readonly string[] }
  | ({ readonly kind: 'serve' } & ServeSettings)
  | { readonly kind: 'help' }

export interface Invocation {
  readonly command: Command
  readonly preset: string
  readonly overlays: readonly string[]
  readonly cwd: string
  readonly json: boolean
  readonly verbose: boolean
  /** From `DSH_START_TIMEOUT_MS`: how long the rows may take to start. */
  readonly startTimeoutMs: number | undefined
}

export const USAGE = `usage: dsh <command> [--preset <base|coding|file.yml>] [--config <overlay.yml>]... [--cwd <dir>] [--json] [--verbose|-v]
  status                      capability readiness (probes providers; exits 0 even if some are not ready)
  tools [--all]               the model-visible tool catalog (--all: deferred tools too)
  call <tool> [<json>|-]      one tool call exactly as the model would make it (- reads the JSON from stdin)
    [--yes]                   approve it if the tool asks for approval (its approval mode is prompt)
  context [--message <text>]  one pre-step per message in one session; prints what the model sees
    [--search <query>]        then one tool_search call per query, and the session's tool catalog after them
${SERVE_USAGE}
  mcp <list|get|add|remove|import|login|logout>   manage MCP servers (dsh mcp --help)
  trust [<dir>] | --revoke [<dir>] | --list       trust a workspace to bring its TypeScript, .mcp.json, .env and skills (dsh trust --help)
exit codes: 0 ok, 1 the tool call returned an error result, 2 usage or boot error,
  70 internal error in a plugin, 74 the output could not be written, 130 interrupted`

/**
 * Where the named presets live. A published dsh-cli carries copies of base.yml and coding.yml in its
 * own presets/ (made at pack time, so its rows resolve against the packages installed beside it); in
 * this workspace the sources run from src/ and the named presets are the repository's.
 */
const PACKAGED_PRESETS = fileURLToPath(new URL('../presets/', import.meta.url))
const PRESETS_DIR = existsSync(PACKAGED_PRESETS) ? PACKAGED_PRESETS : fileURLToPath(new URL('../../../../presets/', import.meta.url))

/**
 * Where relative paths on the command line are meant from. Under `pnpm dsh` the script runs in the
 * repository root, so the directory the user typed the command in is pnpm's INIT_CWD.
 */
export function invocationDir(env: NodeJS.ProcessEnv = process.env): string {
  const viaScript = env.npm_package_name === 'dsh-extensions' && (env.npm_lifecycle_event === 'dsh' || env.npm_lifecycle_event === 'start')
  return viaScript && env.INIT_CWD ? env.INIT_CWD : process.cwd()
}

/** A preset name (`coding`) is a file in presets/; anything with a slash or a .yml suffix is a path. */
export function presetPath(preset: string, from: string): string {
  if (preset.includes('/') || /\.ya?ml$/.test(preset)) return isAbsolute(preset) ? preset : resolve(from, preset)
  const path = resolve(PRESETS_DIR, `${preset}.yml`)
  if (!existsSync(path)) throw new UsageError(`unknown preset "${preset}" (no ${path})`, UsageErrorCode.PRESET_NOT_FOUND)
  return path
}

/**
 * Whether `path` is one of the named presets this dsh-cli ships, whose parsed twins (made at pack
 * time) the boot may read instead of the YAML (`BootOptions.presetTwin`). A preset the user names by
 * path is always read from its YAML, even when it sits next to a twin.
 */
export function shippedPreset(path: string): boolean {
  return resolve(dirname(path)) === resolve(PRESETS_DIR)
}

/** The options every `dsh` command takes, `dsh mcp …` included: which composition, where, and how to answer. */
export const COMPOSITION_OPTIONS = {
  preset: { type: 'string' },
  config: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
} as const

export function parseInvocation(argv: readonly string[], from = invocationDir(), env: NodeJS.ProcessEnv = process.env): Invocation {
  let parsed
  try {
    // Not an import of node:util: on Node 22 that loads worker_threads at start (lazy-load.test.ts).
    parsed = process.getBuiltinModule('node:util').parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...COMPOSITION_OPTIONS,
        message: { type: 'string', multiple: true },
        search: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        yes: { type: 'boolean' },
        verbose: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
        ...SERVE_OPTIONS,
      },
    })
  } catch (error) {
    throw new UsageError(argumentProblem(error as NodeJS.ErrnoException))
  }
  const { values, positionals } = parsed
  const [name, ...rest] = positionals
  const serveFlags: ServeFlagValues = Object.fromEntries(Object.keys(SERVE_OPTIONS).map((option) => [option, values[option as keyof ServeFlagValues]]))
  const command = commandOf(values.help ? 'help' : name, rest, { messages: values.message ?? [], searches: values.search ?? [], all: values.all ?? false }, values.yes ?? false, serveFlags, env)
  return {
    command,
    // Help needs no preset; resolving one could only fail it.
    preset: command.kind === 'help' ? '' : presetPath(values.preset ?? 'coding', from),
    // The user-level overlay of `dsh mcp add` comes first when it exists; --config files patch it.
    overlays: [...userOverlay(env), ...(values.config ?? []).map((file) => resolve(from, file))],
    cwd: resolve(from, values.cwd ?? '.'),
    json: values.json ?? false,
    verbose: values.verbose ?? false,
    startTimeoutMs: startTimeout(env.DSH_START_TIMEOUT_MS),
  }
}

function userOverlay(env: NodeJS.ProcessEnv): string[] {
  const file = userMcpOverlay(env)
  return existsSync(file) ? [file] : []
}

function startTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  const ms = Number(value)
  if (!Number.isInteger(ms) || ms <= 0 || ms > MAX_TIMER_DELAY_MS) throw new UsageError(`DSH_START_TIMEOUT_MS must be a positive whole number of milliseconds (got "${value}")`, UsageErrorCode.START_TIMEOUT_INVALID)
  return ms
}

/** A parseArgs failure as the `UsageError` it is; any other error as it was. */
export function commandLineError(error: unknown): unknown {
  return (error as NodeJS.ErrnoException)?.code?.startsWith?.('ERR_PARSE_ARGS') ? new UsageError(argumentProblem(error as NodeJS.ErrnoException)) : error
}

/** The codes of a home dsh cannot use (dsh-core home.ts): told like a usage error, exit 2, by every command. */
export const HOME_CODES: ReadonlySet<string> = new Set(['HOME_UNKNOWN', 'DSH_HOME_INVALID'])

/** node's parseArgs messages quote unevenly and speak of positionals; say what was wrong plainly. */
function argumentProblem(error: NodeJS.ErrnoException): string {
  const option = /'(-[^']*)'/.exec(error.message)?.[1]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return option ? `unknown option "${option}"` : error.message
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return option ? `option "${option.split(' ')[0]}" needs a value` : error.message
    default:
      return error.message
  }
}

/** The workspace must be a directory that exists; tools that never check would run against nothing. */
export function checkWorkspace(path: string): string {
  let info
  try {
    info = statSync(path)
  } catch {
    // Node decodes argv and the process directory as UTF-8: other bytes arrive as U+FFFD, naming nothing.
    if (path.includes('\uFFFD')) throw new UsageError(`the workspace ${path} cannot be opened: its path has bytes that are not UTF-8 (shown as \uFFFD), which dsh cannot name; use a directory whose path is UTF-8`, UsageErrorCode.WORKSPACE_INVALID)
    throw new UsageError(`--cwd ${path} does not exist`, UsageErrorCode.WORKSPACE_INVALID)
  }
  if (!info.isDirectory()) throw new UsageError(`--cwd ${path} is not a directory`, UsageErrorCode.WORKSPACE_INVALID)
  return path
}

/** What `tools` and `context` take beyond the shared options. */
interface CatalogFlags {
  readonly messages: readonly string[]
  readonly searches: readonly string[]
  readonly all: boolean
}

function commandOf(name: string | undefined, rest: string[], { messages, searches, all }: CatalogFlags, approve: boolean, serveFlags: ServeFlagValues, env: NodeJS.ProcessEnv): Command {
  const noArguments = (kind: string) => {
    if (rest.length) throw new UsageError(`${kind} takes no arguments (got ${rest.join(' ')})`)
  }
  if (messages.length && name !== 'context') throw new UsageError('--message belongs to the context command')
  if (searches.length && name !== 'context') throw new UsageError('--search belongs to the context command')
  if (all && name !== 'tools') throw new UsageError('--all belongs to the tools command')
  if (approve && name !== 'call') throw new UsageError('--yes belongs to the call command')
  const [serveFlag] = serveFlagsGiven(serveFlags)
  if (serveFlag && name !== 'serve') throw new UsageError(`${serveFlag} belongs to the serve command`)
  switch (name) {
    case 'status':
      noArguments(name)
      return { kind: 'status' }
    case 'tools':
      noArguments(name)
      return { kind: 'tools', all }
    case 'call': {
      const [tool, input, ...extra] = rest
      if (!tool) throw new UsageError('call needs a tool name')
      if (extra.length) throw new UsageError(`call takes a tool name and one JSON argument (got ${rest.length} arguments)`)
      return { kind: 'call', tool, input, approve }
    }
    case 'context':
      noArguments(name)
      return { kind: 'context', messages, searches }
    case 'serve':
      noArguments(name)
      try {
        return { kind: 'serve', ...serveSettings(serveFlags, env) }
      } catch (error) {
        throw error instanceof ServeUsageError ? new UsageError(error.message) : error
      }
    case 'help':
      return { kind: 'help' }
    case undefined:
      throw new UsageError('a command is required')
    default:
      throw new UsageError(`unknown command "${name}"`)
  }
}
