import type { JSONRPCRequest, Result, ServerContext } from '@modelcontextprotocol/server'
import { describeIssues, quote, type SchemaIssues } from 'dsh-core'

/** JSON-RPC 2.0 error codes `dsh serve` answers with. */
export const RpcCode = {
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  /** The server failed to do what the request rightly asked (a file-system error reading a skill, an MCP server that failed to serve one). */
  INTERNAL_ERROR: -32603,
  /**
   * Implementation-defined server error (2026-07-28 keeps -32000…-32019 for implementations):
   * `dsh serve` runs its limit of calls already; the call may be sent again. Not -32000, the v1
   * SDK client's own "Connection closed" (and its HTTP server's "Bad Request"), nor -32001 (v1's
   * "Request timed out", both SDKs' "Session not found"), -32002 (resource not found before
   * 2026-07-28), -32003 (below); -32004…-32010 and -32015/-32016 are other SDKs' own (tower-mcp,
   * rust-mcp-sdk). tests/serve-rpc-codes.test.ts checks it against the SDKs' tables.
   */
  SERVER_BUSY: -32011,
  /** Implementation-defined server error: `dsh serve` was told to stop (SIGTERM, SIGINT) while the request ran (not -32001: the v1 SDK client reports its own request timeout with it; -32002 is MCP's resource not found). */
  SHUTTING_DOWN: -32003,
} as const

/**
 * An error answer to a request. The SDK sends `code` and `message` as they are; its own `McpError`
 * would put `MCP error -32602:` into the message, and clients add that prefix themselves.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** The error's `data`, sent as it is when given (a failure's own code, for a client to route on). */
    readonly data?: Readonly<Record<string, unknown>>,
  ) {
    super(message)
  }
}

/** What a route gets besides its request: the server's per-request context (signal, related notifications). */
export type Extra = ServerContext

/** What the SDK's request schemas look like to us: a `method` literal, and a safe parse. */
interface RequestSchema<Request> {
  readonly shape: { readonly method: { readonly value: string } }
  safeParse(value: unknown): { success: true; data: Request } | { success: false; error: SchemaIssues }
}

/**
 * The requests `dsh serve` answers, each validated against its SDK schema here rather than by the
 * SDK: a malformed request then gets -32602 with a one-line reason, where the SDK answers -32603
 * (or -32602) with a dump of zod's issues. Installed as the server's `fallbackRequestHandler`, so
 * the SDK still answers `initialize`, `server/discover` and `ping` itself, and still encodes each
 * answer for the revision the client speaks (2026-07-28's `resultType` and cache fields).
 */
export class Routes {
  private readonly table = new Map<string, (request: JSONRPCRequest, extra: Extra) => Promise<unknown>>()

  /** `plain` may recognise the common form of the request without the schema (serve-shapes.ts); the rest is parsed. */
  add<Request>(schema: RequestSchema<Request>, handle: (request: Request, extra: Extra) => unknown, plain?: (request: JSONRPCRequest) => Request | undefined): void {
    const method = schema.shape.method.value
    this.table.set(method, async (request, extra) => {
      const quick = plain?.(request)
      if (quick) return handle(quick, extra)
      const parsed = schema.safeParse(request)
      if (!parsed.success) throw new RpcError(RpcCode.INVALID_PARAMS, `invalid ${method} request: ${describeIssues(parsed.error, '(request)')}`)
      return handle(parsed.data, extra)
    })
  }

  /** Whether a route answers this method. */
  has(method: string): boolean {
    return this.table.has(method)
  }

  readonly dispatch = async (request: JSONRPCRequest, extra: Extra): Promise<Result> => {
    const route = this.table.get(request.method)
    if (!route) throw new RpcError(RpcCode.METHOD_NOT_FOUND, `method not found: ${quote(request.method, 80)}`)
    // Each route returns its own method's result.
    return (await route(request, extra)) as Result
  }
}
