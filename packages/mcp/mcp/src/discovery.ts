import type { Client } from '@modelcontextprotocol/client'
import { ToolSchema } from '@modelcontextprotocol/core'
import type { Tool } from '@modelcontextprotocol/client'
import { Lifetime, readableText, type ApprovalMode, type JsonObject } from 'dsh-core'
import { z } from 'zod'
import { approvalFor, type ApprovalPolicy } from './approval.ts'
import { zodReason } from './classify.ts'
import { McpError } from './errors.ts'
import { inputSchemaProblem } from './input-schema.ts'
import { declaredHeaderParameters, type HeaderParameter } from './x-mcp-header.ts'
import { publicToolName } from './naming.ts'
import { compileOutputSchema, type OutputCheck } from './output-schema.ts'
import { capResultText, type CutNote } from './results.ts'

/** One server tool as the bridge will publish it. */
export interface PlannedTool {
  readonly rawName: string
  readonly publicName: string
  /** The tool as the server listed it, serialised: equal fingerprints publish the same tool. */
  readonly fingerprint: string
  readonly description: string
  /** The length of the description the server listed, when it was longer than `maxDescriptionChars` and cut. */
  readonly cutFrom: number | undefined
  readonly inputSchema: JsonObject
  /** Enforced on `structuredContent` when the server advertised a schema AJV can compile. */
  readonly outputCheck: OutputCheck | undefined
  readonly taskRequired: boolean
  readonly approval: ApprovalMode
  /** SEP-2243 parameters mirrored in `Mcp-Param-*` headers (a 2026-07-28 HTTP connection; else none). */
  readonly headerParameters: readonly HeaderParameter[]
}

/** A listed tool the bridge does not publish because it is invalid. */
export interface RefusedTool {
  /** Its position in the whole list (0-based). */
  readonly index: number
  readonly name: string | undefined
  /** One line. */
  readonly reason: string
}

export interface ToolPlan {
  readonly tools: readonly PlannedTool[]
  readonly refused: readonly RefusedTool[]
  /** One line per config field that names tools the server does not list. */
  readonly unmatched: readonly string[]
  /** Why an advertised output schema is not enforced, per raw name (only for tools planned anew). */
  readonly unenforcedSchemas: readonly string[]
  /** Server tools left out because their public name is one of the bridge's own tools. */
  readonly shadowed: readonly string[]
}

/** A listed tool before it is checked: the server's JSON and its serialisation. */
export interface ListedTool {
  readonly raw: unknown
  readonly fingerprint: string
}

export interface ListOptions {
  /** Deadline of each page. */
  readonly pageTimeoutMs: number
  readonly signal: AbortSignal
  /** Told the first page's `ttlMs` (2026-07-28: how long the listing stays fresh), when it has one. */
  readonly onTtl?: (ttlMs: number) => void
}

const DESCRIPTION_NOTE: CutNote = { what: 'description', rest: "the rest of the server's description is not shown (maxDescriptionChars)" }

/** A page is checked loosely; each tool on it is checked on its own (see `planTools`), so one bad tool costs only itself. */
const LoosePage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional(), ttlMs: z.number().optional().catch(undefined) })

/**
 * Every page of `tools/list` (no params first, then `{cursor}` until there is no next cursor), as
 * the server sent it. A page that is not a list of tools is `MCP_MALFORMED_RESPONSE` with a
 * one-line reason (from the SDK's `$ZodError`), and so is a repeated cursor.
 */
