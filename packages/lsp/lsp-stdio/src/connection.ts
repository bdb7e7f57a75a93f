import { errorFromReason, errorMessage, Lifetime, MAX_TIMER_DELAY_MS, oneLine, type ChildHandle } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import { queryAborted } from './aborted.ts'
import { FrameGuard } from './frame-guard.ts'
import { HANDED, PipeMessageWriter } from './message-writer.ts'
import {
  ConnectionError,
  createMessageConnection,
  ReadableStreamMessageReader,
  ResponseError,
  type CancellationToken,
  type Disposable,
  type MessageConnection,
} from 'vscode-jsonrpc/node'

/** How one request may end before the server answers it. */
export interface RequestOptions {
  /**
   * The caller's lifetime: the request gives up when it aborts, and the rejection is its reason (an
   * Error reason as it is, else LSP_ABORTED). A lifetime, not a signal: following it costs a child in
   * its set, no AbortController and no listener, and a deadline of its that comes no later than
   * `timeoutMs` arms no second timer.
   */
  readonly lifetime?: Lifetime | undefined
  /**
   * A second lifetime the request ends with, whose end does not end the caller's (the provider's:
   * its disposal gives LSP_DISPOSED to the calls in flight). The rejection is its reason.
   */
  readonly owner?: Lifetime | undefined
  /** Gives up after this long with LSP_TIMEOUT; 0 or absent: no deadline of its own. */
  readonly timeoutMs?: number | undefined
  /**
   * After giving up, how long the server has to settle the cancelled request, and what to do when
   * it does not (a server that ignores `$/cancelRequest` is not listening). The rejection waits for both.
   */
  readonly ignoredCancel?: { readonly graceMs: number; readonly then: () => Promise<void> } | undefined
}

export interface ConnectionHooks {
  /** A request from the server; return the result or a ResponseError. */
  onServerRequest(method: string, params: unknown): unknown
  /** `$/progress` for a token the client did not start (the server's own work). */
  onProgress(token: string | number, value: unknown): void
  /** Any other notification from the server (`textDocument/publishDiagnostics`, …). */
  onNotification?(method: string, params: unknown): void
  /** The transport's fatal cause, once, as it is recorded. */
  onFatal?(error: LspError): void
}

const silent = { error() {}, warn() {}, info() {}, log() {} }


/**
 * After the server's output closes or a write to it fails, how long its exit (with the stderr tail)
 * may take to be noticed; and after it exits, how long its output may stay open (a helper process
 * that inherited it) before the exit counts anyway.
 */
const CLOSE_GRACE_MS = 1000
/** After the output closed, the time vscode-jsonrpc gets to hand on the last messages it read. */
const DELIVERY_GRACE_MS = 50

/**
 * JSON-RPC over a server's stdio (vscode-jsonrpc does the framing, behind a FrameGuard that bounds
 * what it may buffer). The connection records one fatal cause — the process exited, a pipe broke,
 * the server wrote something that is not LSP or a message over `maxMessageBytes` — and every
 * pending and later request rejects with that very error object, so callers can tell a transport
 * failure (`isFatal`) from a server's error answer.
 */
export class LspConnection {
  private fatal: LspError | undefined
  private exitExpected = false
  /** Aborts with the fatal cause: every request and write in flight is a child of it. */
  private readonly alive = new Lifetime()
  private readonly rpc: MessageConnection
  /** The connection's writer, which a notification with no signal is handed to directly (see `notifyInOrder`). */
  private readonly writer: PipeMessageWriter

