import { basename } from 'node:path'
import type { Context } from 'cordis'
import type { CapabilityStatus, TrustDecision } from 'dsh-core'
import { McpError } from '../errors.ts'
import { readMcpConfigFile } from './read.ts'
import { chosenServers, configFileFailure, pickedServers, type McpConfigFileRow } from './row.ts'

/**
 * A workspace file's servers in a workspace that is not trusted: none starts and nothing in the file
 * is expanded. Each server the row would run (its `servers` allow-list applied to the names the file
 * has: read bounded, a FIFO refused) gets an `untrusted` status row saying how to trust it, and a namespace that answers a call with why. A file the row could not use even once
 * trusted (it cannot be read or parsed, or lacks a name the allow-list picks) is one `untrusted` row
 * under its file name, as the trusted row's `unavailable` one: the trust command first, then that
 * failure, coded — what `dsh mcp list` shows for it too.
 */
export async function holdUntrusted(ctx: Context, file: string, decision: TrustDecision, row: Pick<McpConfigFileRow, 'servers'>, revoked = false): Promise<void> {
  // `revoked`: its servers ran, and the user's recorded decision took trust back while the host ran.
  const held = revoked ? `disconnected: trust in ${decision.directory}, which ${file} belongs to, was revoked` : `not started: ${file} belongs to ${decision.directory}, which is not trusted`
  const untrusted = `${held} (no server of it starts, and \${VAR} in it is not expanded); to use it: ${decision.command}`
  const readiness = ctx.get('readiness')
  const hold = (name: string, status: CapabilityStatus) => readiness?.register({ surface: 'mcp', id: name, configured: true, status: () => status, tools: () => [] })
  const { names, failure } = await serverNames(file, row)
  const detail = failure ? `${untrusted}; it would not start once trusted either: ${failure.message}` : untrusted
  if (failure) hold(basename(file), { state: 'untrusted', detail, failure: { code: failure.code, message: failure.message } })
  for (const name of names ?? []) {
    if (!failure) hold(name, { state: 'untrusted', detail, ...(revoked ? { failure: { code: 'MCP_UNTRUSTED', message: `MCP server ${name} was ${detail}` } } : {}) })
    ctx.tools.namespace(`mcp__${name}__`, () => new McpError(`MCP server ${name} was ${detail}`, 'MCP_UNTRUSTED'))
  }
  ctx.logger('mcp').info(`mcpConfig ${file}: ${detail}`)
}

/**
 * The names of the servers the row would run (those of the file its allow-list picks; none when the
 * file cannot be read), and why the row could not run them once trusted: the file cannot be read or
 * parsed, or lacks a name the allow-list picks.
 */
async function serverNames(file: string, row: Pick<McpConfigFileRow, 'servers'>): Promise<{ readonly names?: string[]; readonly failure?: McpError }> {
  let imported
  try {
    // Read as a trusted row and `dsh mcp list` read it (bounded, a FIFO refused at once), so all three
    // name the same servers and give a file they cannot use the same reason.
    imported = await readMcpConfigFile(file)
  } catch (error) {
    return { failure: configFileFailure(error) }
  }
  const names = pickedServers(row, imported.servers).map((server) => String(server.config.serverName))
  try {
    chosenServers(row, imported.servers, file)
    return { names }
  } catch (error) {
    if (error instanceof McpError) return { names, failure: error }
    throw error
  }
}
