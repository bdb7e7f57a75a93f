import { McpError as SdkError, ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { errorMessage, toJson, type JsonObject } from 'dsh-core'
import { z } from 'zod'
import { McpError } from './errors.ts'
import type { Generation } from './generation.ts'
import type { Supervisor } from './supervisor.ts'

/** Any JSON object: the bridge classifies and validates answers itself (the SDK's `callTool` would use a per-page validator cache). */
const AnyResult = z.looseObject({})

/** How much of a server's error text goes into an error message. */
export const ERROR_MESSAGE_CHARS = 1000

/**
 * One request to a live generation, answered as plain JSON. Every failure is coded, except an
 * abort of the caller's signal, which is passed on as it is (the tools runtime decides between
 * ABORTED and TOOL_TIMEOUT).
 */
export async function request(
  supervisor: Supervisor,
  target: Generation | undefined,
  what: string,
  message: { method: string; params?: Record<string, unknown> },
  options: { signal: AbortSignal; timeout: number },
): Promise<JsonObject> {
  if (!target || supervisor.live !== target) throw supervisor.unavailable()
  let answer: unknown
  try {
    answer = await target.client.request(message, AnyResult, options)
  } catch (error) {
    throw requestError(error, options.signal, what, target, supervisor)
  }
  const json = toJson(answer)
  if (!json.ok) throw new McpError(`${what}: MCP server ${supervisor.serverName} answered with something that is not JSON: ${json.problem}`, 'MCP_MALFORMED_RESPONSE')
  return json.value as JsonObject
}

function requestError(error: unknown, signal: AbortSignal, what: string, target: Generation, supervisor: Supervisor): unknown {
  if (signal.aborted) return signal.reason ?? error
  if (error instanceof McpError) return error
  const server = `MCP server ${supervisor.serverName}`
  if (error instanceof Error && error.message === 'Not connected') return supervisor.unavailable()
  if (error instanceof SdkError) {
    switch (error.code) {
      case ErrorCode.ConnectionClosed: {
        const end = target.endDescription()
        return new McpError(`${what}: the connection to ${server} was lost during the call${end ? `: ${end}` : ''}`, 'MCP_CONNECTION_LOST', { cause: error })
      }
      case ErrorCode.RequestTimeout:
        return new McpError(`${what}: no answer from ${server}`, 'MCP_TIMEOUT', { cause: error })
      default:
        return new McpError(`${what}: ${server} answered with error ${error.code}: ${errorMessage(error).slice(0, ERROR_MESSAGE_CHARS)}`, 'MCP_SERVER_ERROR', { cause: error, rpcCode: error.code })
    }
  }
  if (error instanceof Error && error.name === 'ZodError') return new McpError(`${what}: the answer of ${server} is not a JSON object`, 'MCP_MALFORMED_RESPONSE', { cause: error })
  return new McpError(`${what}: the request to ${server} failed: ${errorMessage(error)}`, 'MCP_CONNECTION_LOST', { cause: error })
}
