import { createRequire } from 'node:module'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/core'
import { Server, type CallToolRequest, type CallToolResult, type McpRequestContext, type ServerCapabilities } from '@modelcontextprotocol/server'
import { isRecord, Lifetime, untracked, type Host, type Session, type SessionService, type ToolProgress, type ToolResult, type ToolRuntime } from 'dsh-core'
import type { SkillRegistry } from 'dsh-skill'
import { approveThroughClient, explainApproval } from './serve-approval.ts'
import { servePrompts } from './serve-prompts.ts'
import { resumedState, ServedQuestions } from './serve-questions.ts'
import { ServedSkills, serveSkills, SKILLS_CAPABILITIES } from './serve-skills.ts'
import { Routes, RpcCode, RpcError, type Extra } from './serve-rpc.ts'
import { plainToolCall } from './serve-shapes.ts'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

export interface CompositionOptions {
  /** The workspace of the one long-lived session every call runs in. */
  readonly cwd: string
  /** `tools/call` requests running at once over every connection; one more is answered with `SERVER_BUSY`. */
  readonly maxConcurrentCalls: number
  /** A `tools/call` still running after this is aborted and answered `SERVE_REQUEST_TIMEOUT`. */
  readonly requestTimeoutMs: number
  /** The largest content one `resources/read` sends (serve-skills.ts); a larger one is `SERVE_READ_TOO_LARGE`. */
  readonly maxReadBytes: number
  /** A bridged server's question relayed to the client is cancelled when no answer came in this long. */
  readonly answerTimeoutMs: number
  /**
   * `session`: the model's catalog (deferred tools once a `tool_search` of the session loaded them).
   * `all`: every registered tool, sorted by name, so that the list depends on the preset alone, not
   * on what some client searched: replicas behind a load balancer answer alike (`--http`).
   */
  readonly catalog: 'session' | 'all'
  /**
   * Whether a `prompt` tool may ask the client's user through elicitation. Only a connection that
   * lives past one request can (stdio with a 2025-11-25 client): the request to the client needs
   * somewhere to go.
   */
  readonly elicitApproval: boolean
  /**
   * Asked when a call finds no tool (`UNKNOWN_TOOL`): a better answer when there is one (main.ts:
   * `mcp__<server>__…` of a server a `disabled: true` row turns off is MCP_SERVER_DISABLED).
   */
  readonly explainUnknownTool?: (name: string) => Promise<ToolResult | undefined>
}

/** What changed in a burst: the tool catalog or the prompts (skills). */
export type ListChange = 'tools' | 'prompts'

/**
 * The composition as MCP serves it, whatever the transport: one session, one bound on running calls,
 * one route table, and `server`, the SDK v2 server factory both serving entries call (`serveStdio`
 * once per connection, `createMcpHandler` once per HTTP request). Every instance it makes answers
 * from the same routes, so the two protocol revisions and the two transports cannot drift apart.
 *
 * A new kind of request is a `routes.add` in `buildRoutes` below (as SEP-2640's skills are, in
 * serve-skills.ts), with its capability in `capabilities`.
 */
export class ServedComposition {
  readonly session: Session
  private readonly routes = new Routes()
  private readonly skills: SkillRegistry | undefined
  private readonly instructions: string
  private readonly capabilities: ServerCapabilities
  /**
   * Calls are effect-free, so they skip cordis's caller tracking (proxies and an Error per call);
   * registering an approver stays tracked, an effect of this host.
   */
  private readonly calls: ToolRuntime
  /** Bridged servers' questions, relayed to the client whose call asks them (serve-questions.ts). */
  private readonly questions: ServedQuestions
  private running = 0
  /** Waiting for the running calls to end (a draining `dsh serve --http`). */
  private idleWaiters: (() => void)[] = []

  constructor(
    private readonly host: Host,
    private readonly tools: ToolRuntime,
    private readonly sessions: SessionService,
    private readonly options: CompositionOptions,
  ) {
    this.session = sessions.create({ cwd: options.cwd })
    this.calls = untracked(tools)
    this.questions = new ServedQuestions(tools, options.answerTimeoutMs)
    this.skills = host.app.get('skills')
    this.instructions = tools
      .sections()
      .map((section) => section.text)
      .join('\n\n')
    this.capabilities = { tools: { listChanged: true }, ...(this.skills ? { prompts: { listChanged: true }, ...SKILLS_CAPABILITIES } : {}) }
    this.buildRoutes()
  }

  /** Calls running now, over every connection. */
  get callsRunning(): number {
    return this.running
  }

  /** Whether the composition's routes answer this method (the SDK answers the handshake, `ping` and subscriptions itself). */
  answers(method: string): boolean {
    return this.routes.has(method)
  }

  /** Settles once no call is running (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.running === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** One SDK server answering from the composition's routes. */
  readonly server = (_context?: McpRequestContext): Server => {
    const server = new Server({ name: 'dsh', version }, { capabilities: this.capabilities, ...(this.instructions ? { instructions: this.instructions } : {}) })
    server.fallbackRequestHandler = this.routes.dispatch
    if (this.options.elicitApproval) {
      const stopApproving = approveThroughClient(server, this.tools)
      server.onclose = stopApproving
    }
    return server
  }

