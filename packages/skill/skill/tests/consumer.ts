import { Context, type ForkScope, type Plugin } from 'cordis'
import { createUserMessage, type PreStepDecision, type Session, type ToolResult, type UserMessage } from 'dsh-core'
import SessionService from 'dsh-core/sessions'
import ToolRuntime from 'dsh-core/tools'
import SkillRegistry from '../src/index.ts'
import * as toolSkill from '../src/tool/index.ts'

/** A real host (tools runtime, sessions, the registry) with dsh-skill/tool mounted as a preset row would. */
export interface ConsumerHost {
  readonly app: Context
  readonly fork: ForkScope
  readonly session: Session
  call(name: unknown, session?: Session, signal?: AbortSignal): Promise<ToolResult>
  /** One pre-step with the given user text (or messages); returns the entered messages. */
  step(input?: string | readonly UserMessage[], session?: Session): Promise<UserMessage[]>
  stop(): Promise<void>
}

export async function consumerHost(config: unknown = {}, options: { cwd?: string; mountTool?: boolean } = {}): Promise<ConsumerHost> {
  const app = new Context()
  const plugin = app.plugin as (plugin: Plugin, config: unknown) => ForkScope
  plugin(ToolRuntime as unknown as Plugin, {})
  plugin(SessionService as unknown as Plugin, undefined)
  plugin(SkillRegistry as unknown as Plugin, {})
  const fork = plugin(toolSkill as unknown as Plugin, config)
  await app.start()
  await app.events.flush()
  const session = app.sessions.create({ cwd: options.cwd ?? '/workspace' })
  return {
    app,
    fork,
    session,
    call: (name, callSession = session, signal) => app.tools.execute({ name: 'skill', arguments: { name }, session: callSession, ...(signal ? { signal } : {}) }),
    async step(input = 'hello', stepSession = session) {
      const messages = typeof input === 'string' ? [createUserMessage(input, { kind: 'user' })] : input
      const decision: PreStepDecision = await app.sessions.runPreStep(stepSession, messages)
      if (decision.kind !== 'enter') throw new Error(`pre-step rejected: ${decision.reason}`)
      return [...decision.messages]
    },
    stop: () => app.stop(),
  }
}

export const textOf = (message: UserMessage) => message.content.map((block) => block.text).join('\n')
export const kinds = (messages: readonly UserMessage[]) => messages.map((message) => message.source.kind)
