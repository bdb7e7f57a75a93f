import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError, UnsupportedProtocolVersionError, UrlElicitationRequiredError } from '@modelcontextprotocol/client'
import { errorMessage, oneLine, ToolError } from 'dsh-core'
import { z } from 'zod'
import { McpError } from './errors.ts'
import type { Ending } from './generation.ts'
import { SessionGoneError } from './http-transport.ts'
import { OversizedBodyError, ServerUnreachableError } from './http-wire.ts'
import { inlineField } from './results.ts'
import { AuthRequiredError } from './oauth/auth-required.ts'
import { TransportClosedError } from './stdio-transport.ts'
import { ServerErrorData, TransportFault } from './wire.ts'

/** How much of a server's error text goes into an error message. */
export const ERROR_MESSAGE_CHARS = 1000

export interface FailureContext {
  /** What was being done, for the message: a tool's raw name, `initialize`, `tools/list`. */
  readonly what: string
  /** Who failed, for the message: `MCP server x` in a call, `the server` in a connection attempt. */
  readonly subject: string
  /** A call (`MCP_CONNECTION_LOST` when the connection goes) or a connection attempt (`MCP_CONNECT_FAILED`). */
  readonly stage: 'call' | 'connect'
  /** How the connection ended, if it did (only its summary reaches the message). */
  readonly ending: Ending | undefined
  /** The row is being unloaded: a lost connection is `MCP_DISPOSED`. */
  readonly disposed: boolean
}

/**
 * A coded error for anything a request or a connection attempt threw, decided by where it came
 * from, never by its code or wording alone: an error answer the server sent (`ServerErrorData`),
 * an answer our transport made up (`TransportFault`), the HTTP layer (typed errors and status
 * codes), the SDK's schema (`$ZodError`), or the SDK itself (its own closed/timeout errors, which
 * carry no server data).
 */