  /**
   * Calls `listener` once per burst of changes to the catalog or the skills (those made in one turn
   * of the event loop): a re-syncing MCP server changes many entries at once, and a client needs to
   * hear about it once. The skills watcher reports files as each stands still, so a directory filled
   * over a second is a few bursts, not one.
   * Returns what stops listening.
   */
  onListChanged(listener: (change: ListChange) => void): () => void {
    const stops = [coalesced(() => listener('tools'), (notify) => this.host.app.on('tools/change', notify))]
    const { skills } = this
    if (skills) stops.push(coalesced(() => listener('prompts'), (notify) => skills.onChange(notify)))
    return () => {
      for (const stop of stops) stop()
    }
  }

  /**
   * No question reaches a client from now on: the ones waiting for a client's retry are cancelled,
   * and new ones are answered that nobody can answer. A draining server refuses every new request,
   * a retry with an answer included, so a call waiting for one could only run out the drain.
   */
  stopAsking(): void {
    this.questions.close()
  }

  /** Ends the served session (its log freed). */
  close(): void {
    this.questions.close()
    this.sessions.end(this.session)
  }

  private buildRoutes(): void {
    const { routes, tools, session } = this
    routes.add(ListToolsRequestSchema, () => ({
      tools: tools.catalog(this.options.catalog === 'all' ? { all: true } : { session }).map((tool) => {
        const outputSchema = tools.outputSchema(tool.name)
        return { name: tool.name, description: tool.description, inputSchema: tool.parameters as { type: 'object' }, ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}) }
      }),
    }))
    routes.add(
      CallToolRequestSchema,
      async (request, extra) => {
        // A 2026-07-28 retry carrying the client's answers continues a call admitted before: never refused.
        const resuming = resumedState(extra) !== undefined
        if (!resuming) this.admitCall()
        // A call counts until its tool returns, across the rounds of questions it waits in between
        // (a 2026-07-28 call answered `input_required` keeps running here), not until one answer is sent.
        let started = false
        try {
          return await this.questions.relay(extra, request.params.name, (callExtra) => {
            started = true
            return this.callTool(request, callExtra).finally(() => this.callEnded())
          })
        } finally {
          if (!resuming && !started) this.callEnded()
        }
      },
      plainToolCall,
    )
    if (this.skills) {
      servePrompts(routes, this.skills, session)
      // SEP-2640 (issue 30 item 4): the same skills as `skill://` resources with digests.
      const logger = this.host.app.logger('serve')
      serveSkills(routes, new ServedSkills(this.skills, session, (line) => logger.warn(line), this.options.maxReadBytes))
    }
  }

  /** A bound on the work clients can start at once: past it, a clear refusal rather than a queue. */
  private admitCall(): void {
    if (this.running >= this.options.maxConcurrentCalls) {
      throw new RpcError(RpcCode.SERVER_BUSY, `dsh serve is already running ${this.running} tool calls, its limit (--max-concurrent-calls ${this.options.maxConcurrentCalls}); send this call again once one has answered`)
    }
    this.running++
  }

  private callEnded(): void {
    if (--this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve()
  }

  private async callTool(request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
    // The client asked for progress by sending a token: relay the tool's reports as notifications.
    const token = request.params._meta?.progressToken
    const onProgress =
      token === undefined
        ? undefined
        : (update: ToolProgress) => void extra.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => {})
    const { calls, session } = this
    const { name } = request.params
    const { requestTimeoutMs } = this.options
    const deadline = Lifetime.following(extra.mcpReq.signal, { timeoutMs: requestTimeoutMs, code: SERVE_REQUEST_TIMEOUT })
    let result: ToolResult
    try {
      result = await calls.execute({ name, arguments: request.params.arguments ?? {}, session, signal: deadline.signal, ...(onProgress ? { onProgress } : {}) })
    } finally {
      deadline.dispose()
    }
    if (deadline.expired) result = timedOut(name, requestTimeoutMs)
    else if (result.isError && result.error.code === 'UNKNOWN_TOOL' && this.options.explainUnknownTool) result = (await this.options.explainUnknownTool(name)) ?? result
    return toCallToolResult(explainApproval(result, this.options.elicitApproval), calls.outputSchema(name) !== undefined)
  }
}

/** The code of a call `dsh serve` aborted at its `--request-timeout-ms`. */
export const SERVE_REQUEST_TIMEOUT = 'SERVE_REQUEST_TIMEOUT'

function timedOut(name: string, ms: number): ToolResult {
  const message = `the call of ${name} was still running after ${ms} ms, this server's limit (--request-timeout-ms ${ms}), and was aborted`
  return { isError: true, content: [{ type: 'text', text: message }], error: { message, code: SERVE_REQUEST_TIMEOUT } }
}

function coalesced(notify: () => void, subscribe: (listener: () => void) => () => void): () => void {
  let pending = false
  return subscribe(() => {
    if (pending) return
    pending = true
    setImmediate(() => {
      pending = false
      notify()
    })
  })
}

/**
 * What an MCP client sees: the model's rendering as text, the code in the text of an error, and,
 * for a tool that publishes an output schema (`structured`), the canonical value as structured
 * content. Other values stay out: they would double every reply and could carry what the rendering
 * cut (a bridged MCP tool's whole result past its `maxResultChars`).
 */
export function toCallToolResult(result: ToolResult, structured: boolean): CallToolResult {
  const content = result.content.map((block) => ({ type: 'text' as const, text: block.type === 'text' ? block.text : JSON.stringify(block) }))
  if (result.isError) {
    const last = content.at(-1)
    const coded = `[${result.error.code}]`
    return { isError: true, content: last ? [...content.slice(0, -1), { type: 'text', text: `${last.text}\n${coded}` }] : [{ type: 'text', text: coded }] }
  }
  return structured && isRecord(result.value) ? { content, structuredContent: result.value } : { content }
}
