import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node'
import { createMcpHandler, hostHeaderValidationResponse, isLegacyRequest, localhostAllowedHostnames, localhostAllowedOrigins, originValidationResponse, PROTOCOL_VERSION_META_KEY, type AuthInfo } from '@modelcontextprotocol/server'
import { errorMessage, isRecord, Lifetime, oneLine, type Host, type SessionService, type ToolResult, type ToolRuntime } from 'dsh-core'
import { UsageError } from './args.ts'
import { tellStderr } from './output.ts'
import type { HttpSettings, ServeLimits } from './serve-args.ts'
import { isLoopback } from './serve-args.ts'
import { ServedComposition } from './serve-composition.ts'
import { authGate } from './serve-http-auth.ts'
import { receiveBody } from './serve-http-body.ts'
import { Health } from './serve-http-health.ts'
import { LegacySessions } from './serve-http-sessions.ts'
import { RpcCode } from './serve-rpc.ts'

/** The MCP endpoint's path. */
export const MCP_PATH = '/mcp'
export const HEALTH_PATH = '/healthz'

export interface HttpServeOptions extends ServeLimits, HttpSettings {
  /** The workspace of the one long-lived session every call runs in. */
  readonly cwd: string
  /** Aborts on SIGINT/SIGTERM: the server drains, closes and `serveHttp` resolves. */
  readonly signal: AbortSignal
  /** Where the URL is printed once listening. */
  readonly stderr: NodeJS.WritableStream
  /** A better answer than UNKNOWN_TOOL for a call that found no tool, when there is one (CompositionOptions). */
  readonly explainUnknownTool?: (name: string) => Promise<ToolResult | undefined>
}

/**
 * `dsh serve --http`: the composition over Streamable HTTP at `/mcp`. 2026-07-28 requests go to the
 * SDK's `createMcpHandler` (stateless: a fresh SDK server per request, `server/discover`, list
 * changes over `subscriptions/listen`); 2025-11-25 requests to sessions of the SDK's Streamable HTTP
 * transport (serve-http-sessions.ts). Both answer from one `ServedComposition`, the one stdio serves
 * from too. In front of them: Host and Origin checks (DNS rebinding), the `--auth` gate, `/healthz`
 * and the OAuth metadata. On abort it stops accepting, lets running calls finish for
 * `--drain-timeout-ms`, closes every exchange and resolves; the caller then stops the host.
 */
export async function serveHttp(host: Host, tools: ToolRuntime, sessions: SessionService, options: HttpServeOptions): Promise<void> {
  const logger = host.app.logger('serve')
  const onerror = (error: Error) => logger.debug(oneLine(error.message))
  const composition = new ServedComposition(host, tools, sessions, { ...options, catalog: 'all', elicitApproval: false })
  const maxRequestBodySize = options.maxMessageBytes
  const modern = createMcpHandler(composition.server, { legacy: 'reject', maxRequestBodySize, onerror })
  const legacy = new LegacySessions(() => composition.server({ era: 'legacy' }), { maxRequestBodySize, maxSessions: options.maxSessions, onerror })
  const stopNotifying = composition.onListChanged((change) => {
    if (change === 'tools') modern.notify.toolsChanged()
    else modern.notify.promptsChanged()
    legacy.notify(change)
  })
  const health = new Health(host.app.get('readiness'), options.cwd, options.signal)
  const refusedByHeaders = headerGuard(options)
  let gate: ReturnType<typeof authGate>
  let draining = false
  const exchanges = new InFlight()

  const route = async (request: Request, received?: { parsedBody?: unknown }): Promise<Response> => {
    const refused = refusedByHeaders(request)
    if (refused) return refused
    // SHUTTING_DOWN, as a request cut short by the signal hears: not -32000, a v1 client's own "Connection closed".
    if (draining) return Response.json({ jsonrpc: '2.0', id: null, error: { code: RpcCode.SHUTTING_DOWN, message: 'dsh serve is shutting down' } }, { status: 503, headers: { connection: 'close', 'retry-after': '1' } })
    const path = new URL(request.url).pathname
    if (path === HEALTH_PATH) return health.respond(request)
    const metadata = gate?.metadata(request)
    if (metadata) return metadata
    if (path !== MCP_PATH) return Response.json({ error: `not found: dsh serve answers MCP at ${MCP_PATH} and readiness at ${HEALTH_PATH}` }, { status: 404 })
    let authInfo: AuthInfo | undefined
    if (gate) {
      const checked = await gate.check(request)
      if (checked instanceof Response) return checked
      authInfo = checked
    }
    const parsedBody = received?.parsedBody
    // A stream (a 2025-11-25 GET, a 2026-07-28 subscriptions/listen) stays open until the client leaves; a drain does not wait for it.
    const stream = request.method !== 'POST' || (isRecord(parsedBody) && parsedBody.method === 'subscriptions/listen')
    const answer = async () => {
      if (!claimsModernRevision(parsedBody) && (await isLegacyRequest(request, parsedBody, { maxRequestBodySize }))) return legacy.fetch(request, parsedBody, authInfo)
      const unknown = unknownMethod(parsedBody, composition)
      if (unknown) return unknown
      return modern.fetch(request, { ...(parsedBody === undefined ? {} : { parsedBody }), ...(authInfo ? { authInfo } : {}) })
    }
    return stream ? answer() : exchanges.track(answer())
  }

  const handle = toNodeHandler({ fetch: route }, { maxRequestBodySize, onerror })
  const receive = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST') return handle(request as NodeIncomingMessageLike, response)
    const body = await receiveBody(request, maxRequestBodySize)
    return body.kind === 'parsed' ? handle(request as NodeIncomingMessageLike, response, body.value) : handle(body.request, response)
  }
  const server = createServer((request, response) => void receive(request, response).catch(onerror))
  // Node's default (5 s) is about the idle limit of common clients: one that reuses a connection as
  // the server closes it (a loaded machine delays either side's timer) loses its request.
  server.keepAliveTimeout = options.keepAliveMs
  try {
    const url = await listen(server, options)
    gate = authGate(options.auth, url)
    tellStderr(options.stderr, `dsh serve: listening on ${url.href}`)
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve()
      else options.signal.addEventListener('abort', () => resolve(), { once: true })
    })
    draining = true
    composition.stopAsking()
    server.close()
    server.closeIdleConnections()
    const wait = new Lifetime()
    const drained = await wait.within(drain(composition, exchanges), options.drainTimeoutMs)
    wait.dispose()
    if (!drained) logger.warn(`${composition.callsRunning} tool calls were still running after --drain-timeout-ms ${options.drainTimeoutMs}; aborting them`)
  } finally {
    draining = true
    stopNotifying()
    await modern.close().catch(() => {})
    await legacy.close()
    server.closeAllConnections()
    if (server.listening) await new Promise((resolve) => server.close(resolve))
    composition.close()
  }
}

