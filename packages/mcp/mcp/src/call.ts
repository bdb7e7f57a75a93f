import { SdkError, SdkErrorCode, UrlElicitationRequiredError, type RequestOptions } from '@modelcontextprotocol/client'
import { ToolError, type JsonObject, type Lifetime, type ToolProgress } from 'dsh-core'
import { z } from 'zod'
import { classifyFailure } from './classify.ts'
import { McpError } from './errors.ts'
import type { Generation } from './generation.ts'
import { SessionGoneError } from './http-transport.ts'
import type { Supervisor } from './supervisor.ts'

/** Any JSON object: the bridge classifies and validates answers itself (the SDK's `callTool` would use a per-page validator cache). */
const AnyResult = z.looseObject({})

export interface CallOptions {
  /**
   * The call's lifetime (a tool call's `exec.lifetime`): its abort cancels the request (the server
   * gets `notifications/cancelled`). Asked for a signal only when it can abort before the SDK's own
   * deadlines end the request (`Lifetime.canAbortBefore`): most calls cannot, and each signal is an
   * `AbortController`, on Node 20 the largest part of the tools runtime's cost per call.
   */
  readonly lifetime: Lifetime
  /** No answer (and, with `resetTimeoutOnProgress`, no progress) for this long: `TOOL_TIMEOUT`. */
  readonly timeoutMs: number
  readonly resetTimeoutOnProgress?: boolean
  /** The hard limit when progress keeps resetting `timeoutMs`. */
  readonly maxTotalTimeoutMs?: number
  /** Receives the server's `notifications/progress` for this request (a progress token is sent). */
  readonly onProgress?: (update: ToolProgress) => void
  /** Extra HTTP headers of this request (SEP-2243 `Mcp-Param-*`). */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * One request to the server's live connection, answered as plain JSON. A request refused because
 * the server forgot our HTTP session was not delivered: it waits for the fresh session and is sent
 * once more. Every failure is coded, except an abort of the caller's signal, which is passed on as
 * it is (the tools runtime decides between ABORTED and TOOL_TIMEOUT).
 */
export async function request(supervisor: Supervisor, what: string, message: { method: string; params?: Record<string, unknown> }, options: CallOptions): Promise<JsonObject> {
  // A fresh HTTP session is on its way (the server forgot ours): wait for it rather than fail.
  const first = supervisor.live ?? (supervisor.renewingSession ? await supervisor.reconnected(undefined, options.lifetime) : undefined)
  if (!first) throw supervisor.unavailable()
  try {
    return await send(first, what, message, options, supervisor)
  } catch (error) {
    if (error instanceof UrlElicitationRequiredError && !options.lifetime.aborted && (await visited(supervisor, error, options.lifetime))) {
      // The server refused the request without doing its work: sent once more, on the same connection.
      try {
        return await send(first, what, message, options, supervisor)
      } catch (again) {
        throw failure(again, first, what, options, supervisor)
      }
    }
    if (!(error instanceof SessionGoneError) || options.lifetime.aborted) throw failure(error, first, what, options, supervisor)
    const fresh = await supervisor.reconnected(first, options.lifetime)
    try {
      return await send(fresh, what, message, options, supervisor)
    } catch (again) {
      throw failure(again, fresh, what, options, supervisor)
    }
  }
}

/**
 * A 2025-11-25 server answered -32042 (URL elicitation required): each page it names is put to the
 * user as its URL questions are (elicitation.ts: the host's questioner; nobody to ask is a decline,
 * logged with MCP_QUESTION_DECLINED). True when every one was accepted (visited): the call may be
 * sent again. A row with `elicitation: false` asks nothing (the server was told it cannot ask).
 */
async function visited(supervisor: Supervisor, error: UrlElicitationRequiredError, lifetime: Lifetime): Promise<boolean> {
  const ask = supervisor.elicit
  if (!ask || error.elicitations.length === 0) return false
  for (const page of error.elicitations) {
    const answer = await ask({ method: 'elicitation/create', params: page }, lifetime.signal)
    if (answer.action !== 'accept' || lifetime.aborted) return false
  }
  return true
}

async function send(target: Generation, what: string, message: { method: string; params?: Record<string, unknown> }, options: CallOptions, supervisor: Supervisor): Promise<JsonObject> {
  const signal = requestSignal(options)
  // Only a call whose progress resets its deadline can end at maxTotalTimeoutMs. Such a call gets a
  // headers object of its own (empty when it has no headers): every request the SDK sends for it,
  // each round of a multi-round call included, carries that object, which tells the call's request
  // in flight when the limit ends it (wire.ts, `latestWaiting`).
  const canEndAtTotal = options.resetTimeoutOnProgress === true && options.maxTotalTimeoutMs !== undefined && options.onProgress !== undefined
  const headers = options.headers || canEndAtTotal ? { ...options.headers } : undefined
  const sdkOptions: RequestOptions = {
    ...(signal ? { signal } : {}),
    timeout: options.timeoutMs,
    ...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true, maxTotalTimeout: options.maxTotalTimeoutMs } : {}),
    // The runtime checks and copies what it forwards (dsh-core's exec.progress).
    ...(options.onProgress ? { onprogress: serverProgressOnly(options.onProgress) } : {}),
    ...(headers ? { headers } : {}),
  }
  let answer: Record<string, unknown>
  try {
    answer = await target.client.request(message, AnyResult, sdkOptions)
  } catch (error) {
    if (canEndAtTotal && headers && isTotalTimeout(error)) cancelAbandoned(target, headers, options)
    throw error
  }
  // JSON.parse's output, an object by AnyResult: plain JSON below it. Not copied here: every caller
  // is a tool body, and the tools runtime copies (and freezes) each value it returns, refusing one
  // nested deeper than its limit (INVALID_TOOL_OUTPUT); a second deep copy per call bought nothing.
  // Only the object itself is checked, as the bridge reads its members (content, isError) directly.
  if (Object.getPrototypeOf(answer) !== Object.prototype) throw new McpError(`${what}: MCP server ${supervisor.serverName} answered with something that is not a plain JSON object`, 'MCP_MALFORMED_RESPONSE')
  return answer as JsonObject
}

