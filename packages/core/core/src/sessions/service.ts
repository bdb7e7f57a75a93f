import { resolve } from 'node:path'
import { configParser } from '../config-parser.ts'
import { Context, Service, type Events } from 'cordis'
import { z } from 'zod'
import { errorMessage, HarnessError } from '../errors.ts'
import { Lifetime } from '../lifetime/lifetime.ts'
import { runInSession, currentSession } from './current.ts'
import { Session, type SessionEvent, type UserMessage } from './session.ts'

export type PreStepDecision =
  | { readonly kind: 'enter'; readonly messages: readonly UserMessage[] }
  | { readonly kind: 'reject'; readonly reason: string }

export interface PreStepInput {
  readonly session: Session
  /** What this step would enter so far (the user's message plus anything earlier steps added). */
  readonly messages: readonly UserMessage[]
  readonly signal: AbortSignal
}

/**
 * One link of the pre-step chain. Call `next()` to pass on (optionally after changing nothing),
 * or return a decision of your own: add messages with `{kind:'enter', messages:[...input.messages, extra]}`.
 */
export type PreStepMiddleware = (input: PreStepInput, next: (messages?: readonly UserMessage[]) => Promise<PreStepDecision>) => Promise<PreStepDecision>

declare module 'cordis' {
  interface Context {
    sessions: SessionService
  }
  interface Events {
    /** A session was created (its `cwd` is a workspace the host now works in). */
    'session/create'(session: Session): void
    'session/event'(session: Session, event: SessionEvent): void
    /** A session ended: `ended` (someone called `end`) or `evicted` (`maxSessions` made room). */
    'session/end'(session: Session, reason: SessionEndReason): void
  }
}

export type SessionEndReason = 'ended' | 'evicted'

export const SessionsConfig = z.strictObject({
  /**
   * Live sessions kept; creating one more ends the least recently active one (`session/end` with
   * `evicted`), so a long-running host that forgets to end sessions does not grow without bound.
   */
  maxSessions: z.number().int().positive().default(1000),
  /**
   * Events one session keeps; past it the oldest are dropped (seqs keep counting), so a long-lived
   * session (`dsh serve`'s, where every search appends a record) does not grow without bound.
   */
  maxEvents: z.number().int().positive().default(10_000),
})
export type SessionsConfig = z.infer<typeof SessionsConfig>

export interface CreateSessionOptions {
  readonly id?: string
  /** The workspace; relative paths resolve against the process directory. */
  readonly cwd: string
}

/** `ctx.sessions`: sessions with a workspace and a fact log, and the pre-step middleware chain. */
export class SessionService extends Service {
  static Config = configParser(SessionsConfig)

  /** Live sessions in order of last activity (a Map keeps insertion order; activity re-inserts). */
  private readonly sessions = new Map<string, Session>()
  private readonly chain: { middleware: PreStepMiddleware; owner: string }[] = []
  private readonly settings: SessionsConfig

  constructor(ctx: Context, config: SessionsConfig = SessionsConfig.parse({})) {
    super(ctx, 'sessions', true)
    this.settings = config
  }

  create(options: CreateSessionOptions): Session {
    const id = options.id ?? process.getBuiltinModule('node:crypto').randomUUID()
    if (this.sessions.has(id)) throw new HarnessError(`session "${id}" already exists`, 'SESSION_EXISTS')
    const session = new Session(
      id,
      resolve(options.cwd),
      (owner, event) => {
        this.touch(owner)
        this.emit('session/event', owner, event)
      },
      this.settings.maxEvents,
    )
    this.sessions.set(id, session)
    while (this.sessions.size > this.settings.maxSessions) {
      const [, oldest] = this.sessions.entries().next().value as [string, Session]
      this.ctx.logger('sessions').warn(`session "${oldest.id}" was evicted (maxSessions ${this.settings.maxSessions}); end sessions when their conversation is over`)
      this.finish(oldest, 'evicted')
    }
    this.emit('session/create', session)
    return session
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id)
  }

  /** Live sessions (ended and evicted ones are gone). */
  get size(): number {
    return this.sessions.size
  }

  /**
   * Ends a session: its log is freed, `get` no longer finds it, later appends are `SESSION_ENDED`,
   * and `session/end` tells listeners (so they can drop what they keep per session). Idempotent.
   */
  end(session: Session | string): void {
    const target = typeof session === 'string' ? this.sessions.get(session) : session
    if (target && !target.ended) this.finish(target, 'ended')
  }

  private finish(session: Session, reason: SessionEndReason): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id)
    session.close()
    this.emit('session/end', session, reason)
  }

  /** Moves the session to the most recently active end of the eviction order. */
  private touch(session: Session): void {
    if (this.sessions.get(session.id) !== session) return
    this.sessions.delete(session.id)
    this.sessions.set(session.id, session)
  }

  /** Listeners are other plugins' code: one that throws must not break appending or ending. */
  private emit<K extends 'session/create' | 'session/event' | 'session/end'>(name: K, ...args: Parameters<Events[K]>): void {
    try {
      this.ctx.emit(name, ...args)
    } catch (error) {
      this.ctx.logger('sessions').warn(`a ${name} listener failed: ${errorMessage(error)}`)
    }
  }

  /** The session of the running tool call or pre-step. */
  current(): Session | undefined {
    return currentSession()
  }

  /** Adds a pre-step link; an effect on the caller's scope. Links run in registration order. */
  use(middleware: PreStepMiddleware): () => void {
    const owner = this.ctx.name ?? 'anonymous'
    return this.ctx.effect(() => {
      const entry = { middleware, owner }
      this.chain.push(entry)
      return () => {
        const index = this.chain.indexOf(entry)
        if (index >= 0) this.chain.splice(index, 1)
      }
    })
  }

  /**
   * Runs the chain before a model request. Entered messages are appended to the session log as
   * `user/message` events ("model-visible means logged"). A link that throws is skipped and logged.
   */
  async runPreStep(session: Session, messages: readonly UserMessage[], signal: AbortSignal = new Lifetime().signal): Promise<PreStepDecision> {
    if (session.ended) throw new HarnessError(`session "${session.id}" has ended`, 'SESSION_ENDED')
    const links = [...this.chain]
    const step = async (index: number, current: readonly UserMessage[]): Promise<PreStepDecision> => {
      const link = links[index]
      if (!link) return { kind: 'enter', messages: current }
      let downstream: Promise<PreStepDecision> | undefined
      const next = (replacement?: readonly UserMessage[]) => (downstream ??= step(index + 1, replacement ?? current))
      try {
        const decision: unknown = await link.middleware({ session, messages: current, signal }, next)
        if (isDecision(decision)) return decision
        // A plain-JS link that forgot `return next()` must not break every step: treat it like a throw.
        throw new Error(`returned ${String(decision)} instead of a pre-step decision`)
      } catch (error) {
        this.ctx.logger('sessions').warn(`pre-step link of ${link.owner} failed and was skipped: ${errorMessage(error)}`)
        return downstream ?? next()
      }
    }
    const decision = await runInSession(session, () => step(0, messages))
    if (decision.kind === 'enter') {
      for (const message of decision.messages) session.append('user/message', message)
    }
    return decision
  }
}

function isDecision(value: unknown): value is PreStepDecision {
  const decision = value as { kind?: unknown; messages?: unknown } | null | undefined
  return decision?.kind === 'reject' || (decision?.kind === 'enter' && Array.isArray(decision.messages))
}
