import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ListToolsResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ApprovalMode, JsonObject } from 'dsh-core'
import { approvalFor, type ApprovalPolicy } from './approval.ts'
import { McpError } from './errors.ts'
import { publicToolName } from './naming.ts'
import { withOwnSignal } from './own-signal.ts'
import { compileOutputSchema, type OutputCheck } from './output-schema.ts'

/** One server tool as the bridge will publish it. */
export interface PlannedTool {
  readonly rawName: string
  readonly publicName: string
  readonly description: string
  readonly inputSchema: JsonObject
  /** Enforced on `structuredContent` when the server advertised a schema AJV can compile. */
  readonly outputCheck: OutputCheck | undefined
  readonly taskRequired: boolean
  readonly approval: ApprovalMode
}

export interface ToolPlan {
  readonly tools: readonly PlannedTool[]
  /** One line per config field that names tools the server does not list. */
  readonly unmatched: readonly string[]
  /** Why an advertised output schema is not enforced, per raw name. */
  readonly unenforcedSchemas: readonly string[]
  /** Server tools left out because their public name is one of the bridge's own tools. */
  readonly shadowed: readonly string[]
}

export interface ListOptions {
  /** Deadline of each page. */
  readonly pageTimeoutMs: number
  readonly signal: AbortSignal
}

/**
 * Every page of `tools/list` (no params first, then `{cursor}` until there is no next cursor).
 * Raw requests rather than `Client.listTools()`, whose output-validator cache forgets earlier pages.
 */
export async function listAllTools(client: Client, options: ListOptions): Promise<Tool[]> {
  const tools: Tool[] = []
  const cursors = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await withOwnSignal(options.signal, (signal) =>
      client.request({ method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, ListToolsResultSchema, { timeout: options.pageTimeoutMs, signal }),
    )
    tools.push(...page.tools)
    cursor = page.nextCursor || undefined
    if (cursor !== undefined) {
      if (cursors.has(cursor)) throw new McpError(`tools/list returned the cursor ${JSON.stringify(cursor)} twice`, 'MCP_MALFORMED_RESPONSE')
      cursors.add(cursor)
    }
  } while (cursor !== undefined)
  return tools
}

export interface PlanOptions extends ApprovalPolicy {
  readonly enabledTools?: readonly string[] | undefined
  readonly disabledTools: readonly string[]
  /** Public names the bridge itself registers for this server (M4 resource tools). */
  readonly reserved: ReadonlySet<string>
}

/**
 * The next generation, built without touching the registry: names, filters, output schemas and
 * task support. A name listed twice (or two raw names with one public name) fails the whole list.
 */
export function planTools(serverName: string, listed: readonly Tool[], options: PlanOptions): ToolPlan {
  const enabled = options.enabledTools ? new Set(options.enabledTools) : undefined
  const disabled = new Set(options.disabledTools)
  const byPublicName = new Map<string, string>()
  const tools: PlannedTool[] = []
  const unenforcedSchemas: string[] = []
  const shadowed: string[] = []
  for (const tool of listed) {
    const publicName = publicToolName(serverName, tool.name)
    const holder = byPublicName.get(publicName)
    if (holder !== undefined) {
      const what = holder === tool.name ? `tool ${JSON.stringify(tool.name)} more than once` : `tools ${JSON.stringify(holder)} and ${JSON.stringify(tool.name)}, which share the name ${publicName}`
      throw new McpError(`the server listed ${what}: invalid tool list`, 'MCP_MALFORMED_RESPONSE')
    }
    byPublicName.set(publicName, tool.name)
    if ((enabled && !enabled.has(tool.name)) || disabled.has(tool.name)) continue
    if (options.reserved.has(publicName)) {
      shadowed.push(tool.name)
      continue
    }
    let outputCheck: OutputCheck | undefined
    if (tool.outputSchema !== undefined) {
      const compiled = compileOutputSchema(tool.outputSchema)
      if ('check' in compiled) outputCheck = compiled.check
      else unenforcedSchemas.push(`${tool.name}: ${compiled.problem}`)
    }
    tools.push({
      rawName: tool.name,
      publicName,
      description: tool.description?.trim() || `MCP tool "${tool.name}" of server ${serverName}.`,
      inputSchema: tool.inputSchema as JsonObject,
      outputCheck,
      taskRequired: tool.execution?.taskSupport === 'required',
      approval: approvalFor(tool, options),
    })
  }
  const listedNames = new Set(listed.map((tool) => tool.name))
  const unmatched = [
    unlisted('enabledTools/disabledTools', [...(options.enabledTools ?? []), ...options.disabledTools], listedNames),
    unlisted('toolApproval', Object.keys(options.toolApproval), listedNames),
  ].filter((line) => line !== undefined)
  return { tools, unmatched, unenforcedSchemas, shadowed }
}

function unlisted(field: string, names: readonly string[], listed: ReadonlySet<string>): string | undefined {
  const missing = names.filter((name) => !listed.has(name))
  return missing.length ? `${field} name tools the server does not list: ${missing.join(', ')}` : undefined
}
