import { basename } from 'node:path'
import type { Context } from 'cordis'
import type { TrustDecision } from 'dsh-core'
import { McpError } from '../errors.ts'
import { MAX_MCP_CONFIG_FILE_BYTES, parseMcpConfigText } from './read.ts'

/**
 * A workspace file's servers in a workspace that is not trusted: none starts and nothing in the file
 * is expanded. Each server the file names gets an `untrusted` status row (its name only, read
 * through `ctx.fs`: bounded, a FIFO refused) and a namespace that answers a call with why; a file
 * whose names cannot be read gets one row under its file name.
 */
export async function holdUntrusted(ctx: Context, file: string, decision: TrustDecision): Promise<void> {
  const names = await serverNames(ctx, file)
  const detail = `not started: ${file} belongs to ${decision.directory}, which is not trusted (no server of it starts, and \${VAR} in it is not expanded); to use it: ${decision.command}`
  const readiness = ctx.get('readiness')
  for (const name of names ?? [basename(file)]) {
    readiness?.register({ surface: 'mcp', id: name, configured: true, status: () => ({ state: 'untrusted', detail }), tools: () => [] })
    if (names) ctx.tools.namespace(`mcp__${name}__`, () => new McpError(`MCP server ${name} was ${detail}`, 'MCP_UNTRUSTED'))
  }
  ctx.logger('mcp').info(`mcpConfig ${file}: ${detail}`)
}

async function serverNames(ctx: Context, file: string): Promise<string[] | undefined> {
  const fs = ctx.get('fs')
  if (!fs) return undefined
  try {
    // The one limit of this file, whoever reads it (dsh mcp list names the same servers from it).
    const text = await fs.readText(file, { maxBytes: MAX_MCP_CONFIG_FILE_BYTES })
    const imported = parseMcpConfigText(text, file)
    return imported.servers.map((server) => String(server.config.serverName))
  } catch {
    return undefined
  }
}
