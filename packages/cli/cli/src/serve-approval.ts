import type { Server } from '@modelcontextprotocol/server'
import { assertNever, MAX_TIMER_DELAY_MS, ToolErrorCode, type ApprovalDecision, type ApprovalRequest, type ToolResult, type ToolRuntime } from 'dsh-core'

/** How much of a call's arguments the approval question quotes. */
const ARGUMENT_SUMMARY_CHARS = 300

/**
 * `prompt` tools under `dsh serve`: when the MCP client declared form elicitation, each call asks
 * its user with a yes/no form naming the tool and its arguments. Otherwise nothing is registered
 * and such calls answer TOOL_APPROVAL_REQUIRED. Returns what unregisters the approver.
 */
export function approveThroughClient(server: Server, tools: ToolRuntime): () => void {
  let unregister: (() => void) | undefined
  server.oninitialized = () => {
    if (server.getClientCapabilities()?.elicitation?.form) unregister = tools.approver((request) => ask(server, request))
  }
  return () => unregister?.()
}

async function ask(server: Server, request: ApprovalRequest): Promise<ApprovalDecision> {
  const answer = await server.elicitInput(
    {
      mode: 'form',
      message: `Allow the tool ${request.name} to run?\nArguments: ${summary(request.arguments)}`,
      requestedSchema: {
        type: 'object',
        properties: { approve: { type: 'boolean', title: `Run ${request.name}`, description: 'Yes runs the tool call; no refuses it.', default: true } },
      },
    },
    // A person answers: no deadline of our own. The client's cancellation of the tool call ends the wait.
    { signal: request.signal, timeout: MAX_TIMER_DELAY_MS },
  )
  switch (answer.action) {
    case 'accept':
      return answer.content?.approve === false ? { approved: false, reason: 'the user answered no' } : { approved: true }
    case 'decline':
      return { approved: false, reason: 'the user declined it in the MCP client' }
    case 'cancel':
      return { approved: false, reason: 'the user dismissed the approval request' }
    default:
      return assertNever(answer.action, 'elicitation action')
  }
}

function summary(args: unknown): string {
  const text = JSON.stringify(args)
  return text.length > ARGUMENT_SUMMARY_CHARS ? `${text.slice(0, ARGUMENT_SUMMARY_CHARS)}…` : text
}

/**
 * Tells the MCP client why a `prompt` tool answered TOOL_APPROVAL_REQUIRED and what the operator can
 * do. `asksClients`: this server asks clients that declare form elicitation (stdio), so the client
 * lacked it; otherwise (`--http`, several clients sharing one composition) it never asks anyone.
 */
export function explainApproval(result: ToolResult, asksClients: boolean): ToolResult {
  if (!result.isError || result.error.code !== ToolErrorCode.TOOL_APPROVAL_REQUIRED) return result
  const why = asksClients
    ? 'dsh serve asks for approval through MCP elicitation (form mode), which this client did not declare.'
    : 'dsh serve --http does not ask about approval (its clients share one composition: no one client\'s yes stands for the others).'
  const hint = `${why} An operator who trusts the approval the client itself shows for every tool call can set this tool's approval mode to "auto".`
  return { ...result, content: [...result.content, { type: 'text', text: hint }] }
}
