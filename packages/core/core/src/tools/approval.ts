import { assertNever, errorMessage, ToolError } from '../errors.ts'
import type { JsonValue } from '../json.ts'
import { Lifetime } from '../lifetime/lifetime.ts'
import type { ApprovalDecision, ApprovalMode, Approver, ToolCall, ToolDefinition } from './types.ts'

const MODES: readonly ApprovalMode[] = ['auto', 'prompt', 'deny']

/** A definition's approval mode, checked at registration (INVALID_TOOL). */
export function approvalModeOf(definition: ToolDefinition): ApprovalMode {
  const mode: unknown = definition.approval ?? 'auto'
  if (!MODES.includes(mode as ApprovalMode)) {
    throw new ToolError(`tool "${definition.name}": approval must be one of ${MODES.join(', ')} (got ${JSON.stringify(mode)})`, 'INVALID_TOOL')
  }
  return mode as ApprovalMode
}

export interface GatedCall {
  readonly call: ToolCall
  readonly callId: string
  readonly definition: ToolDefinition
  /** The validated arguments, deep-frozen. */
  readonly args: JsonValue
}

/**
 * The approval step of `execute` for a tool that is not `auto`: returns when the call may run,
 * throws the coded reason otherwise. Never consults the tool's timeout: the wait for a person is
 * not the tool's time.
 */
export async function approve(mode: Exclude<ApprovalMode, 'auto'>, approver: Approver | undefined, { call, callId, definition, args }: GatedCall): Promise<void> {
  const { name } = definition
  switch (mode) {
    case 'deny':
      throw new ToolError(`${name} is denied by configuration (its approval mode is "deny"); it was not run`, 'TOOL_DENIED')
    case 'prompt':
      break
    default:
      assertNever(mode, 'approval mode')
  }
  if (!approver) {
    throw new ToolError(
      `${name} needs approval before it runs and nothing can approve it: a harness registers an approver (ctx.tools.approver), and on the command line \`dsh call --yes\` approves`,
      'TOOL_APPROVAL_REQUIRED',
    )
  }
  // The wait follows the caller's signal; the approver gets the wait's own signal, released after it.
  let decision: unknown
  try {
    decision = await Lifetime.run({ signal: call.signal }, async (waiting) => approver({ callId, name, arguments: args, session: call.session, surface: definition.surface, signal: waiting.signal }))
  } catch (error) {
    if (call.signal?.aborted) throw abortedWhileWaiting(call.signal.reason)
    throw new ToolError(`${name} was not run: its approver failed (${errorMessage(error)})`, 'TOOL_DENIED', { cause: error })
  }
  if (call.signal?.aborted) throw abortedWhileWaiting(call.signal.reason)
  if (!isDecision(decision)) throw new ToolError(`${name} was not run: its approver answered something other than { approved: true | false }`, 'TOOL_DENIED')
  if (decision.approved) return
  const reason = typeof decision.reason === 'string' && decision.reason.trim() ? `: ${decision.reason.trim()}` : ''
  throw new ToolError(`${name} was denied by its approver${reason}`, 'TOOL_DENIED')
}

function abortedWhileWaiting(reason: unknown): ToolError {
  return new ToolError('the call was aborted while it waited for approval', 'ABORTED_BEFORE_DISPATCH', { cause: reason })
}

function isDecision(value: unknown): value is ApprovalDecision {
  return typeof value === 'object' && value !== null && typeof (value as { approved?: unknown }).approved === 'boolean'
}
