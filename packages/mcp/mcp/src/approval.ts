import type { Tool } from '@modelcontextprotocol/client'
import type { ApprovalMode } from 'dsh-core'
import type { McpConfig } from './config.ts'

export type ApprovalPolicy = Pick<McpConfig, 'defaultApproval' | 'toolApproval' | 'approvalFromAnnotations'>

/**
 * A server tool's approval mode for dsh-core's gate: its `toolApproval` entry, else (when
 * `approvalFromAnnotations` is on) what its annotations suggest, else the server's
 * `defaultApproval`. Annotations are the server's own claims: `readOnlyHint` makes a tool `auto`,
 * `destructiveHint` on a tool that is not read-only makes it `prompt`.
 */
export function approvalFor(tool: Pick<Tool, 'name' | 'annotations'>, policy: ApprovalPolicy): ApprovalMode {
  if (Object.hasOwn(policy.toolApproval, tool.name)) return policy.toolApproval[tool.name]!
  if (policy.approvalFromAnnotations) {
    if (tool.annotations?.readOnlyHint === true) return 'auto'
    if (tool.annotations?.destructiveHint === true) return 'prompt'
  }
  return policy.defaultApproval
}
