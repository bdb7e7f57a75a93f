import { existsSync } from 'node:fs'
import { basename } from 'node:path'
import { composePreset, type PresetRow } from 'dsh-core'
import { chosenServers, configFileFailure, configFileOf, McpConfigFileRow, McpError, pickedServers, readMcpConfigFile, type ImportedServer, type McpErrorCode } from 'dsh-mcp'

/** Why a server is never started: what turned it off, where. */
export interface TurnedOff {
  /** The file that turned it off: the `mcpConfig:` file (Codex `enabled = false`), or the preset or overlay whose row set `disabled: true`. */
  readonly file: string
  readonly by: 'enabled = false' | 'disabled: true'
  /** For `disabled: true`: the row turned off, and `reads` the file of an `mcpConfig:` row. */
  readonly row?: { readonly id: string; readonly reads?: string }
  /** For `disabled: true` set on the group that holds the row, not on the row: the group's id. */
  readonly group?: string
}

/** One server as the composition defines it: its (raw) row config and the file that holds it. */
export interface ServerEntry {
  readonly name: string
  readonly config: Record<string, unknown>
  readonly file: string
  /** What turns it off, so it is never started. */
  readonly disabled?: TurnedOff
  /**
   * An `mcpConfig:` file that cannot be read or parsed (or, a workspace's, lacks a name the row's
   * `servers` picks): one entry named after the file (as its `dsh status` row is), with the file's
   * coded failure; what servers it runs cannot be known.
   */
  readonly unreadable?: { readonly code: McpErrorCode; readonly message: string }
  /**
   * An enabled row the boot fails on (the user's own `mcpConfig:` file that cannot be read or
   * parsed, a row that is not valid, a `servers` name its file lacks): what the listing met. A command
   * that lists lets the boot fail as `dsh status` does (exit 2, the row, the field and the reason).
   */
  readonly failsBoot?: unknown
  /** A server of a `relativeTo: workspace` file: the repository's file, whose URL and `${VAR}`s are used only once its workspace is trusted. */
  readonly workspaceFile?: string
}

export interface Composition {
  readonly preset: string
  readonly presetTwin: boolean
  readonly overlays: readonly string[]
  /** The workspace (`--cwd`), against which a `relativeTo: workspace` file resolves. */
  readonly cwd: string
}

/**
 * Every MCP server the composition holds, in row order, as `dsh mcp list` shows them: the servers of
 * an `mcpConfig:` row (what its `servers` allow-list picks), and those of rows turned off too, marked
 * `disabled` with why (`dsh mcp import` writes a server its source turns off as a `disabled: true` row).
 */
export async function composedServers(composition: Composition): Promise<ServerEntry[]> {
  const rows = await composePreset({ preset: composition.preset, presetTwin: composition.presetTwin, overlays: composition.overlays }, { withDisabled: true })
  const entries: ServerEntry[] = []
  for (const row of rows.filter((candidate: PresetRow) => candidate.name === 'dsh-mcp')) {
    const config = (row.config ?? {}) as Record<string, unknown>
    const off: TurnedOff | undefined = row.disabled ? { file: row.disabledFile ?? row.file, by: 'disabled: true', row: { id: row.id }, ...(row.disabledGroup !== undefined ? { group: row.disabledGroup } : {}) } : undefined
    if (typeof config.mcpConfig === 'string') entries.push(...(await fileServers(row, config, off, composition.cwd)))
    else entries.push({ name: String(config.serverName), config, file: row.file, ...(off ? { disabled: off } : {}) })
  }
  return entries
}