/** The SDK's own deadline ended the request at `maxTotalTimeout` (a progress report came after it). */
function isTotalTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && typeof (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout === 'number'
}

/**
 * The SDK gives up on a request at `maxTotalTimeout` when the next progress report arrives, and,
 * unlike at its other deadlines, tells the server nothing: the server would work on for a call
 * nobody waits for. It is told here as the SDK tells it otherwise (generation.ts, `cancelAbandoned`),
 * naming the call's request still waiting for an answer: in a multi-round call the latest round's,
 * not the first's (long answered). None waits when the SDK's driver found the limit passed between
 * rounds, before sending the next: then there is nothing to cancel.
 */
function cancelAbandoned(target: Generation, headers: object, options: CallOptions): void {
  const requestId = target.transport.pending.latestWaiting(headers)
  if (requestId !== undefined) target.cancelAbandoned(requestId, `tool call timed out ${timeoutWhy(true, options)}`)
}

/**
 * The SDK reports each round of a 2026-07-28 `input_required` exchange through the caller's
 * `onprogress` itself (`Fulfilling input required by 'tools/call' (round 1)`): its own bookkeeping,
 * not progress the server made, which `dsh call` printed as a stray line and `dsh serve` passed to
 * its client (its counter also restarts at 1, breaking the server's increasing sequence). The
 * server's `notifications/progress` come through the same callback; only those are passed on.
 */
const SDK_INPUT_ROUND = /^Fulfilling input required by '[^']*' \(round \d+\)$/

function serverProgressOnly(onProgress: (update: ToolProgress) => void): (update: { progress: number; message?: string | undefined }) => void {
  return (update) => {
    if (typeof update.message === 'string' && SDK_INPUT_ROUND.test(update.message)) return
    onProgress(update as ToolProgress)
  }
}

/**
 * The signal the SDK's request gets: the lifetime's, when it can end the call before the SDK's own
 * deadlines do; else none, and nothing can end the request but an answer, those deadlines, or the
 * connection closing (the row's disposal closes it, which rejects every pending request).
 */
function requestSignal(options: CallOptions): AbortSignal | undefined {
  return options.lifetime.canAbortBefore(performance.now() + sdkDeadlineMs(options)) ? options.lifetime.signal : undefined
}

/**
 * How long the SDK may keep a request at most: `timeoutMs` without an answer; with progress resets,
 * a report just before `maxTotalTimeoutMs` starts `timeoutMs` once more (the SDK checks the total
 * only when a report arrives).
 */
export function sdkDeadlineMs(options: Pick<CallOptions, 'timeoutMs' | 'resetTimeoutOnProgress' | 'maxTotalTimeoutMs'>): number {
  return options.resetTimeoutOnProgress ? (options.maxTotalTimeoutMs ?? 0) + options.timeoutMs : options.timeoutMs
}

function failure(error: unknown, target: Generation, what: string, options: CallOptions, supervisor: Supervisor): unknown {
  if (options.lifetime.aborted) return options.lifetime.reason ?? error
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    // The SDK's own deadline: no answer (or no progress) in time, or the total limit reached.
    return new ToolError(`tool call timed out ${timeoutWhy(isTotalTimeout(error), options)}`, 'TOOL_TIMEOUT', { cause: error })
  }
  return classifyFailure(error, {
    what,
    subject: `MCP server ${supervisor.serverName}`,
    stage: 'call',
    ending: target.closed ? target.ending() : undefined,
    disposed: supervisor.isDisposed,
  })
}

function timeoutWhy(total: boolean, options: CallOptions): string {
  return total ? `after ${options.maxTotalTimeoutMs} ms in all (maxTotalTimeoutMs)` : `after ${options.timeoutMs} ms without ${options.resetTimeoutOnProgress ? 'an answer or progress' : 'an answer'}`
}
