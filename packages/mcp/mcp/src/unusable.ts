import type { Context } from 'cordis'
import { codedDetail } from 'dsh-core'
import type { z } from 'zod'
import { McpConfig } from './config.ts'
import { McpError } from './errors.ts'

/**
 * A server dsh does not start because its row cannot be used as written: a `${VAR}` that is not set
 * here (an environment fact, not a mistake in the file), or, for a server of an `mcpConfig:` file,
 * a field dsh cannot use. It is that server's `unavailable` status row and its calls fail with
 * `MCP_SERVER_UNUSABLE`; the other rows and servers boot as usual.
 */
export interface UnusableServer {
  readonly unusable: true
  readonly serverName: string
  /** Every problem, each naming its field (and the variable). */
  readonly reason: string
}

export type ServerCheck = { readonly ok: true; readonly config: McpConfig } | { readonly ok: false; readonly unsetOnly: boolean; readonly problems: readonly string[] }

/** Parses one server row and says what is wrong with it, field by field. */
export function checkServer(config: unknown): ServerCheck {
  const parsed = McpConfig.safeParse(config)
  if (parsed.success) return { ok: true, config: parsed.data }
  return { ok: false, unsetOnly: parsed.error.issues.every(isUnsetVariable), problems: parsed.error.issues.map((issue) => describeIssue(issue)) }
}

export function unusableServer(serverName: string, problems: readonly string[]): UnusableServer {
  return { unusable: true, serverName, reason: problems.join('; ') }
}

function isUnsetVariable(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && typeof (issue as { params?: { unsetVariable?: unknown } }).params?.unsetVariable === 'string'
}

/**
 * `field.path: message`. A union's own message ("Invalid input") names nothing, so the branch that
 * got furthest into the value speaks for it (`oauth.scopes: expected array, received string`).
 */
export function describeIssue(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[] = []): string {
  const path = [...prefix, ...issue.path]
  if (issue.code === 'invalid_union' && issue.errors.length) {
    const deepest = issue.errors
      .filter((branch) => branch.length)
      .map((branch) => branch[0]!)
      .reduce<z.core.$ZodIssue | undefined>((best, candidate) => (!best || candidate.path.length > best.path.length ? candidate : best), undefined)
    if (deepest && deepest.path.length) return describeIssue(deepest, path)
  }
  return `${path.map(String).join('.') || 'config'}: ${issue.message}`
}

/**
 * The status row and the namespace of a server that is not started: `dsh status` shows it as
 * `unavailable` with the reason, and a call to one of its names says why instead of "unknown tool".
 */
export function applyUnusable(ctx: Context, server: UnusableServer, reserve: (ctx: Context, serverName: string) => Set<string>): void {
  const names = reserve(ctx, server.serverName)
  ctx.effect(() => () => names.delete(server.serverName))
  const detail = `not started: ${server.reason}`
  const failure = { code: 'MCP_SERVER_UNUSABLE', message: `MCP server ${server.serverName} is ${detail}` } as const
  ctx.logger('mcp').warn(codedDetail({ detail: failure.message, failure }))
  ctx.tools.namespace(`mcp__${server.serverName}__`, () => new McpError(failure.message, 'MCP_SERVER_UNUSABLE'))
  ctx.get('readiness')?.register({ surface: 'mcp', id: server.serverName, configured: true, status: () => ({ state: 'unavailable', detail, failure }), tools: () => [] })
}
