import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { Context, Service } from 'cordis'
import { errorMessage, HarnessError } from '../errors.ts'
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
    'session/event'(session: Session, event: SessionEvent): void
  }
}

export interface CreateSessionOptions {
  readonly id?: string
  /** The workspace; relative paths resolve against the process directory. */
  readonly cwd: string
}

/** `ctx.sessions`: sessions with a workspace and a fact log, and the pre-step middleware chain. */
export class SessionService extends Service {
  private readonly sessions = new Map<string, Session>()
  private readonly chain: { middleware: PreStepMiddleware; owner: string }[] = []

  constructor(ctx: Context) {
    super(ctx, 'sessions', true)
  }

  create(options: CreateSessionOptions): Session {
    const id = options.id ?? randomUUID()
    if (this.sessions.has(id)) throw new HarnessError(`session "${id}" already exists`, 'SESSION_EXISTS')
    const session = new Session(id, resolve(options.cwd), (owner, event) => {
      try {
        this.ctx.emit('session/event', owner, event)
      } catch (error) {
        this.ctx.logger('sessions').warn(`a session/event listener failed: ${errorMessage(error)}`)
      }
    })
    this.sessions.set(id, session)
    return session
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id)
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
  async runPreStep(session: Session, messages: readonly UserMessage[], signal: AbortSignal = new AbortController().signal): Promise<PreStepDecision> {
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
