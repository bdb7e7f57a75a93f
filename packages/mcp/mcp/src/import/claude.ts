import { McpError } from '../errors.ts'
import { isRecord, noteInputReferences, Notes, scopeList, serverNameFor, type ImportedServer, type ImportResult } from './types.ts'

/**
 * A Claude Code `.mcp.json` (`{ "mcpServers": { name: { type, command, args, env, url, headers } } }`)
 * as dsh-mcp rows. `${VAR}` and `${VAR:-default}` stay as written: dsh expands them the same way
 * when the row loads. Anything else is reported in `notes`.
 */
export function fromClaudeJson(text: string, file: string): ImportResult {
  let parsed: unknown
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new McpError(`${file} is not valid JSON: ${(error as Error).message}`, 'MCP_CONFIG_FILE_INVALID', { cause: error })
  }
  if (!isRecord(parsed) || !isRecord(parsed.mcpServers)) throw new McpError(`${file} has no "mcpServers" object (the shape of Claude Code's .mcp.json)`, 'MCP_CONFIG_FILE_INVALID')
  const notes: string[] = []
  for (const key of Object.keys(parsed)) if (key !== 'mcpServers') notes.push(`${file}: top-level "${key}" is not imported`)
  const servers: ImportedServer[] = []
  for (const [name, entry] of Object.entries(parsed.mcpServers)) {
    const note = new Notes(`mcpServers.${name}`)
    if (!isRecord(entry)) {
      note.unsupported('the entry', 'it is not an object')
      notes.push(...note.lines)
      continue
    }
    const serverName = serverNameFor(name, note)
    const type = entry.type ?? (entry.url !== undefined ? 'http' : 'stdio')
    const config: Record<string, unknown> = { serverName }
    const taken = new Set(['type'])
    const take = (field: string, as: string = field) => {
      taken.add(field)
      if (entry[field] !== undefined) config[as] = entry[field]
    }
    if (type === 'stdio') {
      config.transport = 'stdio'
      take('command')
      take('args')
      take('env')
      take('cwd')
      if (typeof entry.command === 'string' && entry.command.includes('${')) note.changed('command holds ${…}, which dsh does not expand in command (only in args, env, url, headers)')
    } else if (type === 'http' || type === 'sse' || type === 'streamable-http') {
      config.transport = type === 'sse' ? 'sse' : 'streamable-http'
      take('url')
      take('headers')
      if (isRecord(entry.oauth)) {
        taken.add('oauth')
        const oauth: Record<string, unknown> = {}
        for (const [key, value] of Object.entries(entry.oauth)) {
          if (key === 'scopes') oauth.scopes = scopeList(value, note)
          else if (key === 'clientId' || key === 'callbackPort' || key === 'resource') oauth[key] = value
          else note.unsupported(`oauth.${key}`, 'dsh-mcp has no such OAuth setting')
        }
        config.oauth = oauth
      }
    } else {
      note.unsupported(`type "${String(type)}"`, 'dsh-mcp speaks stdio, http (Streamable HTTP) and sse')
      notes.push(...note.lines)
      continue
    }
    for (const key of Object.keys(entry)) {
      if (taken.has(key)) continue
      note.unsupported(key, key === 'headersHelper' ? 'dsh does not run a command for headers; use envHeaders or bearerTokenEnvVar' : 'dsh-mcp has no equivalent')
    }
    noteInputReferences(config, note)
    notes.push(...note.lines)
    servers.push({ sourceName: name, config, disabled: false })
  }
  return { format: 'claude', servers, notes }
}
