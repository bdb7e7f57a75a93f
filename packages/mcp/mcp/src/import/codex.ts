import { parse } from 'smol-toml'
import { McpError } from '../errors.ts'
import { isRecord, noteInputReferences, Notes, scopeList, serverNameFor, type ImportedServer, type ImportResult } from './types.ts'

/** Codex's approval modes → dsh's: Codex's `auto` leaves it to the session policy, which in dsh is `auto`. */
const APPROVAL: Record<string, string> = { auto: 'auto', approve: 'auto', prompt: 'prompt' }

/** Codex's `writes`: ask before any tool that is not annotated read-only, which dsh says with two row fields. */
const WRITES_APPROVAL = { defaultApproval: 'prompt', approvalFromAnnotations: true } as const

/** Field → row key, for the fields that carry over as they are. */
const SAME: Record<string, string> = {
  command: 'command',
  args: 'args',
  env: 'env',
  env_vars: 'envVars',
  cwd: 'cwd',
  url: 'url',
  bearer_token_env_var: 'bearerTokenEnvVar',
  http_headers: 'headers',
  env_http_headers: 'envHeaders',
  required: 'required',
  enabled_tools: 'enabledTools',
  disabled_tools: 'disabledTools',
}

/**
 * The `[mcp_servers.*]` tables of a Codex `config.toml` as dsh-mcp rows (table: docs/mcp.md,
 * "Importing"). Other top-level tables are Codex's own settings and are left alone (one note).
 */
export function fromCodexToml(text: string, file: string): ImportResult {
  let parsed: Record<string, unknown>
  try {
    parsed = parse(text) as Record<string, unknown>
  } catch (error) {
    throw new McpError(`${file} is not valid TOML: ${(error as Error).message.split('\n')[0]}`, 'MCP_CONFIG_FILE_INVALID', { cause: error })
  }
  const tables = parsed.mcp_servers
  if (!isRecord(tables)) throw new McpError(`${file} has no [mcp_servers.<name>] tables (the shape of Codex's config.toml)`, 'MCP_CONFIG_FILE_INVALID')
  const notes: string[] = []
  const others = Object.keys(parsed).filter((key) => key !== 'mcp_servers')
  if (others.length) notes.push(`${file}: ${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} Codex's own settings, not MCP servers; not imported`)
  const servers: ImportedServer[] = []
  for (const [name, entry] of Object.entries(tables)) {
    const note = new Notes(`mcp_servers.${name}`)
    if (!isRecord(entry)) {
      note.unsupported('the entry', 'it is not a table')
      notes.push(...note.lines)
      continue
    }
    const serverName = serverNameFor(name, note)
    const config: Record<string, unknown> = { serverName, transport: entry.url !== undefined ? 'streamable-http' : 'stdio' }
    let disabled = false
    const oauth: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(entry)) {
      const same = SAME[key]
      if (same) {
        config[same] = value
        continue
      }
      switch (key) {
        case 'enabled':
          disabled = value === false
          break
        case 'startup_timeout_sec':
        case 'tool_timeout_sec':
        case 'startup_timeout_ms': {
          const ms = key === 'startup_timeout_ms' ? Number(value) : Number(value) * 1000
          if (typeof value !== 'number' || !(ms >= 1)) note.unsupported(key, `${JSON.stringify(value)} is not a positive duration; dsh's default is used`)
          else config[key === 'tool_timeout_sec' ? 'toolCallTimeoutMs' : 'startupTimeoutMs'] = Math.round(ms)
          break
        }
        case 'default_tools_approval_mode':
          if (value === 'writes') Object.assign(config, WRITES_APPROVAL)
          else if (typeof value === 'string' && APPROVAL[value]) config.defaultApproval = APPROVAL[value]
          else note.unsupported(key, `unknown mode ${JSON.stringify(value)}`)
          break
        case 'tools':
          config.toolApproval = toolApprovals(value, note)
          break
        case 'scopes':
          oauth.scopes = scopeList(value, note)
          break
        case 'oauth_resource':
          oauth.resource = value
          break
        default:
          note.unsupported(key, key === 'supports_parallel_tool_calls' ? 'dsh leaves parallel calls to the harness' : 'dsh-mcp has no equivalent')
      }
    }
    if (Object.keys(oauth).length && config.bearerTokenEnvVar !== undefined) {
      // Codex sends the bearer token and never logs in; dsh refuses a row with both sources of Authorization.
      note.unsupported(Object.keys(oauth).map((field) => (field === 'resource' ? 'oauth_resource' : field)).join(', '), 'they are for an OAuth login, and bearer_token_env_var already sets Authorization')
    } else if (Object.keys(oauth).length) config.oauth = oauth
    if (typeof config.cwd === 'string' && config.transport !== 'stdio') {
      note.unsupported('cwd', 'it applies to stdio servers only')
      delete config.cwd
    }
    if (config.transport === 'stdio' && isRecord(config.env)) {
      for (const [variable, value] of Object.entries(config.env)) {
        if (typeof value === 'string' && value.includes('${')) note.changed(`env.${variable} holds \${…}: Codex passes it literally, dsh expands it when the row loads`)
      }
    }
    noteInputReferences(config, note)
    notes.push(...note.lines)
    servers.push({ sourceName: name, config, disabled })
  }
  return { format: 'codex', servers, notes }
}

/** `[mcp_servers.X.tools.Y] approval_mode = "…"` → `toolApproval: { Y: … }`. */
function toolApprovals(tools: unknown, note: Notes): Record<string, string> {
  const approvals: Record<string, string> = {}
  if (!isRecord(tools)) {
    note.unsupported('tools', 'it is not a table')
    return approvals
  }
  for (const [tool, settings] of Object.entries(tools)) {
    if (!isRecord(settings)) continue
    for (const [key, value] of Object.entries(settings)) {
      if (key === 'approval_mode' && typeof value === 'string' && APPROVAL[value]) approvals[tool] = APPROVAL[value]
      else note.unsupported(`tools.${tool}.${key}`, key === 'approval_mode' ? `unknown mode ${JSON.stringify(value)}` : 'dsh-mcp has no per-tool equivalent')
    }
  }
  return approvals
}
