import { randomUUID } from 'node:crypto'
import { legacyStatelessFallback, WebStandardStreamableHTTPServerTransport, type AuthInfo, type LegacyHttpHandler, type Server } from '@modelcontextprotocol/server'
import { isRecord } from 'dsh-core'
import type { ListChange } from './serve-composition.ts'

export interface LegacySessionsOptions {
  /** A POST body larger than this is answered 413. */
  readonly maxRequestBodySize: number
  /** Sessions kept at once; opening one more closes the one used longest ago. */
  readonly maxSessions: number
  readonly onerror: (error: Error) => void
}

interface LegacySession {
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
}

/**
 * `dsh serve --http` for 2025-11-25 clients: an `initialize` opens a session (the SDK's Streamable
 * HTTP transport with a session id), whose GET stream carries list changes; its later requests name
 * it in `Mcp-Session-Id`. A request with no session that is not an `initialize` is answered
 * statelessly by a fresh instance, as `createMcpHandler`'s own legacy leg would. Sessions live in
 * this process only: behind a load balancer a 2025-11-25 client needs sticky routing on the
 * session header (docs/serve.md), or it is told its session is unknown (404) and opens a new one.
 */
export class LegacySessions {
  /** In order of last use, oldest first (a Map keeps insertion order; a used session is re-inserted). */
  private readonly live = new Map<string, LegacySession>()
  private readonly stateless: LegacyHttpHandler

  constructor(
    private readonly factory: () => Server,
    private readonly options: LegacySessionsOptions,
  ) {
    this.stateless = legacyStatelessFallback(factory, options.onerror, { maxRequestBodySize: options.maxRequestBodySize })
  }

  get size(): number {
    return this.live.size
  }

  async fetch(request: Request, parsedBody: unknown, authInfo: AuthInfo | undefined): Promise<Response> {
    const passed = { ...(parsedBody === undefined ? {} : { parsedBody }), ...(authInfo ? { authInfo } : {}) }
    const id = request.headers.get('mcp-session-id')
    if (id) {
      const session = this.live.get(id)
      if (!session) return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found: it ended, or another replica holds it; send initialize again' } }, { status: 404 })
      this.live.delete(id)
      this.live.set(id, session)
      return session.transport.handleRequest(request, passed)
    }
    if (request.method === 'POST' && isInitialize(parsedBody)) return this.open(request, passed)
    return this.stateless(request, passed)
  }

  /** Tells every session's client that a list changed (over its GET stream, when it has one open). */
  notify(change: ListChange): void {
    for (const { server } of this.live.values()) void (change === 'tools' ? server.sendToolListChanged() : server.sendPromptListChanged()).catch(() => {})
  }

  async close(): Promise<void> {
    const sessions = [...this.live.values()]
    this.live.clear()
    await Promise.all(sessions.map(({ transport }) => transport.close().catch(() => {})))
  }

  private async open(request: Request, passed: { parsedBody?: unknown; authInfo?: AuthInfo }): Promise<Response> {
    const server = this.factory()
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: this.options.maxRequestBodySize,
      onsessioninitialized: (id) => {
        this.live.set(id, { server, transport })
        this.evictBeyondLimit()
      },
      onsessionclosed: (id) => void this.live.delete(id),
    })
    transport.onclose = () => {
      if (transport.sessionId) this.live.delete(transport.sessionId)
    }
    await server.connect(transport)
    return transport.handleRequest(request, passed)
  }

  private evictBeyondLimit(): void {
    for (const [id, { transport }] of this.live) {
      if (this.live.size <= this.options.maxSessions) return
      this.live.delete(id)
      void transport.close().catch(() => {})
    }
  }
}

function isInitialize(body: unknown): boolean {
  return isRecord(body) && body.method === 'initialize'
}
