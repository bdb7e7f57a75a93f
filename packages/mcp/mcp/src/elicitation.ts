import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client'
import { assertNever, type JsonObject, type ToolRuntime } from 'dsh-core'
import { McpErrorCode } from './errors.ts'

/** Who answers a server's questions: the host's questioner (dsh-core `ctx.tools.ask`). */
export type AskUser = Pick<ToolRuntime, 'ask'>['ask']

/** A line for the log: the question was declined without anyone seeing it, and why. */
export type DeclinedNote = (text: string) => void

/**
 * `elicitation/create` — asked by a 2025-11-25 server mid-call, or carried in a 2026-07-28
 * `input_required` result, which the SDK's driver hands to the same handler and retries with the
 * answer — put to the host's questioner as a form or a URL to visit. With nobody to ask (a
 * non-interactive host), a questioner that fails, or a call that ends meanwhile, the question is
 * declined at once (never left waiting) and the log says so with MCP_QUESTION_DECLINED.
 */
export function elicitationHandler(serverName: string, ask: AskUser, declined: DeclinedNote) {
  return async (request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> => {
    const params = request.params
    const question =
      params.mode === 'url'
        ? { kind: 'url' as const, source: serverName, message: params.message, url: params.url, signal }
        : { kind: 'form' as const, source: serverName, message: params.message, schema: params.requestedSchema as unknown as JsonObject, signal }
    const outcome = await ask(question)
    if (!outcome.answered) {
      declined(`MCP server ${serverName} asked the user ${question.kind === 'url' ? 'to visit a URL' : 'to fill in a form'} (${JSON.stringify(params.message.slice(0, 200))}); declined: ${outcome.why} [${McpErrorCode.MCP_QUESTION_DECLINED}]`)
      return { action: 'decline' }
    }
    const answer = outcome.answer
    switch (answer.action) {
      case 'accept':
        return question.kind === 'form' ? { action: 'accept', content: (answer.content ?? {}) as ElicitResult['content'] } : { action: 'accept' }
      case 'decline':
      case 'cancel':
        return { action: answer.action }
      default:
        return assertNever(answer, 'question answer')
    }
  }
}
