import type { FetchLike } from '@modelcontextprotocol/client'
import { closedBeforeAnswer } from 'dsh-core'

/**
 * Requests the bridge may send twice without the server doing anything twice: they read, or set
 * again what they set. A tool call is not one (it may act, and HTTP/1.1 cannot tell a server that
 * closed the connection before reading it from one that ran it and then closed), nor is an answer
 * or a notification.
 */
const REPEATABLE_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
])

export function isRepeatable(method: string | undefined): boolean {
  return method !== undefined && REPEATABLE_METHODS.has(method)
}

/**
 * A POST of a repeatable request (above) lost on a closing connection is sent once more, on
 * another connection (undici has dropped the closed one); anything else fails as it failed.
 */
export async function fetchResendingOnce(base: FetchLike, url: string | URL, init: RequestInit | undefined, rpcMethod: string | undefined): Promise<Response> {
  try {
    return await base(url, init)
  } catch (error) {
    if (init?.signal?.aborted || init?.method !== 'POST' || typeof init.body !== 'string' || !isRepeatable(rpcMethod) || !closedBeforeAnswer(error)) throw error
    return base(url, init)
  }
}
