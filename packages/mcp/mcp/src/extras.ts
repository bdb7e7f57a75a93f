import { createHash } from 'node:crypto'
import { ListPromptsResultSchema } from '@modelcontextprotocol/core'
import type { Context } from 'cordis'
import { codedDetail, createUserMessage, Lifetime, readableText, TOOL_SEARCH, type JsonObject, type JsonValue, type Session, type ToolDefinition, type ToolExecution } from 'dsh-core'
import { z } from 'zod'
import { request } from './call.ts'
import { classifyFailure } from './classify.ts'
import type { McpConfig } from './config.ts'
import type { Generation } from './generation.ts'
import { publicToolName } from './naming.ts'
import { capResultText, inlineField, type CutNote } from './results.ts'
import type { Supervisor } from './supervisor.ts'

/**
 * M4, behind flags: the server's `instructions` entered into sessions, its resources through two
 * tools, its prompts listed in `dsh status`. Each is off by default.
 */
export class ServerExtras {
  /** The server's instructions as entered into sessions (bounded), from the last connection. */
  instructions: string | undefined
  prompts: readonly string[] = []
  /** Why the last connection's prompts/list failed, coded as every list failure is (shown in status and the log). */
  private promptsFailure: { readonly message: string; readonly code: string } | undefined

  constructor(
    private readonly config: McpConfig,
    private readonly logger: { warn(message: string): void },
  ) {}

  /** The public names of the bridge's own tools for this server. */
  get reserved(): ReadonlySet<string> {
    return new Set(this.config.resources ? [RESOURCE_TOOLS.list, RESOURCE_TOOLS.read].map((raw) => publicToolName(this.config.serverName, raw)) : [])
  }

  /** Reads what the flags ask for from a fresh connection. A failure is logged and leaves the rest working. */
  async connected(generation: Generation, signal: AbortSignal): Promise<void> {
    if (this.config.instructions) this.instructions = boundInstructions(generation.client.getInstructions(), this.config.maxInstructionsChars)
    if (this.config.prompts && generation.client.getServerCapabilities()?.prompts) {
      const server = this.config.serverName
      try {
        this.prompts = await listPromptNames(generation, this.config.startupTimeoutMs, signal)
        this.promptsFailure = undefined
      } catch (error) {
        // The prompts of an earlier connection are not this server's any more: none, and why.
        const failure = classifyFailure(error, { what: 'prompts/list', subject: `MCP server ${server}`, stage: 'call', ending: undefined, disposed: signal.aborted })
        this.prompts = []
        this.promptsFailure = { message: failure.message, code: failure.code }
        this.logger.warn(`mcp(${server}): ${codedDetail({ detail: failure.message, failure })}`)
      }
    }
  }

  /** Status lines: the prompts the user can pick from. */
  statusLines(): string[] {
    if (!this.config.prompts) return []
    const failure = this.promptsFailure
    if (failure) return [`prompts: none, ${codedDetail({ detail: failure.message, failure })}`]
    return [`prompts: ${this.prompts.length ? this.prompts.join(', ') : 'none'}`]
  }

  /** The pre-step link that enters the instructions into a session once per change. */
  install(ctx: Context, supervisor: Supervisor): void {
    if (this.config.instructions) {
      const sessions = ctx.get('sessions')
      if (!sessions) this.logger.warn(`mcp(${this.config.serverName}): instructions: true needs the dsh-core/sessions row; instructions are not entered`)
      const tools = ctx.tools
      const deferred = () => supervisor.tools.filter((name) => tools.isDeferred(name)).length
      sessions?.use(async (input, next) => {
        const message = this.instructionsMessage(input.session, deferred())
        return message ? next([message, ...input.messages]) : next()
      })
    }
    if (this.config.resources) {
      for (const definition of resourceTools(this.config, supervisor)) ctx.tools.register(definition)
    }
  }

  /** `deferred`: how many of the server's tools the catalog withholds until `tool_search` loads them. */
  private instructionsMessage(session: Session, deferred: number) {
    const text = this.instructions
    if (!text) return undefined
    const server = this.config.serverName
    const tools = toolsPhrase(server, deferred)
    // The wording is part of what the session saw: a server whose tools become deferred (or listed again) enters it anew.
    const digest = createHash('sha256').update(tools).update('\n').update(text).digest('hex').slice(0, 16)
    const previous = lastInstructionsDigest(session, server)
    if (previous === digest) return undefined
    const body = `<mcp-server-instructions server="${server}"${previous ? ' update="true"' : ''}>\nInstructions from the MCP server "${server}" for using ${tools}:\n${escapeMarkup(text)}\n</mcp-server-instructions>`
    return createUserMessage(body, { kind: 'mcp-instructions', server, digest })
  }
}

const RESOURCE_TOOLS = { list: 'list_resources', read: 'read_resource' } as const

/**
 * How the instructions name the server's tools. Deferred tools are not in the model's list, so the
 * instructions would name tools it cannot see: they say how to reach them (the wording of the
 * `tool_search` prompt section).
 */
