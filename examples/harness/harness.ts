/**
 * The reference harness: the smallest agent loop over the dsh plugins, written against their public
 * API only (everything here is importable from the published packages). A harness owns the model
 * and the conversation; the plugins own tools, prompt guidance and what enters the conversation
 * before each model request. Read it top to bottom:
 *
 * 1. `startHarness` builds a cordis app and loads the plugins from code (a preset file is the other
 *    way: `bootPreset` from dsh-core, docs/embedding.md).
 * 2. `converse` answers one user message: it creates a session, runs the pre-step chain before every
 *    model request, shows the model the tool catalog and the prompt sections, executes the tool
 *    calls the model makes, and ends the session.
 * 3. `Harness.stop` unloads everything and waits until every child process is gone.
 */
import { Context, type ForkScope } from 'cordis'
import { createUserMessage, stopHost, type CatalogEntry, type Session, type SessionEvent, type ToolResult, type TrustHook } from 'dsh-core'
import Credentials from 'dsh-core/credentials'
import Fs from 'dsh-core/fs'
import Readiness from 'dsh-core/readiness'
import Sessions from 'dsh-core/sessions'
import Subprocess from 'dsh-core/subprocess'
import Tools from 'dsh-core/tools'
import Trust from 'dsh-core/trust'
import Skills from 'dsh-skill'
import * as toolSkill from 'dsh-skill/tool'
import * as skillFs from 'dsh-skill-fs'
import * as toolWeb from 'dsh-tool-web'
import Web from 'dsh-web'
import * as webFetchHttp from 'dsh-web-fetch-http'

/** What the model is shown before each of its turns. */
export interface ModelRequest {
  /** The prompt sections the plugins registered (tool guidance, …), in their order. */
  readonly system: string
  /** Name, description and JSON Schema of every tool: what a model API takes as its tool list. */
  readonly tools: readonly CatalogEntry[]
  /** The conversation so far: the session's log, less what compaction replaced. */
  readonly conversation: readonly SessionEvent[]
}

/** The model's turn: call a tool, or answer the user (which ends the turn loop). */
export type ModelReply = { readonly kind: 'call'; readonly name: string; readonly arguments: unknown } | { readonly kind: 'answer'; readonly text: string }

/** Your model goes here: a function from a request to its reply. */
export type Model = (request: ModelRequest, signal: AbortSignal) => Promise<ModelReply>

export interface HarnessOptions {
  /** The user's home, where user-level skills live (`~/.dsh/skills`, `~/.claude/skills`, …). Default: `$HOME`. */
  readonly userHome?: string
  /**
   * Your trust dialog: whether a workspace may bring its own skills, `.env`, `.mcp.json` servers and
   * TypeScript. Answer `true`, `false`, or `undefined` to leave it to what the user recorded with
   * `dsh trust`. Without one, only the directories recorded as trusted are.
   */
  readonly trust?: TrustHook
}

export interface Harness {
  readonly app: Context
  /** Unloads the plugins in reverse order and resolves once every child process is gone. */
  stop(): Promise<void>
}