/**
 * A request whose envelope claims a revision (any method but `initialize`, whose claim counts only
 * when valid) goes to the 2026-07-28 handler whatever else the SDK finds: `isLegacyRequest` would
 * classify it the same way, and the handler classifies it again.
 */
function claimsModernRevision(body: unknown): boolean {
  if (!isRecord(body) || body.method === 'initialize' || !isRecord(body.params)) return false
  const meta = body.params._meta
  return isRecord(meta) && PROTOCOL_VERSION_META_KEY in meta
}

/** The 2026-07-28 methods the SDK's handler answers itself, before any route. */
const SDK_METHODS = new Set(['server/discover', 'subscriptions/listen', 'ping'])

/**
 * A 2026-07-28 request for a method nothing here answers: 404 with -32601, as the Streamable HTTP
 * transport asks. The SDK does so for a method it has no handler for, but every method reaches the
 * composition's routes (its fallback handler), whose -32601 would go out as 200.
 */
function unknownMethod(body: unknown, composition: ServedComposition): Response | undefined {
  if (!isRecord(body) || typeof body.method !== 'string' || body.id === undefined) return undefined
  if (SDK_METHODS.has(body.method) || composition.answers(body.method)) return undefined
  return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: `method not found: ${JSON.stringify(body.method).slice(0, 80)}` } }, { status: 404 })
}

/** Requests being answered (streams aside): a drain waits for them, so no answer is cut off half-sent. */
class InFlight {
  private count = 0
  private waiters: (() => void)[] = []

  get size(): number {
    return this.count
  }

  track(answer: Promise<Response>): Promise<Response> {
    this.count++
    return answer.finally(() => {
      if (--this.count === 0) for (const resolve of this.waiters.splice(0)) resolve()
    })
  }

  whenIdle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve))
  }
}

/**
 * Settles once no call runs and no answer is being made. A call answered over an SSE stream (one that
 * reports progress) ends before its answer is written: the turn after lets the write happen.
 */
async function drain(composition: ServedComposition, exchanges: InFlight): Promise<void> {
  while (composition.callsRunning || exchanges.size) await Promise.all([composition.whenIdle(), exchanges.whenIdle()])
  await new Promise((resolve) => setImmediate(resolve))
}

function listen(server: HttpServer, { host, port }: HttpSettings): Promise<URL> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new UsageError(`--http ${host}:${port}: ${oneLine(errorMessage(error))}`))
    server.once('error', failed)
    server.listen({ host, port }, () => {
      server.off('error', failed)
      const address = server.address() as AddressInfo
      const name = address.family === 'IPv6' ? `[${address.address}]` : address.address
      resolve(new URL(`http://${name}:${address.port}${MCP_PATH}`))
    })
  })
}

/**
 * DNS-rebinding protection, as the MCP transport spec asks: a browser `Origin` that is not
 * localhost's or an `--allowed-origin` gets 403, and so does a `Host` header naming anything but
 * this machine when the server is bound to loopback (where no authentication stands behind it).
 */
function headerGuard({ host, allowedHosts, allowedOrigins }: HttpSettings): (request: Request) => Response | undefined {
  const origins = [...localhostAllowedOrigins(), ...allowedOrigins]
  const loopback = isLoopback(host)
  const hosts = loopback ? [...localhostAllowedHostnames(), ...allowedHosts] : allowedHosts
  return (request) => (hosts.length ? hostHeaderValidationResponse(request, [...hosts]) : undefined) ?? originValidationResponse(request, origins)
}