/** The servers of an `mcpConfig:` row; `off` when the row itself is turned off. */
async function fileServers(row: PresetRow, config: Record<string, unknown>, off: TurnedOff | undefined, workspace: string): Promise<ServerEntry[]> {
  // A turned-off row is never validated by a boot; one that does not parse is listed under its id.
  const parsed = McpConfigFileRow.safeParse(config)
  if (!parsed.success) return [{ name: row.id, config, file: row.file, ...(off ? { disabled: off } : { failsBoot: parsed.error }) }]
  const fileRow = parsed.data
  const file = configFileOf(fileRow, { workspace, setBy: row.configFiles.mcpConfig ?? row.file })
  if (fileRow.relativeTo === 'workspace' && !existsSync(file)) return []
  const turnedOff = off ? { ...off, row: { id: row.id, reads: file } } : undefined
  let servers: readonly ImportedServer[]
  try {
    servers = (await readMcpConfigFile(file)).servers
  } catch (error) {
    // As the runtime has it: a repository's broken file is one row and the rest is listed; the user's
    // own file fails the boot, so the command too. A turned-off row's file may be gone or broken: it
    // is not used, so it is one disabled row saying so.
    const failure = configFileFailure(error)
    const failsBoot = fileRow.relativeTo !== 'workspace' && !turnedOff
    return [{ name: basename(file), config, file: row.file, unreadable: { code: failure.code, message: failure.message }, ...(turnedOff ? { disabled: turnedOff } : {}), ...(failsBoot ? { failsBoot: failure } : {}) }]
  }
  // What the row runs: its `servers` allow-list, and a name the file lacks fails as the runtime fails it
  // (MCP_SERVER_UNKNOWN); a turned-off row runs nothing, so there a missing name is no failure.
  let chosen: readonly ImportedServer[]
  try {
    chosen = turnedOff ? pickedServers(fileRow, servers) : chosenServers(fileRow, servers, file)
  } catch (error) {
    // As the runtime has it: the user's own file fails the boot; a repository's file is one coded row.
    if (fileRow.relativeTo !== 'workspace' || !(error instanceof McpError)) return [{ name: basename(file), config, file: row.file, failsBoot: error }]
    return [{ name: basename(file), config, file: row.file, unreadable: { code: error.code, message: error.message } }]
  }
  return chosen.map((server) => {
    const disabled = turnedOff ?? (server.disabled ? { file, by: 'enabled = false' as const } : undefined)
    return { name: String(server.config.serverName), config: server.config, file: row.file, ...(disabled ? { disabled } : {}), ...(fileRow.relativeTo === 'workspace' ? { workspaceFile: file } : {}) }
  })
}

/** The turned-off `mcpConfig:` row and the file it reads, when that is what turned the server off. */
function fileRowOf(off: TurnedOff): string | undefined {
  return off.row?.reads ? `the mcpConfig: row ${off.row.id}, which reads ${off.row.reads}` : undefined
}

/** The detail of a server that is never started: where it was turned off, and by what. */
export function turnedOffDetail(entry: ServerEntry & { readonly disabled: TurnedOff }): string {
  const { file, by, row, group } = entry.disabled
  const fileRow = fileRowOf(entry.disabled)
  const how = group !== undefined ? `${by} on the group ${group}, which holds ${fileRow ?? `row ${row?.id}`}` : fileRow ? `${by} on ${fileRow}` : by
  return `turned off in ${file} (${how}); not started${entry.unreadable ? `; ${entry.unreadable.message}` : ''}`
}

/**
 * The answer to a call of `tool`, a name no tool has, when it is `mcp__<server>__…` of a server the
 * composition holds turned off (a `disabled: true` row: nothing of it is loaded, so the runtime can
 * only say UNKNOWN_TOOL; a Codex `enabled = false` server is answered so by the runtime itself).
 * Undefined when no such server is turned off, or one of that name runs. `entries`: `composedServers`.
 */
export function turnedOffCall(tool: string, entries: readonly ServerEntry[]): McpError | undefined {
  if (!tool.startsWith('mcp__')) return undefined
  const named = entries.filter((entry) => tool.startsWith(`mcp__${entry.name}__`))
  const off = named.find((entry) => entry.disabled)?.disabled
  if (!off || named.some((entry) => !entry.disabled)) return undefined
  const name = named[0]!.name
  const fileRow = fileRowOf(off)
  // The flag is where the message sends the reader: on the group that holds the row, or on the row.
  const why =
    off.by === 'enabled = false'
      ? 'enabled = false'
      : off.group !== undefined
        ? `the group ${off.group}, which holds ${fileRow ?? `row ${off.row?.id}`}, is disabled: true`
        : fileRow
          ? `${fileRow}, is disabled: true`
          : `row ${off.row?.id}: disabled: true`
  const fix = off.by === 'enabled = false' ? 'set enabled = true for it there' : off.group !== undefined ? `remove disabled: true from the group ${off.group} there (or set it to false)` : 'remove disabled: true there (or set it to false)'
  return new McpError(`MCP server ${name} is turned off in ${off.file} (${why}), so it is not started and has no tools; to use it, ${fix}`, 'MCP_SERVER_DISABLED')
}