  constructor(
    private readonly child: ChildHandle,
    private readonly serverId: string,
    limits: { readonly maxMessageBytes: number },
    private readonly hooks: ConnectionHooks,
  ) {
    const { stdout, stdin } = child
    if (!stdout || !stdin) {
      const reason = child.pid <= 0 ? 'it could not be spawned' : 'its stdin and stdout are not pipes'
      throw new LspError(`${serverId}: the language server could not be started: ${reason}`, 'LSP_SERVER_START_FAILED')
    }
    // The reader's stream: stdout's chunks checked and handed on in the call that read them.
    const guard = new FrameGuard(stdout, serverId, limits.maxMessageBytes)
    const reader = new ReadableStreamMessageReader(guard)
    // Each message on the pipe in the call that sends it, in one write (see PipeMessageWriter).
    const writer = (this.writer = new PipeMessageWriter(stdin))
    reader.onError((error) => {
      const cause = error instanceof LspError ? error : new LspError(`${serverId}: the language server sent bytes that are not LSP: ${oneLine(errorMessage(error)).slice(0, 300)}`, 'LSP_PROTOCOL_ERROR', { cause: error })
      this.fail(cause)
      // Nothing more is read: whatever the server still writes is refused at the pipe, not buffered.
      stdout.destroy()
      void child.terminate()
    })
    writer.onError(([error]) => this.expectExit(`writing to the language server failed (${errorMessage(error)})`))
    this.rpc = createMessageConnection(reader, writer, silent)
    this.rpc.onRequest((method, params) => hooks.onServerRequest(method, params))
    this.rpc.onUnhandledProgress((params) => hooks.onProgress(params.token, params.value))
    // Not `onNotification(handler)`: vscode-jsonrpc awaits a handler (two promises per notification,
    // each paying the host's async hooks; TypeScript 7 logs about seven per change) and calls
    // unhandled ones' listeners synchronously. `$/progress` and `$/cancelRequest` have their own handlers.
    const { onNotification } = hooks
    if (onNotification) this.rpc.onUnhandledNotification((message) => onNotification(message.method, message.params))
    this.rpc.onClose(() => this.expectExit('the language server closed its output'))
    this.rpc.listen()
    const outputClosed = new Promise<void>((resolve) => guard.onClose(resolve))
    void child.exited.then(async (exit) => {
      if (exit.error) {
        this.fail(new LspError(`${serverId}: the language server could not be started: ${exit.error.message}`, 'LSP_SERVER_START_FAILED', { cause: exit.error }))
        return
      }
      // A server that answers and then exits has answered: what it wrote before exiting is read and
      // handed on (vscode-jsonrpc does that in a few event-loop turns) before the exit is fatal.
      const grace = new Lifetime()
      await grace.within(outputClosed, CLOSE_GRACE_MS)
      await grace.sleep(DELIVERY_GRACE_MS)
      grace.dispose()
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`
      this.fail(this.exitedError(`the language server ${how}`))
    })
  }

  /** The transport's fatal cause, once there is one. */
  get failure(): LspError | undefined {
    return this.fatal
  }

  /** True when `error` is this connection's own transport failure (and so worth one replay elsewhere). */
  isFatal(error: unknown): boolean {
    return error !== undefined && error === this.fatal
  }

  /** Records the fatal cause once; pending requests reject with it. */
  fail(error: LspError): void {
    if (this.fatal) return
    this.fatal = error
    this.alive.abort(error)
    this.rpc.dispose()
    this.hooks.onFatal?.(error)
  }

  /**
   * One request. It ends with the server's answer, the connection's fatal cause, or when the
   * caller gives up (`lifetime`, `owner`, `timeoutMs`): then `$/cancelRequest` goes to the server,
   * always, and with `ignoredCancel` the server gets a grace to settle it. Nothing is made for the
   * giving up but one `RequestCancel` (the token vscode-jsonrpc cancels through) and a dependant on
   * each lifetime; a child lifetime only when `timeoutMs` comes before their deadlines (a timer is
   * then armed). The fatal cause reaches the request through vscode-jsonrpc, which rejects every
   * pending request when `fail` disposes it.
   */
  request<R>(method: string, params: unknown, options: RequestOptions = {}): Promise<R> {
    if (this.fatal) return Promise.reject(this.fatal)
    const { lifetime, owner, timeoutMs, ignoredCancel } = options
    if (lifetime?.aborted) return Promise.reject(errorFromReason(lifetime.reason, queryAborted))
    if (owner?.aborted) return Promise.reject(errorFromReason(owner.reason, queryAborted))
    // Its own deadline needs a timer only when it comes before the lifetimes' (a call's 60 s tool
    // budget began before this request's 60 s): then a child of the caller's carries it.
    const timed = timeoutMs && timeoutMs > 0 && ownDeadlineFirst(timeoutMs, lifetime, owner) ? (lifetime ?? this.alive).child({ timeoutMs, code: 'LSP_TIMEOUT' }) : undefined
    const cancel = new RequestCancel()
    const sent = this.sentRequest<R>(method, params, cancel)
    return new Promise<R>((resolve, reject) => {
      let open = true
      const stops: (() => void)[] = []
      const close = () => {
        open = false
        for (const stop of stops) stop()
        timed?.dispose()
      }
      const giveUp = (reason: unknown) => {
        if (!open) return
        const expired = timed?.expired === true
        close()
        if (reason === this.fatal) return reject(reason)
        // vscode-jsonrpc writes `$/cancelRequest` for the request's id.
        cancel.cancel()
        const error = expired ? new LspError(`${this.serverId}: ${method} got no answer within ${timeoutMs} ms`, 'LSP_TIMEOUT') : errorFromReason(reason, queryAborted)
        if (!ignoredCancel) return reject(error)
        const grace = new Lifetime()
        void grace
          .within(sent, ignoredCancel.graceMs)
          .then((settled) => (settled ? undefined : ignoredCancel.then()))
          .catch(() => {})
          .then(() => reject(error))
      }
      const first = timed ?? lifetime
      if (first) stops.push(first.onAbort(giveUp))
      if (owner) stops.push(owner.onAbort(giveUp))
      // A request on no lifetime of the caller's has its timed child follow the connection's (the fatal cause ends it at once).
      const settle = (ok: boolean, value: unknown) => {
        // A late answer after the caller gave up goes nowhere.
        if (!open) return
        close()
        if (ok) resolve(value as R)
        else reject(value)
      }
      sent.then(
        (value) => settle(true, value),
        (error: unknown) => {
          if (!open) return
          // vscode-jsonrpc rejected it as `fail` disposed the connection: the fatal cause is the answer.
          if (this.fatal) return settle(false, this.fatal)
          const failure = this.answerFailure(error)
          if (failure instanceof Promise) failure.catch((fatal: unknown) => settle(false, fatal))
          else settle(false, failure)
        },
      )
    })
  }

  /**
   * vscode-jsonrpc's own promise for the request (its failures are translated where it settles).
   * The streams closed before the exit was noticed: vscode-jsonrpc refuses it with a bare
   * ConnectionError, and the fatal cause, which `expectExit()` guarantees shortly, is the answer.
   */
  private sentRequest<R>(method: string, params: unknown, cancel: RequestCancel): Promise<R> {
    try {
      return this.rpc.sendRequest<R>(method, params, cancel)
    } catch (error) {
      if (error instanceof ConnectionError) return this.awaitFatal()
      return Promise.reject(error)
    }
  }

  /**
   * What a request whose answer failed rejects with: the failure translated, or (a write that failed
   * as the process goes) the fatal cause once there is one.
   */
  private answerFailure(error: unknown): unknown {
    // vscode-jsonrpc rejects a request it could not write with a local ResponseError, after our
    // writer error hook has already run: that is the transport failing, not the server answering.
    if (error instanceof ResponseError && this.exitExpected) return this.awaitFatal()
    // vscode-jsonrpc rejects a response that has neither `result` nor `error` with a plain Error.
    if (error instanceof Error && error !== this.fatal && !(error instanceof ResponseError)) {
      return new LspError(`${this.serverId}: malformed language server response: ${error.message}`, 'LSP_MALFORMED_RESPONSE', { cause: error })
    }
    return this.translate(error)
  }

  /**
   * Resolves once the notification is handed to the server's stdin, in order before anything sent
   * later (PipeMessageWriter: no caller waits on a notification's bytes; a failed write is the
   * server going, reported through the writer's onError).
   */
  notify(method: string, params: unknown, signal?: AbortSignal): Promise<void> {
    return this.notifyInOrder([[method, params]], signal)
  }

  /**
   * Hands the notifications to the writer together, so nothing sent later comes between them, and
   * resolves once all are handed to the stdin (see `notify`).
   *
   * Without a signal (a document's didOpen, didChange, didSave: every change) there is nothing to
   * wait for: each is handed to the writer in this call and the answer is one shared settled promise,
   * so none is made (vscode-jsonrpc's sendNotification makes one over the write, and awaiting each
   * write made two more, per notification). A write that fails ends the connection through the
   * writer's onError (`expectExit`), as from vscode-jsonrpc. The message is the one vscode-jsonrpc's
   * sendNotification makes for one parameter passed by name (an object, not an array), sent as it is;
   * other parameters, and a connection whose streams are going (`exitExpected`: vscode-jsonrpc may
   * refuse them as closed), take the library's path.
   */
  notifyInOrder(messages: readonly (readonly [method: string, params: unknown])[], signal?: AbortSignal): Promise<void> {
    if (this.fatal) return Promise.reject(this.fatal)
    if (signal) return this.notifyWhile(messages, signal)
    if (this.exitExpected || !messages.every(([, params]) => isNamedParams(params))) return this.notifyThroughLibrary(messages)
    try {
      for (const [method, params] of messages) this.writer.writeNotification({ jsonrpc: JSONRPC_VERSION, method, params: params as object })
    } catch {
      // Params JSON cannot encode: the writer reported it to onError, and the fatal cause follows.
      return this.awaitFatal()
    }
    return HANDED
  }

  /**
   * `notifyInOrder` through vscode-jsonrpc's sendNotification, waiting for each write: one wait for
   * them all, and no Lifetime race (one listener on the connection's fatal cause).
   */
  private notifyThroughLibrary(messages: readonly (readonly [method: string, params: unknown])[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let left = messages.length
      let stop = (): void => {}
      const finish = (error?: unknown) => {
        if (left < 0) return
        left = -1
        stop()
        if (error === undefined) resolve()
        else reject(error)
      }
      // The fatal cause settles the wait: a pipe the server stopped reading never takes the bytes.
      stop = this.alive.onAbort(finish)
      for (const [method, params] of messages) {
        this.untilFatalIfClosed(() => this.rpc.sendNotification(method, params)).then(
          () => {
            if (--left === 0) finish()
          },
          // A failed write: the process is most likely dying. Its exit (with the stderr tail) is the
          // fatal cause, which expectExit() guarantees shortly, and which settles the wait.
          (error: unknown) => this.expectExit(`writing to the language server failed (${errorMessage(error)})`),
        )
      }
    })
  }

  /** `notifyInOrder` bound to the caller's signal too. */
  private async notifyWhile(messages: readonly (readonly [method: string, params: unknown])[], signal: AbortSignal): Promise<void> {
    const writes = messages.map(([method, params]) => this.untilFatalIfClosed(() => this.rpc.sendNotification(method, params)))
    const written: Promise<unknown> = writes.length === 1 ? writes[0]! : Promise.all(writes)
    try {
      await this.alive.run({ signal }, () => written, queryAborted)
    } catch (error) {
      if (error === this.fatal || signal.aborted) throw this.translate(error)
      // A failed write: the process is most likely dying. Its exit (with the stderr tail) is the
      // fatal cause, and expectExit() guarantees one shortly.
      this.expectExit(`writing to the language server failed (${errorMessage(error)})`)
      return this.awaitFatal()
    }
  }

  /**
   * The streams closed (the server exited or shut its output) before the exit was noticed:
   * vscode-jsonrpc refuses new messages with a bare ConnectionError. The fatal cause, which
   * `expectExit()` guarantees shortly, is the answer instead (so the provider can replay the query).
   */
  private untilFatalIfClosed<T>(send: () => Promise<T>): Promise<T> {
    try {
      return send()
    } catch (error) {
      if (error instanceof ConnectionError) return new Promise<T>(() => {})
      // A rejection, not a throw: the writes handed over before this one are still awaited with it.
      return Promise.reject(error)
    }
  }

  /** Rejects with the fatal cause once there is one (expectExit() guarantees one shortly). */
  private async awaitFatal(): Promise<never> {
    if (!this.fatal) await new Promise((resolve) => this.alive.onAbort(resolve))
    throw this.fatal
  }

  /**
   * A closed output stream or a failed write means the process is going. Its exit normally follows
   * at once and becomes the fatal cause (with the stderr tail); a server that lingers is ended and
   * `what` becomes the cause.
   */
  private expectExit(what: string): void {
    if (this.fatal || this.exitExpected) return
    this.exitExpected = true
    const timer = setTimeout(() => {
      this.fail(this.exitedError(what))
      void this.child.terminate()
    }, CLOSE_GRACE_MS)
    timer.unref()
    void this.child.exited.then(() => clearTimeout(timer))
  }

  private translate(error: unknown): unknown {
    if (error === this.fatal) return error
    if (error instanceof ResponseError) {
      // Servers put whole stack traces here; the model needs the gist, not 40 lines.
      const message = typeof error.message === 'string' && error.message ? bounded(error.message, MAX_SERVER_MESSAGE_CHARS) : 'no message'
      return new LspError(`${this.serverId}: language server error ${error.code}: ${message}`, 'LSP_SERVER_ERROR', { cause: error, rpcCode: error.code })
    }
    return error
  }

  /** The message carries the whole kept stderr tail: `maxStderrBytes` is what is kept and what is shown. */
  private exitedError(what: string): LspError {
    const tail = this.child.stderrTail().trim()
    const suffix = tail ? `; stderr: ${tail}` : ''
    return new LspError(`${this.serverId}: ${what}${suffix}`, 'LSP_SERVER_EXITED')
  }
}

/** The `jsonrpc` member of every message (vscode-jsonrpc's own). */
const JSONRPC_VERSION = '2.0'

/**
 * One parameter vscode-jsonrpc sends by name, as it is (its `isNamedParam`): an object, not an array.
 * Anything else it wraps in an array. Restated because the library keeps it inside
 * `createMessageConnection` (10.0.0 exports neither it nor `computeSingleParam`), and its public
 * `ParameterStructures.byName` throws for a non-object where `auto`, which this mirrors, wraps it.
 */
function isNamedParams(params: unknown): params is object {
  return typeof params === 'object' && params !== null && !Array.isArray(params)
}

/** How much of a server's error message reaches the caller. */
const MAX_SERVER_MESSAGE_CHARS = 1000

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`
}

/** True when a request's own `timeoutMs` from now comes before every lifetime's deadline (so it needs a timer). */
function ownDeadlineFirst(timeoutMs: number, lifetime: Lifetime | undefined, owner: Lifetime | undefined): boolean {
  const own = performance.now() + Math.min(timeoutMs, MAX_TIMER_DELAY_MS)
  return own < Math.min(lifetime?.deadline ?? Infinity, owner?.deadline ?? Infinity)
}

/**
 * The token one request is sent with, cancelled only when the caller gives up: vscode-jsonrpc
 * listens on it (and disposes the listener once the request settles), and its cancellation writes
 * `$/cancelRequest` for the request's id. In place of a CancellationTokenSource, whose token makes
 * an event emitter and a listener per request.
 */
class RequestCancel implements CancellationToken, Disposable {
  isCancellationRequested = false
  private listener: ((event: unknown) => unknown) | undefined

  onCancellationRequested(listener: (event: unknown) => unknown): Disposable {
    this.listener = listener
    return this
  }

  cancel(): void {
    this.isCancellationRequested = true
    const listener = this.listener
    this.listener = undefined
    listener?.(undefined)
  }

  dispose(): void {
    this.listener = undefined
  }
}
