import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { HttpTransport } from './http-transport.ts'
import { withOwnSignal } from './own-signal.ts'
import type { BridgeTransport } from './transport.ts'

const CLIENT_INFO = { name: 'dsh-mcp', version: '0.1.0' }
/** How much of a server's stderr goes into an error message or a status line. */
const STDERR_TAIL_CHARS = 2000

export interface GenerationHooks {
  /** `notifications/tools/list_changed` arrived on this generation. */
  onListChanged(generation: Generation): void
  /** The transport closed (for stdio: the whole process group is gone). */
  onClosed(generation: Generation): void
}

/**
 * One connection attempt and, if it succeeds, one connection: a fresh SDK `Client` over a fresh
 * transport. Handlers are installed before `connect`, so a notification that races the first sync
 * is queued, not lost, and a close during `connect` is remembered.
 */
export class Generation {
  readonly client = new Client(CLIENT_INFO, { capabilities: {} })
  /** Set once the transport has closed. */
  closed = false
  /** Set once connect and the first sync succeeded. */
  connectedAt: number | undefined
  private readonly closedSignal: Promise<void>

  constructor(
    readonly id: number,
    readonly transport: BridgeTransport,
    hooks: GenerationHooks,
  ) {
    let markClosed!: () => void
    this.closedSignal = new Promise((resolve) => (markClosed = resolve))
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onListChanged(this))
    // Out-of-band errors (a line that is not JSON-RPC, a broken event stream) are the transport's to act on.
    this.client.onerror = () => {}
    this.client.onclose = () => {
      this.closed = true
      markClosed()
      hooks.onClosed(this)
    }
  }

  connect(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return withOwnSignal(signal, (own) => this.client.connect(this.transport, { timeout: timeoutMs, signal: own }))
  }

  /** Asks the transport to close (errors ignored) and waits at most `ms` for it to report closed. */
  async close(ms: number): Promise<boolean> {
    await this.client.close().catch(() => {})
    return this.waitClosed(ms)
  }

  /** True once closed; false when `ms` passed first. */
  waitClosed(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms)
      timer.unref()
    })
    return Promise.race([this.closedSignal.then(() => true), timeout]).finally(() => clearTimeout(timer))
  }

  get pid(): number | undefined {
    return this.transport instanceof HttpTransport ? undefined : this.transport.pid
  }

  /** What is known about how the connection ended: the exit and stderr tail of a stdio server, the reason an HTTP one was dropped. */
  endDescription(): string | undefined {
    const transport = this.transport
    if (transport instanceof HttpTransport) return transport.lostBecause?.message
    const exit = transport.exitDescription()
    const tail = transport.stderrTail().trim()
    const stderr = tail ? `; stderr: ${tail.length > STDERR_TAIL_CHARS ? `…${tail.slice(-STDERR_TAIL_CHARS)}` : tail}` : ''
    return exit || stderr ? `the server ${exit ?? 'is still running'}${stderr}` : undefined
  }

  serverLabel(): string | undefined {
    const version = this.client.getServerVersion()
    return version ? `${version.name}${version.version ? ` ${version.version}` : ''}` : undefined
  }
}
