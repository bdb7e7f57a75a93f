import { MAX_TIMER_DELAY_MS, ToolError, type ContentBlock, type JsonValue, type RawToolDefinition, type ToolExecution, type ToolResult } from 'dsh-core'
import { request, sdkDeadlineMs } from './call.ts'
import { ERROR_MESSAGE_CHARS } from './classify.ts'
import type { McpConfig } from './config.ts'
import type { PlannedTool } from './discovery.ts'
import { McpError } from './errors.ts'
import { capResultText, classifyCallResult, ERROR_NOTE, projectContent, type CallValue } from './results.ts'
import type { Supervisor } from './supervisor.ts'
import { parameterHeaders } from './x-mcp-header.ts'

/** The tools runtime's deadline only backs up the SDK's own (`sdkDeadlineMs`), which end a call first. */
const RUNTIME_TIMEOUT_MARGIN_MS = 1000

/**
 * The registry entry for one server tool. Its body sends the raw name on the wire to whatever
 * connection is live (so the definition outlives reconnects and unchanged re-syncs), forwards the
 * server's progress, classifies the answer and checks `structuredContent` against the advertised
 * output schema; `render` shows the model the ordered text projection, cut at `maxResultChars`.
 *
 * Deadlines: the call's own is `toolCallTimeoutMs` without an answer, reset by each progress
 * notification when `resetTimeoutOnProgress` is on (then bounded by `maxTotalTimeoutMs`); the
 * tools runtime's `timeoutMs` comes after the latest of them and only backs them up. So a call
 * without a caller's signal cannot be aborted before the SDK gives up on it, and its request needs
 * no signal (`request`): only a caller's abort cancels it early.
 */
export function bridgeToolDefinition(tool: PlannedTool, supervisor: Supervisor, config: McpConfig): RawToolDefinition<CallValue> {
  /** The full projection of `isError` content, for the model (`error.message` carries a bounded copy). */
  const errorContent = new WeakMap<ToolExecution, string>()
  const callOptions = { timeoutMs: config.toolCallTimeoutMs, resetTimeoutOnProgress: config.resetTimeoutOnProgress, maxTotalTimeoutMs: config.maxTotalTimeoutMs }
  return {
    name: tool.publicName,
    description: tool.description,
    parameters: tool.inputSchema,
    surface: 'mcp',
    timeoutMs: Math.min(sdkDeadlineMs(callOptions) + RUNTIME_TIMEOUT_MARGIN_MS, MAX_TIMER_DELAY_MS),
    approval: tool.approval,
    defer: config.defer,
    async execute(args, exec) {
      if (tool.taskRequired) {
        throw new McpError(`${tool.rawName} requires task-based execution, which the MCP bridge does not support; the server was not called`, 'MCP_TASK_REQUIRED')
      }
      const raw = await request(supervisor, tool.rawName, { method: 'tools/call', params: { name: tool.rawName, arguments: args } }, {
        ...callOptions,
        lifetime: exec.lifetime,
        onProgress: exec.progress,
        ...(tool.headerParameters.length ? { headers: parameterHeaders(tool.headerParameters, args as JsonValue) } : {}),
      })
      const classified = classifyCallResult(raw)
      if (classified.kind === 'tool-error') {
        const text = projectContent(tool.rawName, classified.content)
        errorContent.set(exec, text)
        throw new McpError(text.length > ERROR_MESSAGE_CHARS ? `${text.slice(0, ERROR_MESSAGE_CHARS)}…` : text, 'MCP_TOOL_ERROR')
      }
      if (tool.outputCheck) {
        const { structuredContent } = classified.value
        const problem = structuredContent === undefined ? 'structuredContent is missing, but the tool declares an output schema' : tool.outputCheck(structuredContent)
        if (problem) throw new ToolError(`${tool.publicName} returned a result that does not match its output schema: ${problem}`, 'INVALID_TOOL_OUTPUT')
      }
      return classified.value
    },
    render: (_args, value) => capResultText(projectContent(tool.rawName, value.content, value.structuredContent), config.maxResultChars),
    finalizeContent(exec: ToolExecution, result: ToolResult): readonly ContentBlock[] | undefined {
      const text = errorContent.get(exec)
      if (text === undefined || !result.isError || result.error.code !== 'MCP_TOOL_ERROR') return undefined
      return [{ type: 'text', text: capResultText(`Error: ${text}`, config.maxResultChars, ERROR_NOTE) }]
    },
  }
}