/** Loads the host services, the Skill surface and the Web tools into a new app and starts it. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const app = new Context()
  // One `app.plugin(plugin, config)` per preset row. Each returns a fork: disposing it unloads the
  // plugin and everything it registered (its tools, prompt sections, pre-step links).
  const forks: ForkScope[] = [
    // The host: each service is the default export of its dsh-core subpath.
    app.plugin(Tools),
    app.plugin(Fs),
    app.plugin(Subprocess),
    app.plugin(Sessions),
    app.plugin(Credentials),
    app.plugin(Readiness),
    app.plugin(Trust),
    // Skills: the registry, SKILL.md discovery, and the `skill` tool with its catalog pre-step.
    app.plugin(Skills),
    app.plugin(skillFs, options.userHome ? { userHome: options.userHome } : {}),
    app.plugin(toolSkill),
    // Web: the seam with the guarded HTTP fetch provider, and the web_fetch / web_search tools
    // (web_search stays listed and fails with WEB_PROVIDER_UNAVAILABLE: no search provider is loaded).
    app.plugin(Web),
    app.plugin(webFetchHttp),
    app.plugin(toolWeb),
  ]
  await app.start()
  // The harness's own trust decision replaces the recorded one (an effect on the app: gone with it).
  if (options.trust) app.trust.decider(options.trust)
  // Plugins whose setup is asynchronous have finished once the pending events are flushed.
  await app.events.flush()
  const failed = forks.find((fork) => fork.error !== undefined || fork.runtime.error !== undefined)
  if (failed) throw new Error(`a plugin failed to start: ${String(failed.error ?? failed.runtime.error)}`)

  // Unloads the plugins in reverse load order, letting each asynchronous teardown (a server told to
  // shut down) finish, then waits for every process group the subprocess service started to be gone.
  const stop = () => stopHost(app, forks)
  return { app, stop }
}

export interface ConverseOptions {
  /** The workspace of the conversation: tools resolve paths and find project skills here. */
  readonly cwd: string
  readonly text: string
  readonly model: Model
  /** Model turns allowed before the harness gives up on an answer. */
  readonly maxTurns?: number
  readonly signal?: AbortSignal
}

export interface Conversation {
  /** What the user finally sees: the model's answer, or why there is none. */
  readonly answer: string
  /** Every request the model was shown, in order. */
  readonly requests: readonly ModelRequest[]
  /** The tool calls made, with their results. */
  readonly calls: readonly { readonly name: string; readonly arguments: unknown; readonly result: ToolResult }[]
}

/** One user message, answered: the loop at the heart of every harness. */
export async function converse(app: Context, options: ConverseOptions): Promise<Conversation> {
  const signal = options.signal ?? new AbortController().signal
  const session = app.sessions.create({ cwd: options.cwd })
  const requests: ModelRequest[] = []
  const calls: { name: string; arguments: unknown; result: ToolResult }[] = []
  const maxTurns = options.maxTurns ?? 8
  try {
    // The user's message enters through the pre-step chain before the first request; later requests
    // run the chain with nothing new, so plugins can still add to the conversation (a changed skill
    // catalog). What the chain lets in is logged on the session as `user/message` events.
    let incoming = [createUserMessage(options.text, { kind: 'user' })]
    for (let turn = 0; turn < maxTurns; turn++) {
      const decision = await app.sessions.runPreStep(session, incoming, signal)
      if (decision.kind === 'reject') return { answer: `(not sent: ${decision.reason})`, requests, calls }
      incoming = []

      const request: ModelRequest = {
        system: app.tools.sections().map((section) => section.text).join('\n\n'),
        tools: app.tools.catalog({ session }),
        conversation: visibleLog(session),
      }
      requests.push(request)
      const reply = await options.model(request, signal)
      if (reply.kind === 'answer') {
        session.append('assistant/answer', { text: reply.text })
        return { answer: reply.text, requests, calls }
      }

      // `execute` never throws: a bad name, bad arguments, a timeout or a failing tool come back as
      // an error result with a stable code, which the model sees and can react to.
      session.append('assistant/tool-call', { name: reply.name, arguments: reply.arguments })
      const result = await app.tools.execute({ name: reply.name, arguments: reply.arguments, session, signal })
      calls.push({ name: reply.name, arguments: reply.arguments, result })
      session.append('tool/result', { name: reply.name, isError: result.isError, content: result.content.map((block) => block.text) })
    }
    return { answer: `(no answer within ${maxTurns} model turns)`, requests, calls }
  } finally {
    // The conversation is over: free its log and tell the plugins (session/end) to drop what they
    // keep for it.
    app.sessions.end(session)
  }
}

function visibleLog(session: Session): SessionEvent[] {
  return session.events.filter((event) => session.visible(event.seq))
}
