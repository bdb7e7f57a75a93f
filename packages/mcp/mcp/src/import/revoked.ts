import { dirname } from 'node:path'
import type { Context, ForkScope } from 'cordis'
import { trustOf, type TrustDecision } from 'dsh-core'
import type { McpConfigFileRow } from './row.ts'
import { holdUntrusted } from './untrusted.ts'

/**
 * A trusted workspace's file whose servers run: when trusted.json changes (`dsh trust --revoke` in
 * another shell, seen by a long-lived host) and the recorded decision no longer trusts the file's
 * directory, its servers are disconnected (their scopes disposed: processes stopped, tools gone) and
 * each gets the `untrusted` row and call answer of a file never trusted, saying it was revoked
 * (`MCP_UNTRUSTED`). Only the user's record takes it back: a dialog's session-only yes stands. A
 * grant starts nothing (reload the row, or restart, to use a file trusted later).
 */
export function dropWhenRevoked(ctx: Context, file: string, decision: TrustDecision, row: Pick<McpConfigFileRow, 'servers'>, servers: readonly ForkScope[]): void {
  const trust = trustOf(ctx)
  let dropped = false
  trust.onChange?.(async () => {
    if (dropped) return
    const now = await trust.decide(dirname(file), { brings: `the MCP servers of ${file}`, ask: false })
    if (now.trusted || (now.by !== 'record' && decision.by !== 'record') || dropped) return
    dropped = true
    for (const server of servers) server.dispose()
    await holdUntrusted(ctx, file, now, row, true)
    ctx.logger('mcp').warn(`mcpConfig ${file}: trust in ${now.directory} was revoked; its servers are disconnected`)
  })
}
