import { Client, type ClientCapabilities, type ElicitRequest, type ElicitResult, type RequestId, type Root, type VersionNegotiationMode } from '@modelcontextprotocol/client'
import { assertNever, Lifetime } from 'dsh-core'
import type { McpConfig } from './config.ts'
import { McpError } from './errors.ts'
import { AuthRequiredError } from './oauth/auth-required.ts'
import { StdioTransport } from './stdio-transport.ts'
import type { BridgeTransport } from './transport.ts'

const CLIENT_INFO = { name: 'dsh-mcp', version: '0.1.0' }
/** How much of a server's stderr goes into a status line or a log line. */
const STDERR_TAIL_CHARS = 2000

export interface GenerationHooks {
  /** `notifications/tools/list_changed` arrived on this generation. */
  onListChanged(generation: Generation): void
  /** `notifications/resources/list_changed` arrived on this generation (a SEP-2640 server's skills changed). */
  onResourcesChanged?(generation: Generation): void
  /** The transport closed (for stdio: the whole process group is gone). */
  onClosed(generation: Generation): void
  /** Something went wrong outside any request (a line that is not JSON-RPC, a broken event stream). */
  onTransportError(error: Error): void
  /** The client's roots (`roots/list`); absent: the client does not declare the `roots` capability. */
  roots: (() => Root[]) | undefined
  /** Answers the server's questions (`elicitation/create`, form and URL mode); absent: no `elicitation` capability. */
  elicit: ((request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>) | undefined
}

/**
 * How a connection ended, in two parts: `summary` may be shown to the model (an exit code, that
 * dsh stopped the server, why an HTTP session was dropped); `stderr` is the server's own output,
 * which can hold anything (keys included) and goes to logs and `dsh status` only.
 */
export interface Ending {
  readonly summary: string | undefined
  readonly stderr: string
  /** The coded failure a remote transport closed itself for, if it was one (a refused credential, a login that is needed). */
  readonly lostFor?: McpError
}

/** The row's `protocol` as the SDK's negotiation mode. */
function negotiation(protocol: McpConfig['protocol']): VersionNegotiationMode {
  switch (protocol) {
    case 'auto':
      return 'auto'
    case '2025-11-25':
      return 'legacy'
    case '2026-07-28':
      return { pin: protocol }
    default:
      return assertNever(protocol, 'MCP protocol')
  }
}

/**
 * One connection attempt and, if it succeeds, one connection: a fresh SDK `Client` over a fresh
 * transport, speaking the revision the row allows (`protocol`: `server/discover` first, else
 * `initialize`). Handlers are installed before `connect`, so a notification that races the first
 * sync is queued, not lost, and a close during `connect` is remembered. Tool-list changes arrive as
 * `notifications/tools/list_changed` on either revision (on 2026-07-28 through the
 * `subscriptions/listen` stream the SDK opens). Only a row with `roots: true` declares `roots` and
 * answers `roots/list`; `elicitation` (form and URL) is declared unless the row sets `elicitation: false`.
 */
export class Generation {
  readonly client: Client
  /** Set once the transport has closed. */
  closed = false
  /** Set once dsh asked it to close: what the transport reports from then on is the closing itself. */
  private closing = false
  /** Set once connect and the first sync succeeded. */
  connectedAt: number | undefined
  private readonly closedSignal: Promise<void>
  private readonly markClosed: () => void
  private readonly declaresRoots: boolean

