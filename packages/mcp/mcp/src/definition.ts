import { ToolError, type ContentBlock, type RawToolDefinition, type ToolExecution, type ToolResult } from 'dsh-core'
import { ERROR_MESSAGE_CHARS, request } from './call.ts'
import type { McpConfig } from './config.ts'
import type { PlannedTool } from './discovery.ts'
import { McpError } from './errors.ts'
import type { Generation } from './generation.ts'
import { capResultText, classifyCallResult, projectContent, type CallValue } from './results.ts'
import type { Supervisor } from './supervisor.ts'

/** The SDK's own deadline only backs up the tools runtime's `timeoutMs`, which answers first. */
const SDK_TIMEOUT_MARGIN_MS = 1000

export interface DefinitionContext {
  /** The generation whose tool list this tool came from; calls go to it while it is live. */
  readonly target: Generation
  readonly supervisor: Supervisor
  readonly config: McpConfig
}

/**
 * The registry entry for one server tool. Its body sends the raw name on the wire, classifies the
 * answer and checks `structuredContent` against the advertised output schema; `render` shows the
 * model the ordered text projection, cut at `maxResultChars`.
 */
export function bridgeToolDefinition(tool: PlannedTool, { target, supervisor, config }: DefinitionContext): RawToolDefinition<CallValue> {
  /** The full projection of `isError` content, for the model (`error.message` carries a bounded copy). */
  const errorContent = new WeakMap<ToolExecution, string>()
  return {
    name: tool.publicName,
    description: tool.description,
    parameters: tool.inputSchema,
    surface: 'mcp',
    timeoutMs: config.toolCallTimeoutMs,
    approval: tool.approval,
    async execute(args, exec) {
      if (tool.taskRequired) {
        throw new McpError(`${tool.rawName} requires task-based execution, which the MCP bridge does not support; the server was not called`, 'MCP_TASK_REQUIRED')
      }
      if (supervisor.live !== target) throw supervisor.unavailable()
      const raw = await request(supervisor, target, tool.rawName, { method: 'tools/call', params: { name: tool.rawName, arguments: args } }, {
        signal: exec.signal,
        timeout: config.toolCallTimeoutMs + SDK_TIMEOUT_MARGIN_MS,
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
      return [{ type: 'text', text: capResultText(`Error: ${text}`, config.maxResultChars) }]
    },
  }
}