function toolsPhrase(server: string, deferred: number): string {
  const namespace = `mcp__${server}__*`
  if (!deferred) return `its tools (${namespace})`
  const count = deferred === 1 ? '1 of them is' : `${deferred} of them are`
  return `its tools (${namespace}; ${count} not listed until loaded: call ${TOOL_SEARCH} with a tool's exact name, "select:name1,name2" or words describing the task, or call a tool whose exact name you know directly)`
}

/** Where the rest of cut instructions is: only the server has them. */
const INSTRUCTIONS_NOTE: CutNote = { what: "server's instructions", setting: 'maxInstructionsChars', rest: 'is not entered (only the server has it)' }

function boundInstructions(text: string | undefined, max: number): string | undefined {
  // Read as the model reads a tool's result (results.ts): no terminal escapes or unseen controls.
  const trimmed = text === undefined ? undefined : readableText(text).trim()
  if (!trimmed) return undefined
  return capResultText(trimmed, max, INSTRUCTIONS_NOTE)
}

/** The server's text cannot open or close tags around it: `&`, `<` and `>` become entities. */
function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** The digest of the newest instructions message this server entered into the session. */
function lastInstructionsDigest(session: Session, server: string): string | undefined {
  const events = session.events
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!
    if (event.type !== 'user/message') continue
    const source = (event.data as { source?: { kind?: unknown; server?: unknown; digest?: unknown } }).source
    if (source?.kind === 'mcp-instructions' && source.server === server && typeof source.digest === 'string') return source.digest
  }
  return undefined
}

async function listPromptNames(generation: Generation, timeout: number, signal: AbortSignal): Promise<string[]> {
  const names: string[] = []
  let cursor: string | undefined
  do {
    const page = await Lifetime.run({ signal }, (own) =>
      generation.client.request({ method: 'prompts/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, ListPromptsResultSchema, { timeout, signal: own.signal }),
    )
    names.push(...page.prompts.map((prompt) => prompt.name))
    cursor = page.nextCursor || undefined
  } while (cursor !== undefined && names.length < 1000)
  return names
}

function resourceTools(config: McpConfig, supervisor: Supervisor): ToolDefinition[] {
  const server = config.serverName
  const options = (exec: ToolExecution) => ({ lifetime: exec.lifetime, timeoutMs: config.toolCallTimeoutMs })
  const list: ToolDefinition<{ cursor?: string | undefined }, JsonObject> = {
    name: publicToolName(server, RESOURCE_TOOLS.list),
    description: `Lists the resources (documents, files, data) the MCP server "${server}" offers, with their URIs. Read one with ${publicToolName(server, RESOURCE_TOOLS.read)}.`,
    input: z.strictObject({ cursor: z.string().optional().describe('From the previous page, to get the next one.') }),
    surface: 'mcp',
    timeoutMs: config.toolCallTimeoutMs + 1000,
    approval: config.defaultApproval,
    execute: (args, exec) => request(supervisor, 'resources/list', { method: 'resources/list', ...(args.cursor ? { params: { cursor: args.cursor } } : {}) }, options(exec)),
    render: (_args, value) => capResultText(readableText(renderResourceList(value)), config.maxResultChars),
  }
  const read: ToolDefinition<{ uri: string }, JsonObject> = {
    name: publicToolName(server, RESOURCE_TOOLS.read),
    description: `Reads one resource of the MCP server "${server}" by its URI (from ${publicToolName(server, RESOURCE_TOOLS.list)}).`,
    input: z.strictObject({ uri: z.string().min(1).describe('The resource URI.') }),
    surface: 'mcp',
    timeoutMs: config.toolCallTimeoutMs + 1000,
    approval: config.defaultApproval,
    execute: (args, exec) => request(supervisor, 'resources/read', { method: 'resources/read', params: { uri: args.uri } }, options(exec)),
    render: (_args, value) => capResultText(readableText(renderResourceContents(value)), config.maxResultChars),
  }
  return [list, read] as ToolDefinition[]
}

function objects(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter((item): item is JsonObject => typeof item === 'object' && item !== null && !Array.isArray(item)) : []
}

function renderResourceList(value: JsonObject): string {
  const lines = objects(value.resources).map((resource) => {
    // One line per resource, whatever its fields hold (a name with a line break would forge a resource of its own).
    const mime = typeof resource.mimeType === 'string' ? ` (${inlineField(resource.mimeType)})` : ''
    const description = typeof resource.description === 'string' ? `: ${inlineField(resource.description)}` : ''
    return `${inlineField(String(resource.name ?? resource.uri))} ${inlineField(String(resource.uri))}${mime}${description}`
  })
  if (typeof value.nextCursor === 'string' && value.nextCursor) lines.push(`(more: call again with cursor ${JSON.stringify(value.nextCursor)})`)
  return lines.length ? lines.join('\n') : '(no resources)'
}

function renderResourceContents(value: JsonObject): string {
  const parts = objects(value.contents).map((content) => {
    const header = `${inlineField(String(content.uri))}${typeof content.mimeType === 'string' ? ` (${inlineField(content.mimeType)})` : ''}`
    if (typeof content.text === 'string') return `${header}\n${content.text}`
    return `${header}\n[binary content, ${typeof content.blob === 'string' ? content.blob.length : 0} base64 characters; the data is kept in the result value, not shown here]`
  })
  return parts.length ? parts.join('\n\n') : '(the resource has no contents)'
}