export function classifyFailure(error: unknown, context: FailureContext): McpError | ToolError {
  if (error instanceof McpError || error instanceof ToolError) return error
  const { what, subject } = context
  if (error instanceof AuthRequiredError) return new McpError(`${what}: ${error.message}`, 'MCP_AUTH_REQUIRED', { cause: error })
  if (error instanceof UnauthorizedError) return new McpError(`${what}: ${subject} refused our authorization (HTTP 401)`, 'MCP_AUTH_REQUIRED', { cause: error })
  if (error instanceof ProtocolError && error.data instanceof ServerErrorData) {
    const server = error.data
    return new McpError(`${what}: ${subject} answered with error ${server.rpcCode}: ${serverText(server.rpcMessage)}`, 'MCP_SERVER_ERROR', { cause: error, rpcCode: server.rpcCode })
  }
  // The SDK rebuilds a server's -32022 answer as an error of its own type with its own `data` (no
  // `ServerErrorData`): it is still the server's answer, built only from one.
  if (error instanceof UnsupportedProtocolVersionError) {
    const offered = (error.data as { supported?: unknown } | undefined)?.supported
    const supported = Array.isArray(offered) ? ` (it speaks ${offered.map(String).join(', ')})` : ''
    return new McpError(`${what}: ${subject} answered with error ${error.code}: ${serverText(error.message)}${supported}`, 'MCP_SERVER_ERROR', { cause: error, rpcCode: error.code })
  }
  // So is a 2025-11-25 server's -32042 (URL elicitation required): the server is up and wants the
  // user to open a page before the call can go on. The bridge opens nothing; the pages went to the
  // user as URL questions (call.ts, `visited`) and were not all visited: the message names each,
  // for the caller to show. (The SDK's v1 servers put 'MCP error -32042: ' before their message.)
  if (error instanceof UrlElicitationRequiredError) {
    const pages = error.elicitations.map((page) => inlineField(`${String(page.message ?? '')} ${String(page.url ?? '')}`.trim())).join('; ')
    return new McpError(`${what}: ${subject} needs the user to open a URL before this call can go on (error ${error.code}: ${serverText(error.message.replace(/^MCP error -?\d+: /, ''))}): ${bounded(pages)}; once it is done, call the tool again`, 'MCP_SERVER_ERROR', { cause: error, rpcCode: error.code })
  }
  if (error instanceof ProtocolError && error.data instanceof TransportFault) return new McpError(`${what}: ${subject} ${error.data.describe()}`, 'MCP_MALFORMED_RESPONSE', { cause: error })
  if (error instanceof OversizedBodyError) return new McpError(`${what}: ${subject} ${error.message.replace(/^the server /, '')}`, 'MCP_MALFORMED_RESPONSE', { cause: error })
  if (error instanceof z.core.$ZodError) return new McpError(`${what}: ${subject} sent a message the MCP schema refuses: ${zodReason(error)}`, 'MCP_MALFORMED_RESPONSE', { cause: error })
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) return new McpError(`${what}: ${subject} sent a result MCP does not allow: ${bounded(oneLine(error.message.replace(/^Invalid result for [^:]*: /, '')))}`, 'MCP_MALFORMED_RESPONSE', { cause: error })
  if (error instanceof SdkHttpError && error.status !== 401) {
    // A refused session is a SessionGoneError by now (http-transport.ts): any status here is the server's answer.
    return new McpError(`${what}: ${subject} answered HTTP ${error.status}: ${bounded(oneLine(httpErrorText(error)))}`, 'MCP_SERVER_ERROR', { cause: error, httpStatus: error.status })
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) {
    // The probe failed for a reason of its own (the server is unreachable, the connection broke,
    // an HTTP error): that reason decides. Without one, the server offered no revision we allow.
    if (error.cause !== undefined && !(error.cause instanceof ProtocolError)) return classifyFailure(error.cause, context)
    if (!/connection closed/i.test(error.message)) return new McpError(`${what}: ${subject} ${bounded(oneLine(error.message.replace(/^Version negotiation (probe )?failed: /, 'refused the protocol negotiation: ')))}`, 'MCP_PROTOCOL_UNSUPPORTED', { cause: error })
  }
  // The SDK's own deadline for a request: nothing came back in time, at a connection attempt or in a
  // call (a skill file read, skills/list). The connection may well be there still (a stopped or busy
  // server), so it is a timeout, not a lost connection. (Tool calls code theirs TOOL_TIMEOUT, call.ts.)
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const timeout = (error.data as { timeout?: unknown } | undefined)?.timeout
    const within = typeof timeout === 'number' ? ` within ${timeout} ms` : ''
    const message = context.stage === 'connect' ? `${what}: no answer${within || ` from ${subject}`}${suffix(context.ending)}` : `${what}: ${subject} sent no answer${within}`
    return new McpError(message, 'MCP_TIMEOUT', { cause: error })
  }
  if (context.disposed) return new McpError(`${what}: the row of ${subject} was unloaded`, 'MCP_DISPOSED', { cause: error })
  // A connection attempt that found nobody at the URL says so, as it is (not as a closed connection).
  if (error instanceof ServerUnreachableError && context.stage === 'connect') return new McpError(`${what}: ${error.message}`, 'MCP_CONNECT_FAILED', { cause: error })
  // The connection is gone: the SDK closed its requests, our transport refused to send, the HTTP
  // session or the server itself disappeared. What we know of the end says why.
  const gone =
    // (what is left of EraNegotiationFailed: the connection closed during the probe)
    (error instanceof SdkError && (error.code === SdkErrorCode.EraNegotiationFailed || error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected || error.code === SdkErrorCode.SendFailed)) ||
    error instanceof TransportClosedError ||
    error instanceof SessionGoneError ||
    error instanceof ServerUnreachableError
  const why = gone ? (context.ending?.summary ?? (error instanceof Error && !(error instanceof SdkError) ? error.message : undefined)) : errorMessage(error)
  // Lost because the server refused the row's credential or its login (another request's 401):
  // that refusal is this call's failure too, not an outage a retry mends.
  const lostFor = gone ? context.ending?.lostFor : undefined
  // (Caused by that refusal: the supervisor finds the login it waits for in the chain.)
  if (lostFor?.code === 'MCP_CREDENTIAL_REJECTED' || lostFor?.code === 'MCP_AUTH_REQUIRED') return new McpError(`${what}: ${lostFor.message}`, lostFor.code, { cause: lostFor })
  if (context.stage === 'call') return new McpError(`${what}: the connection to ${subject} was lost during the call${why ? `: ${why}` : ''}`, 'MCP_CONNECTION_LOST', { cause: error })
  return new McpError(`${what}: the connection closed${why ? ` (${why})` : ''}`, 'MCP_CONNECT_FAILED', { cause: error })
}

/** The first problem a zod error reports, on one line: `tools.3.inputSchema.required: expected array, received string`. */
export function zodReason(error: z.core.$ZodError): string {
  const [issue] = error.issues
  if (!issue) return 'invalid'
  const path = issue.path.map(String).join('.')
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : ''
  return `${path ? `${path}: ` : ''}${oneLine(issue.message)}${more}`
}

/** The body the server sent with an HTTP error (a JSON-RPC error, often), else the SDK's words. */
function httpErrorText(error: SdkHttpError): string {
  const text = (error.data as { text?: unknown }).text
  return typeof text === 'string' && text.trim() ? text : errorMessage(error)
}

/**
 * A server's own error text in our message: one line, bounded, and read as the model reads a tool's
 * result (results.ts): no terminal escapes or unseen controls.
 */
function serverText(text: string): string {
  return bounded(inlineField(text))
}

/** A server's text in one of our messages or log lines: its first ERROR_MESSAGE_CHARS characters. */
export function boundedText(text: string): string {
  return text.length > ERROR_MESSAGE_CHARS ? `${text.slice(0, ERROR_MESSAGE_CHARS)}…` : text
}

const bounded = boundedText

function suffix(ending: Ending | undefined): string {
  return ending?.summary ? ` (${ending.summary})` : ''
}
