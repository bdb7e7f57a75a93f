import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { CLIENT_CAPABILITIES_META_KEY, type CallToolResult, type ElicitRequestFormParams, type ElicitRequestURLParams, type ElicitResult, type InputRequiredResult } from '@modelcontextprotocol/server'
import { assertNever, isRecord, Lifetime, type JsonObject, type ToolRuntime, type UserAnswer, type UserQuestion } from 'dsh-core'
import { RpcCode, RpcError, type Extra } from './serve-rpc.ts'

/**
 * The `requestState` of a 2026-07-28 retry that carries a client's answers and so continues a call
 * already running (its next round), else undefined: a call of its own.
 */
export function resumedState(extra: Extra): unknown {
  return extra.mcpReq.envelope === undefined ? undefined : extra.mcpReq.requestState()
}

/** Who answers the questions asked while one served call runs: the MCP client that made it. */
interface CallAsker {
  /** The called tool's name. */
  readonly tool: string
  /** False once the call has answered: a question can no longer go to its client. */
  readonly live: boolean
  ask(question: UserQuestion): Promise<UserAnswer>
}

/**
 * A question from a bridged server, relayed to the MCP client of `dsh serve` whose call it arose in
 * (issue 28 item 4), through that client's own elicitation:
 *
 * - a 2025-11-25 client gets an `elicitation/create` request related to its `tools/call`, when it
 *   declared that mode (form or URL);
 * - a 2026-07-28 client's call ends with an `input_required` result carrying the question and a
 *   `requestState` naming the call, which keeps running here; the client's retry with the answer
 *   resumes it, and is answered with the next question or the call's result (multi round-trip).
 *
 * A question is declined when the client did not declare the mode, and when it cannot be tied to a
 * running call. The call is found through the async context the tool call runs in (a 2026-07-28
 * server's questions arise there); else — a 2025-11-25 server's request arrives from its pipe or its
 * standalone stream, unrelated to any call — the oldest running call of a tool of the asking server
 * (`mcp__<server>__…`), else the only call running.
 */
export class ServedQuestions {
  private readonly current = new AsyncLocalStorage<CallAsker>()
  private readonly running = new Set<CallAsker>()
  /** 2026-07-28 calls waiting for their client's retry, by the `requestState` they were given. */
  private readonly suspended = new Map<string, Exchange>()
  private readonly unregister: () => void

  constructor(
    tools: ToolRuntime,
    /** How long a question waits for the client's answer (`--answer-timeout-ms`); then it is cancelled. */
    private readonly answerTimeoutMs: number,
  ) {
    this.unregister = tools.questioner((question) => this.ask(question))
  }

  /**
   * Runs one `tools/call` (`execute`, given the context to run it with), or resumes the one a
   * 2026-07-28 retry names. Such a call outlives the request that started it, so it runs on a
   * signal of its own, which a request aborts only while it waits for the call's next turn (a
   * request over HTTP ends with its response, and that ending must not cancel the call).
   */
  async relay(extra: Extra, tool: string, execute: (extra: Extra) => Promise<CallToolResult>): Promise<CallToolResult | InputRequiredResult> {
    const envelope = extra.mcpReq.envelope
    if (!envelope) return this.during(new LegacyAsker(tool, extra, this.answerTimeoutMs), () => execute(extra))
    const state = resumedState(extra)
    if (state !== undefined) {
      const exchange = typeof state === 'string' ? this.suspended.get(state) : undefined
      if (!exchange || typeof state !== 'string') throw new RpcError(RpcCode.INVALID_PARAMS, 'invalid or expired requestState: dsh serve has no call waiting for this answer')
      this.suspended.delete(state)
      exchange.answer(extra.mcpReq.inputResponses)
      return this.next(exchange, extra)
    }
    // The request's own envelope declares what this client can be asked (a bare `elicitation: {}` is form).
    const capabilities = (envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY]
    const elicitation = isRecord(capabilities) && isRecord(capabilities.elicitation) ? capabilities.elicitation : undefined
    const exchange = new Exchange(tool, { form: Boolean(elicitation && (elicitation.form || Object.keys(elicitation).length === 0)), url: Boolean(elicitation?.url) }, this.answerTimeoutMs)
    exchange.start(this.during(exchange, () => execute({ ...extra, mcpReq: { ...extra.mcpReq, signal: exchange.lifetime.signal } })))
    return this.next(exchange, extra)
  }

  /** Unregisters the questioner; questions still waiting are cancelled. Closing twice is closing once. */
  close(): void {
    this.unregister()
    for (const exchange of this.suspended.values()) exchange.answer(undefined)
    this.suspended.clear()
  }

  private async during<T>(asker: CallAsker & { end(): void }, execute: () => Promise<T>): Promise<T> {
    this.running.add(asker)
    try {
      return await this.current.run(asker, execute)
    } finally {
      this.running.delete(asker)
      asker.end()
    }
  }

  private async next(exchange: Exchange, extra: Extra): Promise<CallToolResult | InputRequiredResult> {
    // The client gave up on this round (cancelled the request, or went away): the call ends.
    const cancel = () => exchange.lifetime.abort(extra.mcpReq.signal.reason)
    extra.mcpReq.signal.addEventListener('abort', cancel, { once: true })
    let turn: Turn
    try {
      turn = await exchange.turn()
    } finally {
      extra.mcpReq.signal.removeEventListener('abort', cancel)
    }
    if (turn.kind === 'result') return turn.result
    this.suspended.set(exchange.token, exchange)
    exchange.onceSettled(() => this.suspended.delete(exchange.token))
    return { resultType: 'input_required', inputRequests: { [turn.key]: { method: 'elicitation/create', params: turn.params } }, requestState: exchange.token } as InputRequiredResult
  }

