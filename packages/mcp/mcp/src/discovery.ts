import type { Client } from '@modelcontextprotocol/client'
import { ToolSchema } from '@modelcontextprotocol/core'
import type { Tool } from '@modelcontextprotocol/client'
import { DEFAULT_MAX_JSON_DEPTH, Lifetime, readableText, type ApprovalMode, type JsonObject } from 'dsh-core'
import { z } from 'zod'
import { approvalFor, type ApprovalPolicy } from './approval.ts'
import { zodReason } from './classify.ts'
import { McpError } from './errors.ts'
import { inputSchemaProblem, nestsTooDeep } from './input-schema.ts'
import { declaredHeaderParameters, type HeaderParameter } from './x-mcp-header.ts'
import { isCleanName, publicToolName } from './naming.ts'
import { compileOutputSchema, type OutputCheck } from './output-schema.ts'
import { capResultText, type CutNote } from './results.ts'

/** One server tool as the bridge will publish it. */
export interface PlannedTool {
  readonly rawName: string
  /** `usualName`, or another name when a tool of the same list holds that one (see `assignNames`). */
  readonly publicName: string
  /** `publicToolName(server, rawName)`. */
  readonly usualName: string
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
  /** Published tools whose usual public name another listed tool holds, and the name they got instead. */
  readonly renamed: readonly RenamedTool[]
}

export interface RenamedTool {
  readonly rawName: string
  readonly publicName: string
  /** `publicToolName(server, rawName)`, which `holder` (a raw name) has. */
  readonly usualName: string
  readonly holder: string
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

const DESCRIPTION_NOTE: CutNote = { what: 'description', setting: 'maxDescriptionChars', rest: 'is not shown (only the server has it)' }

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
    // A tool nested past what dsh keeps is refused (checkTool) and never reused: JSON.stringify would overflow the stack on it.
    for (const raw of page.tools) tools.push({ raw, fingerprint: nestsTooDeep(raw) ? `\0too deep #${tools.length}` : JSON.stringify(raw) })
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
 * is, so an unchanged tool costs neither a schema check nor an output-schema compile. A raw name
 * listed twice fails the whole list (reference mcp.md §4.4), unless the row leaves that name out.
 */
export function planTools(serverName: string, listed: readonly ListedTool[], options: PlanOptions, previous: ReadonlyMap<string, PlannedTool> = new Map()): ToolPlan {
  const enabled = options.enabledTools ? new Set(options.enabledTools) : undefined
  const disabled = new Set(options.disabledTools)
  const leftOut = (rawName: string) => (enabled !== undefined && !enabled.has(rawName)) || disabled.has(rawName)
  const entries: Entry[] = []
  const refused: RefusedTool[] = []
  listed.forEach(({ raw, fingerprint }, index) => {
    const known = previous.get(fingerprint)
    if (known) {
      entries.push({ index, rawName: known.rawName, usualName: known.usualName, fingerprint, known, tool: undefined })
      return
    }
    const checked = checkTool(raw, options.headerParameters === true)
    if ('reason' in checked) refused.push({ index, name: nameOf(raw), reason: checked.reason })
    else entries.push({ index, rawName: checked.tool.name, usualName: publicToolName(serverName, checked.tool.name), fingerprint, known: undefined, tool: checked.tool })
  })
  const unique = distinctEntries(entries, leftOut)
  const { names, renamed } = assignNames(serverName, unique)
  const tools: PlannedTool[] = []
  const unenforcedSchemas: string[] = []
  const shadowed: string[] = []
  for (const entry of unique) {
    const { rawName, known, tool } = entry
    const publicName = names.get(entry)!
    if (leftOut(rawName)) continue
    if (options.reserved.has(publicName)) {
      shadowed.push(rawName)
      continue
    }
    if (known) {
      tools.push(known.publicName === publicName ? known : { ...known, publicName })
      continue
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
      usualName: entry.usualName,
      fingerprint: entry.fingerprint,
      description: capResultText(description, options.maxDescriptionChars, DESCRIPTION_NOTE),
      cutFrom: description.length > options.maxDescriptionChars ? description.length : undefined,
      inputSchema: tool!.inputSchema as JsonObject,
      outputCheck,
      taskRequired: tool!.execution?.taskSupport === 'required',
      approval: approvalFor(tool!, options),
      headerParameters: options.headerParameters ? checkedHeaders(tool!) : [],
    })
  }
  const listedNames = new Set(entries.map((entry) => entry.rawName))
  const unmatched = [
    unlisted('enabledTools/disabledTools', [...(options.enabledTools ?? []), ...options.disabledTools], listedNames),
    unlisted('toolApproval', Object.keys(options.toolApproval), listedNames),
  ].filter((line) => line !== undefined)
  return { tools, refused, unmatched, unenforcedSchemas, shadowed, renamed: renamed.filter((tool) => !leftOut(tool.rawName)) }
}