  constructor(
    readonly id: number,
    readonly transport: BridgeTransport,
    hooks: GenerationHooks,
    protocol: McpConfig['protocol'],
  ) {
    const roots = hooks.roots
    this.declaresRoots = roots !== undefined
    let resolveClosed!: () => void
    this.closedSignal = new Promise((resolve) => (resolveClosed = resolve))
    this.markClosed = () => {
      this.closed = true
      resolveClosed()
    }
    const elicit = hooks.elicit
    const capabilities: ClientCapabilities = {
      ...(roots ? { roots: { listChanged: true } } : {}),
      ...(elicit ? { elicitation: { form: {}, url: {} } } : {}),
    }
    this.client = new Client(CLIENT_INFO, {
      capabilities,
      versionNegotiation: { mode: negotiation(protocol) },
      // Changes only mark the list stale: the supervisor's serial queue fetches it (discovery.ts).
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => hooks.onListChanged(this) },
        ...(hooks.onResourcesChanged ? { resources: { autoRefresh: false, debounceMs: 0, onChanged: () => hooks.onResourcesChanged?.(this) } } : {}),
      },
    })
    if (roots) this.client.setRequestHandler('roots/list', () => ({ roots: roots() }))
    if (elicit) this.client.setRequestHandler('elicitation/create', (request, context) => elicit(request, context.mcpReq.signal))
    this.client.onerror = (error) => {
      if (!this.closing && !this.closed) hooks.onTransportError(error)
    }
    this.client.onclose = () => {
      this.markClosed()
      hooks.onClosed(this)
    }
  }

  /** `legacy`: skip the `server/discover` probe (the server is known to speak only `initialize`). */
  connect(timeoutMs: number, signal: AbortSignal, legacy = false): Promise<void> {
    // A lifetime of its own: the SDK never removes the listener it adds to a request's signal.
    return Lifetime.run({ signal }, (own) => this.client.connect(this.transport, { timeout: timeoutMs, signal: own.signal, ...(legacy ? { prior: { kind: 'legacy' } as const } : {}) }))
  }

  /**
   * Asks the transport to close (errors ignored) and waits at most `ms` (the row's `closeTimeoutMs`)
   * for it to report closed, the asking included: a transport whose close never settles must not
   * hold disposal. When `ms` runs out the transport is abandoned (a stdio server's process group is
   * killed at once, an HTTP transport's connections dropped) and false is returned for the caller
   * to log.
   */
  async close(ms: number): Promise<boolean> {
    this.closing = true
    // A connect that failed during the version probe never handed the transport to the client:
    // close it ourselves (for stdio that resolves once the process group is gone).
    const closed = this.client.transport !== undefined
      ? this.client.close().catch(() => {}).then(() => this.closedSignal)
      : this.transport.close().catch(() => {}).then(() => this.markClosed())
    const done = this.closed || (await new Lifetime().within(closed, ms))
    if (!done) this.transport.abandon()
    return done
  }

  /** Tells the server the roots changed, if it is connected (it then asks `roots/list` again). */
  rootsChanged(): void {
    if (this.declaresRoots && !this.closed && this.connectedAt !== undefined) this.client.sendRootsListChanged().catch(() => {})
  }

  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? this.transport.pid : undefined
  }

  /** What is known about how the connection ended (see `Ending`). */
  ending(): Ending {
    const transport = this.transport
    if (!(transport instanceof StdioTransport)) {
      const lost = transport.lostBecause
      const lostFor = lost instanceof McpError ? lost : lost instanceof AuthRequiredError ? new McpError(lost.message, 'MCP_AUTH_REQUIRED', { cause: lost }) : undefined
      return { summary: lost?.message, stderr: '', ...(lostFor ? { lostFor } : {}) }
    }
    const exit = transport.exitDescription()
    const tail = transport.stderrTail().trim()
    return { summary: exit ? `the server ${exit}` : undefined, stderr: tail.length > STDERR_TAIL_CHARS ? `…${tail.slice(-STDERR_TAIL_CHARS)}` : tail }
  }

  /** The revision this connection speaks (`2026-07-28`, `2025-11-25`, …), once connected. */
  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion()
  }

  /** SEP-2243 applies: a 2026-07-28 connection over HTTP (stdio has no per-request headers). */
  get sendsParameterHeaders(): boolean {
    return this.protocolVersion === '2026-07-28' && !(this.transport instanceof StdioTransport)
  }

  /**
   * How a request the SDK gave up on is cancelled: a 2026-07-28 connection whose transport opens
   * one HTTP request per JSON-RPC request ends that request's stream (as the SDK's own cancel does);
   * any other sends `notifications/cancelled`.
   */
  cancelAbandoned(requestId: RequestId, reason: string): void {
    if (this.closed) return
    const transport = this.transport
    if (this.protocolVersion === '2026-07-28' && !(transport instanceof StdioTransport) && transport.hasPerRequestStream && transport.stopEventStream(requestId)) return
    this.client.notification({ method: 'notifications/cancelled', params: { requestId, reason } }).catch(() => {})
  }

  serverLabel(): string | undefined {
    const version = this.client.getServerVersion()
    return version ? `${version.name}${version.version ? ` ${version.version}` : ''}` : undefined
  }
}

/** `summary; stderr: …` for logs and status (the model gets `summary` only). */
export function describeEnding(ending: Ending): string | undefined {
  const stderr = ending.stderr ? `stderr: ${ending.stderr}` : undefined
  if (!ending.summary) return stderr && `the server is still running; ${stderr}`
  return stderr ? `${ending.summary}; ${stderr}` : ending.summary
}
