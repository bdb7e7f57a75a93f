import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolRequest, type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import { isRecord, untracked, type Host, type SessionService, type ToolProgress, type ToolResult, type ToolRuntime } from 'dsh-core'
import type {} from 'dsh-skill'
import { approveThroughClient, explainApproval } from './serve-approval.ts'
import { servePrompts } from './serve-prompts.ts'
import { ServedSkills, serveSkills, SKILLS_CAPABILITIES } from './serve-skills.ts'
import { Routes, RpcCode, RpcError } from './serve-rpc.ts'
import { plainToolCall } from './serve-shapes.ts'
import { LineTransport } from './serve-transport.ts'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

export interface ServeOptions {
  /** The workspace of the one long-lived session every call runs in. */
  readonly cwd: string
  /** Aborts on SIGINT/SIGTERM: the server closes and `serve` resolves. */
  readonly signal: AbortSignal
  readonly stdin: NodeJS.ReadableStream
  readonly stdout: NodeJS.WritableStream
  /** An incoming message larger than this is refused (answered with an error when it has an id, and logged). */
  readonly maxMessageBytes: number
  /** `tools/call` requests running at once; one more is answered with `SERVER_BUSY`. */
  readonly maxConcurrentCalls: number
  /** Answers written and not read yet; past it the client has stopped reading and the connection is closed. */
  readonly maxOutputBytes: number
}

/**
 * `dsh serve`: the composition as an MCP server on stdio. Every model-visible tool is listed with its
 * JSON Schema and runs through `ctx.tools.execute` in one session; the prompt sections are the
 * server's instructions. A `prompt` tool asks the client's user through elicitation when the
 * client declared it (serve-approval.ts). Resolves when the client closes stdin or the signal
 * aborts; the caller then stops the host (every child process with it).
 */
export async function serve(host: Host, tools: ToolRuntime, sessions: SessionService, options: ServeOptions): Promise<void> {
  const session = sessions.create({ cwd: options.cwd })
  const skills = host.app.get('skills')
  const instructions = tools
    .sections()
    .map((section) => section.text)
    .join('\n\n')
  const server = new Server(
    { name: 'dsh', version },
    { capabilities: { tools: { listChanged: true }, ...(skills ? { prompts: { listChanged: true }, ...SKILLS_CAPABILITIES } : {}) }, ...(instructions ? { instructions } : {}) },
  )

  // Calls are effect-free, so they skip cordis's caller tracking (proxies and an Error per call);
  // registering the approver below stays tracked, an effect of this host.
  const calls = untracked(tools)
  const routes = new Routes()
  routes.add(ListToolsRequestSchema, () => ({
    tools: tools.catalog({ session }).map((tool) => {
      const outputSchema = tools.outputSchema(tool.name)
      return { name: tool.name, description: tool.description, inputSchema: tool.parameters as { type: 'object' }, ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}) }
    }),
  }))
  let running = 0
  routes.add(CallToolRequestSchema, async (request, extra) => {
    // A bound on the work one client can start at once: past it, a clear refusal rather than a queue.
    if (running >= options.maxConcurrentCalls) {
      throw new RpcError(RpcCode.SERVER_BUSY, `dsh serve is already running ${running} tool calls, its limit (--max-concurrent-calls ${options.maxConcurrentCalls}); send this call again once one has answered`)
    }
    running++
    try {
      return await callTool(request, extra)
    } finally {
      running--
    }
  }, plainToolCall)
  const callTool = async (request: CallToolRequest, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
    // The client asked for progress by sending a token: relay the tool's reports as notifications.
    const token = request.params._meta?.progressToken
    const onProgress =
      token === undefined
        ? undefined
        : (update: ToolProgress) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => {})
    const result = await calls.execute({ name: request.params.name, arguments: request.params.arguments ?? {}, session, signal: extra.signal, ...(onProgress ? { onProgress } : {}) })
    return toCallToolResult(explainApproval(result), calls.outputSchema(request.params.name) !== undefined)
  }
  const stopApproving = approveThroughClient(server, tools)

  const stopNotifying = [coalesced(() => server.sendToolListChanged(), (listener) => host.app.on('tools/change', listener))]
  const logger = host.app.logger('serve')
  if (skills) {
    servePrompts(routes, skills, session)
    // SEP-2640 (issue 30 item 4): the same skills as `skill://` resources with digests.
    serveSkills(routes, new ServedSkills(skills, session, (line) => logger.warn(line)))
    stopNotifying.push(coalesced(() => server.sendPromptListChanged(), (listener) => skills.onChange(listener)))
  }
  server.fallbackRequestHandler = routes.dispatch
  const transport = new LineTransport(options.stdin, options.stdout, { maxMessageBytes: options.maxMessageBytes, maxOutputBytes: options.maxOutputBytes, log: (line) => logger.warn(line) })
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
    options.stdin.once('end', resolve)
    options.stdin.once('close', resolve)
    if (options.signal.aborted) resolve()
    else options.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  await server.connect(transport)
  try {
    await closed
  } finally {
    for (const stop of stopNotifying) stop()
    stopApproving()
    await server.close().catch(() => {})
    sessions.end(session)
  }
}

/**
 * Sends one notification per burst of changes: a re-syncing MCP server or a skills directory
 * changes many entries at once, and the client needs to hear about it once.
 */
function coalesced(notify: () => Promise<void>, subscribe: (listener: () => void) => () => void): () => void {
  let pending = false
  return subscribe(() => {
    if (pending) return
    pending = true
    setImmediate(() => {
      pending = false
      notify().catch(() => {})
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