/** A listed tool that passed its checks, before it is named. */
interface Entry {
  readonly index: number
  readonly rawName: string
  /** `publicToolName(server, rawName)`. */
  readonly usualName: string
  readonly fingerprint: string
  /** The same tool as registered before (same fingerprint), or undefined and the checked tool. */
  readonly known: PlannedTool | undefined
  readonly tool: Tool | undefined
}

/**
 * The entries, each raw name once. A raw name listed twice is an invalid list: the reference
 * (mcp.md §4.4, checklist 23) fails the whole list and keeps the last good tools, rather than
 * publish one of the two at random (Codex keeps the first and warns). The message names both
 * entries and the two ways out; a name the row leaves out (`disabledTools`, or absent from
 * `enabledTools`) is the second: neither entry is published, and the rest of the list is.
 */
function distinctEntries(entries: readonly Entry[], leftOut: (rawName: string) => boolean): Entry[] {
  const first = new Map<string, Entry>()
  for (const entry of entries) {
    const earlier = first.get(entry.rawName)
    if (earlier === undefined) {
      first.set(entry.rawName, entry)
      continue
    }
    if (leftOut(entry.rawName)) continue
    const name = JSON.stringify(entry.rawName)
    throw new McpError(
      `the server listed the tool ${name} twice (entries #${earlier.index} and #${entry.index} of its tools/list), which is not a valid tool list, so none of its tools are published; fix the server, or leave that tool out (disabledTools: [${name}]) to publish the rest`,
      'MCP_MALFORMED_RESPONSE',
    )
  }
  return [...first.values()]
}

/**
 * Each entry's public name: its usual one (`publicToolName`), unless another listed tool holds it.
 * A raw name can be exactly another tool's hashed name (`a_b_3f…` beside `a.b`, whose name is
 * `mcp__s__a_b_3f…`), and two hashed names can share their 48 bits. Clean names are claimed first,
 * since a clean name is the raw name itself and a hashed one is ours to choose; a hashed name that
 * is then taken is hashed again (round 1, 2, …) until it is free. So the result depends on the set
 * of listed names, not their order (except for two hashed names sharing a hash, where the later
 * one moves), and a list without such a pair names every tool as `publicToolName` does.
 */
function assignNames(serverName: string, entries: readonly Entry[]): { names: Map<Entry, string>; renamed: RenamedTool[] } {
  const names = new Map<Entry, string>()
  const holders = new Map<string, string>()
  const renamed: RenamedTool[] = []
  for (const entry of entries) {
    if (!isCleanName(serverName, entry.rawName, entry.usualName)) continue
    names.set(entry, entry.usualName)
    holders.set(entry.usualName, entry.rawName)
  }
  for (const entry of entries) {
    if (names.has(entry)) continue
    let name = entry.usualName
    for (let round = 1; holders.has(name); round++) name = publicToolName(serverName, entry.rawName, round)
    if (name !== entry.usualName) renamed.push({ rawName: entry.rawName, publicName: name, usualName: entry.usualName, holder: holders.get(entry.usualName)! })
    names.set(entry, name)
    holders.set(name, entry.rawName)
  }
  return { names, renamed }
}

function checkTool(raw: unknown, headerParameters: boolean): { tool: Tool } | { reason: string } {
  if (nestsTooDeep(raw)) return { reason: `its entry nests deeper than ${DEFAULT_MAX_JSON_DEPTH} levels (inputSchema, outputSchema or another field), more than dsh keeps` }
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

/** `tool "a.b" is published as mcp__s__a_b_…: its usual name mcp__s__a_b_… is tool "a_b_…"'s`. */
export function describeRenamed(tool: RenamedTool): string {
  return `tool ${JSON.stringify(tool.rawName)} is published as ${tool.publicName}: its usual name ${tool.usualName} is tool ${JSON.stringify(tool.holder)}'s`
}