  private ask(question: UserQuestion): Promise<UserAnswer> {
    return this.askerOf(question).ask(question)
  }

  private askerOf(question: UserQuestion): CallAsker {
    const current = this.current.getStore()
    if (current?.live) return current
    const prefix = `mcp__${question.source}__`
    const running = [...this.running]
    const asker = running.find((call) => call.tool.startsWith(prefix)) ?? (running.length === 1 ? running[0] : undefined)
    if (!asker) throw new Error(running.length ? 'several served calls are running and the question could not be tied to one' : 'no served call is running')
    return asker
  }
}

function elicitParams(question: UserQuestion): ElicitRequestFormParams | ElicitRequestURLParams {
  const message = `The MCP server ${question.source} asks: ${question.message}`
  switch (question.kind) {
    case 'form':
      return { mode: 'form', message, requestedSchema: question.schema as ElicitRequestFormParams['requestedSchema'] }
    case 'url':
      return { mode: 'url', message, url: question.url, elicitationId: randomUUID() }
    default:
      return assertNever(question, 'question')
  }
}

/** The client's answer as dsh-core takes it; anything malformed cancels. */
function toAnswer(result: unknown): UserAnswer {
  if (!isRecord(result)) return { action: 'cancel' }
  switch (result.action) {
    case 'accept':
      return isRecord(result.content) ? { action: 'accept', content: result.content as JsonObject } : { action: 'accept' }
    case 'decline':
      return { action: 'decline' }
    default:
      return { action: 'cancel' }
  }
}

/** A 2025-11-25 client: asked with `elicitation/create`, related to its call (the SDK checks the declared mode). */
class LegacyAsker implements CallAsker {
  live = true

  constructor(
    readonly tool: string,
    private readonly extra: Extra,
    private readonly answerTimeoutMs: number,
  ) {}

  async ask(question: UserQuestion): Promise<UserAnswer> {
    const answer: ElicitResult = await this.extra.mcpReq.elicitInput(elicitParams(question), { relatedRequestId: this.extra.mcpReq.id, signal: question.signal, timeout: this.answerTimeoutMs })
    return toAnswer(answer)
  }

  end(): void {
    this.live = false
  }
}

type Turn = { readonly kind: 'question'; readonly key: string; readonly params: ElicitRequestFormParams | ElicitRequestURLParams } | { readonly kind: 'result'; readonly result: CallToolResult }

/**
 * One 2026-07-28 call across its rounds: the running call's questions and then its result, taken one
 * turn at a time by the request (the first, then each retry) that answers the client.
 */
class Exchange implements CallAsker {
  readonly token = randomUUID()
  /** The call's own: it outlives the requests that carry its rounds. */
  readonly lifetime = Lifetime.following(undefined)
  live = true
  private readonly turns: Turn[] = []
  private readonly waiting = new Map<string, (answer: UserAnswer) => void>()
  private readonly sent = new Set<string>()
  private wake: (() => void) | undefined
  private settled: (() => void) | undefined
  private asked = 0

  constructor(
    readonly tool: string,
    private readonly modes: { readonly form: boolean; readonly url: boolean },
    private readonly answerTimeoutMs: number,
  ) {}

  start(result: Promise<CallToolResult>): void {
    void result.then(
      (value) => this.push({ kind: 'result', result: value }),
      (error: unknown) => this.push({ kind: 'result', result: { isError: true, content: [{ type: 'text', text: `the call failed: ${error instanceof Error ? error.message : String(error)}` }] } }),
    )
  }

  ask(question: UserQuestion): Promise<UserAnswer> {
    if (!this.modes[question.kind]) throw new Error(`the MCP client did not declare ${question.kind} elicitation`)
    const key = `question-${++this.asked}`
    // The client may never come back: the question then ends (cancelled) and the call goes on.
    const lifetime = Lifetime.following(question.signal, { timeoutMs: this.answerTimeoutMs })
    return new Promise<UserAnswer>((resolve) => {
      const settle = (answer: UserAnswer) => {
        if (!this.waiting.delete(key)) return
        lifetime.dispose()
        resolve(answer)
      }
      this.waiting.set(key, settle)
      lifetime.onAbort(() => settle({ action: 'cancel' }))
      this.push({ kind: 'question', key, params: elicitParams(question) })
    })
  }

  /** The client's retry: each question it was sent gets its answer (a missing one is cancelled). */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const key of this.sent) this.waiting.get(key)?.(toAnswer(responses?.[key]))
    this.sent.clear()
    this.settled?.()
  }

  /** The next turn: a question to send the client (one still waiting), or the result. */
  async turn(): Promise<Turn> {
    for (;;) {
      const turn = this.turns.shift()
      if (turn?.kind === 'result') return turn
      if (turn && this.waiting.has(turn.key)) {
        this.sent.add(turn.key)
        return turn
      }
      if (!turn) await new Promise<void>((resolve) => (this.wake = resolve))
    }
  }

  /** Calls `release` when the suspended round is answered, or when the call ends without it. */
  onceSettled(release: () => void): void {
    this.settled = () => {
      this.settled = undefined
      release()
    }
  }

  end(): void {
    this.live = false
    this.lifetime.dispose()
  }

  private push(turn: Turn): void {
    if (turn.kind === 'result') this.settled?.()
    this.turns.push(turn)
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}