export async function listAllTools(client: Client, options: ListOptions): Promise<ListedTool[]> {
  const tools: ListedTool[] = []
  const cursors = new Set<string>()
  let cursor: string | undefined
  do {
    let page: z.infer<typeof LoosePage>
    try {
      // Each page on a lifetime of its own: the SDK never removes the listener it adds to a request's signal.
      page = await Lifetime.run({ signal: options.signal }, (own) =>
        client.request({ method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, LoosePage, { timeout: options.pageTimeoutMs, signal: own.signal }),
      )
    } catch (error) {
      if (error instanceof z.core.$ZodError) throw new McpError(`tools/list: the server sent a page that is not a list of tools: ${zodReason(error)}`, 'MCP_MALFORMED_RESPONSE', { cause: error })
      throw error
    }
    if (cursor === undefined && page.ttlMs !== undefined) options.onTtl?.(page.ttlMs)
    for (const raw of page.tools) tools.push({ raw, fingerprint: JSON.stringify(raw) })
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
  /** The connection speaks 2026-07-28 over HTTP: `x-mcp-header` declarations apply (an invalid one refuses its tool). */
  readonly headerParameters?: boolean
  /** A longer description is cut to this many characters, a note included. */
  readonly maxDescriptionChars: number
}

/**
 * The next set of tools, built without touching the registry: each tool checked against the SDK's
 * schema (a tool it refuses, or one with an empty name, is refused alone), names, filters, output
 * schemas and task support. A tool whose fingerprint is in `previous` is taken from there as it
 * is, so an unchanged tool costs neither a schema check nor an output-schema compile. A name listed
 * twice (or two raw names with one public name) fails the whole list.
 */
export function planTools(serverName: string, listed: readonly ListedTool[], options: PlanOptions, previous: ReadonlyMap<string, PlannedTool> = new Map()): ToolPlan {
  const enabled = options.enabledTools ? new Set(options.enabledTools) : undefined
  const disabled = new Set(options.disabledTools)
  const byPublicName = new Map<string, string>()
  const listedNames = new Set<string>()
  const tools: PlannedTool[] = []
  const refused: RefusedTool[] = []
  const unenforcedSchemas: string[] = []
  const shadowed: string[] = []
  listed.forEach(({ raw, fingerprint }, index) => {
    const known = previous.get(fingerprint)
    let tool: Tool | undefined
    if (!known) {
      const checked = checkTool(raw, options.headerParameters === true)
      if ('reason' in checked) {
        refused.push({ index, name: nameOf(raw), reason: checked.reason })
        return
      }
      tool = checked.tool
    }
    const rawName = known?.rawName ?? tool!.name
    const publicName = known?.publicName ?? publicToolName(serverName, rawName)
    listedNames.add(rawName)
    const holder = byPublicName.get(publicName)
    if (holder !== undefined) {
      const what = holder === rawName ? `tool ${JSON.stringify(rawName)} more than once` : `tools ${JSON.stringify(holder)} and ${JSON.stringify(rawName)}, which share the name ${publicName}`
      throw new McpError(`the server listed ${what}: invalid tool list`, 'MCP_MALFORMED_RESPONSE')
    }
    byPublicName.set(publicName, rawName)
    if ((enabled && !enabled.has(rawName)) || disabled.has(rawName)) return
    if (options.reserved.has(publicName)) {
      shadowed.push(rawName)
      return
    }
    if (known) {
      tools.push(known)
      return
    }
    let outputCheck: OutputCheck | undefined
    if (tool!.outputSchema !== undefined) {
      const compiled = compileOutputSchema(tool!.outputSchema)
      if ('check' in compiled) outputCheck = compiled.check
      else unenforcedSchemas.push(`${rawName}: ${compiled.problem}`)
    }
    // Read as the model reads a result (results.ts): no terminal escapes or unseen controls.
    const description = readableText(tool!.description ?? '').trim() || `MCP tool "${rawName}" of server ${serverName}.`
    tools.push({
      rawName,
      publicName,
      fingerprint,
      description: capResultText(description, options.maxDescriptionChars, DESCRIPTION_NOTE),
      cutFrom: description.length > options.maxDescriptionChars ? description.length : undefined,
      inputSchema: tool!.inputSchema as JsonObject,
      outputCheck,
      taskRequired: tool!.execution?.taskSupport === 'required',
      approval: approvalFor(tool!, options),
      headerParameters: options.headerParameters ? checkedHeaders(tool!) : [],
    })
  })
  const unmatched = [
    unlisted('enabledTools/disabledTools', [...(options.enabledTools ?? []), ...options.disabledTools], listedNames),
    unlisted('toolApproval', Object.keys(options.toolApproval), listedNames),
  ].filter((line) => line !== undefined)
  return { tools, refused, unmatched, unenforcedSchemas, shadowed }
}

function checkTool(raw: unknown, headerParameters: boolean): { tool: Tool } | { reason: string } {
  const checked = ToolSchema.safeParse(raw)
  if (!checked.success) return { reason: zodReason(checked.error) }
  if (!checked.data.name) return { reason: 'the name is empty' }
  const schemaProblem = inputSchemaProblem(checked.data.inputSchema)
  if (schemaProblem) return { reason: schemaProblem }
  if (headerParameters) {
    const declared = declaredHeaderParameters(checked.data.inputSchema)
    if ('invalid' in declared) return { reason: declared.invalid }
  }
  return { tool: checked.data }
}

function checkedHeaders(tool: Tool): readonly HeaderParameter[] {
  const declared = declaredHeaderParameters(tool.inputSchema)
  return 'parameters' in declared ? declared.parameters : []
}

function nameOf(raw: unknown): string | undefined {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined
  return typeof name === 'string' ? name : undefined
}

function unlisted(field: string, names: readonly string[], listed: ReadonlySet<string>): string | undefined {
  const missing = names.filter((name) => !listed.has(name))
  return missing.length ? `${field} name tools the server does not list: ${missing.join(', ')}` : undefined
}

/** `"bad-required": inputSchema.required: …`, or `#12 "": the name is empty` when the name is missing or empty. */
export function describeRefused(tool: RefusedTool): string {
  return tool.name ? `${JSON.stringify(tool.name)}: ${tool.reason}` : `#${tool.index} ${JSON.stringify(tool.name ?? '')}: ${tool.reason}`
}
