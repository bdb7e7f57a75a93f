import { Context, Service } from 'cordis'
import { configParser } from '../config-parser.ts'
import { z } from 'zod'
import { MAX_TIMER_DELAY_MS } from '../abort.ts'
import { Lifetime } from '../lifetime/lifetime.ts'
import { errorMessage, isHarnessError, quote, ToolError, ToolErrorCode } from '../errors.ts'
import { deepFreeze, isRecord, toFrozenJson, toJson, type JsonObject, type JsonValue } from '../json.ts'
import { lazy, type Lazy } from '../lazy.ts'
import { runInSession } from '../sessions/current.ts'
import { answerAsProperty } from '../lifetime.ts'
import { approvalModeOf, approve } from './approval.ts'
import { describeIssues, inputJsonSchema, outputJsonSchema } from './schema.ts'
import { progressReporter } from './progress.ts'
import { byName, DeferConfig, Deferral, TOOL_SEARCH, type DeferrableTool } from './deferral.ts'
import { ToolIndex, toolSearchDefinition, vanishedToolsNote } from './tool-search.ts'
import type { ApprovalMode, Approver, CatalogEntry, Questioner, UserAnswer, UserQuestion, CatalogOptions, ContentBlock, DeferMode, PromptSection, ResultObserver, ToolCall, ToolDefinition, ToolExecution, ToolProgress, ToolResult, ToolResultEvent } from './types.ts'
import type { Session } from '../sessions/session.ts'

declare module 'cordis' {
  interface Context {
    tools: ToolRuntime
  }
  interface Events {
    'tools/change'(): void
  }
}

export const ToolsConfig = z.strictObject({
  /**
   * How long to keep waiting for a body after its call timed out or was aborted before answering
   * without it. Bodies should honour their signal; this bounds the damage when one does not.
   */
  abandonAfterMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(5000),
  /** Arguments nested deeper than this are the caller's mistake (`INVALID_ARGS`), not a stack overflow. */
  maxArgumentDepth: z.number().int().positive().max(10_000).default(100),
  /** When deferrable tools are withheld behind `tool_search` (docs/architecture.md, "Deferred tools"). */
  defer: DeferConfig.prefault({}),
})
export type ToolsConfig = z.infer<typeof ToolsConfig>

/** The registry's view of a definition: arguments and values are checked at runtime, not typed. */
interface LooseDefinition {
  execute(args: unknown, exec: ToolExecution): Promise<unknown>
  render?(args: unknown, value: JsonValue): string | readonly ContentBlock[]
  meta?(args: unknown, value: JsonValue): unknown
  presentCall?(args: unknown): unknown
  presentResult?(args: unknown, result: ToolResult): unknown
}

type Presenter = 'presentCall' | 'presentResult'

interface Entry {
  readonly definition: ToolDefinition
  readonly approval: ApprovalMode
  readonly defer: DeferMode
  /** What the model is told about the tool (name, description, schema), and its length in characters. */
  readonly catalog: CatalogEntry
  readonly chars: number
  /** The published JSON Schema of the value (see `outputSchema`), rendered when first asked for. */
  readonly outputSchema: () => JsonObject | undefined
  /** The schema each value is checked against: `output` unless the definition set `checkOutput: false`. */
  readonly checkOutput: z.ZodType | undefined
  readonly parse: (args: JsonValue) => { ok: true; value: unknown } | { ok: false; problem: string }
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** `ctx.tools`: the model-visible tool catalog and the one way to run a tool. */
export class ToolRuntime extends Service {
  static Config = configParser(ToolsConfig)

  private readonly entries = new Map<string, Entry>()
  private readonly guidance = new Map<string, PromptSection>()
  /** Live approvers, oldest first; the last one answers. */
  private readonly approvers: { readonly answer: Approver }[] = []
  /** Live questioners, oldest first; the last one answers. */
  private readonly questioners: { readonly answer: Questioner }[] = []
  private readonly settings: ToolsConfig
  /** Name prefixes whose owner explains calls to names it does not have (see `namespace`). */
  private readonly namespaces: { readonly prefix: string; readonly explain: (name: string) => Error | undefined }[] = []
  /** `batch()` nesting, and whether a change happened inside it. */
  private readonly hold = { depth: 0, changed: false }
  /** Result observers (`onResult`), oldest first. */
  private readonly observers = new Set<{ readonly observe: ResultObserver }>()

  /** Which deferrable tools wait behind `tool_search`, and what each session loaded. */
  private readonly deferral: Deferral
  private readonly searchIndex = new ToolIndex()
  /**
   * `tool_search` itself: not in `entries`, listed and callable while something is deferred. Compiled
   * (its input schema built and rendered) when first listed or called: most hosts never defer.
   */
  private readonly search: Lazy<Entry>

  constructor(ctx: Context, config: ToolsConfig) {
    super(ctx, 'tools', true)
    this.settings = config
    // A read of a member of `ctx.tools` (`execute` per call) builds nothing; `register` still takes its caller's scope (docs/architecture.md, "Helpers").
    answerAsProperty(ctx, 'tools', this)
    const entries = this.entries
    this.deferral = new Deferral(
      config.defer,
      function* (): Iterable<DeferrableTool> {
        for (const { catalog, defer, chars } of entries.values()) yield { entry: catalog, defer, chars }
      },
      () => this.notify(),
    )
    const all = function* (): Iterable<CatalogEntry> {
      for (const entry of entries.values()) yield entry.catalog
    }
    this.search = lazy(() => compileEntry(toolSearchDefinition({ all, deferral: this.deferral }, this.searchIndex)))
    // Where sessions exist, a loaded tool that vanished is told to that session's model once.
    ctx.inject(['sessions'], (inner) => {
      inner.sessions.use(vanishedToolsNote(this.deferral, (name) => entries.has(name)))
    })
  }

  /** Adds a tool; an effect on the caller's scope, so unloading the caller removes it. */
  register<A, V extends JsonValue>(definition: ToolDefinition<A, V>): () => void {
    return this.registerAll([definition as ToolDefinition])
  }

  /**
   * Adds several tools at once, all or none: a taken name (or one listed twice) registers nothing
   * and throws DUPLICATE_TOOL. One effect on the caller's scope and one `tools/change` for the whole
   * set, so a surface that publishes thousands of tools (an MCP server) pays for one registration.
   */
  registerAll(definitions: readonly ToolDefinition[]): () => void {
    // `this` is cordis's tracing proxy here: every member access costs. Take the table once.
    const table = this.entries
    const entries = definitions.map((definition) => compileEntry(definition))
    return this.ctx.effect(() => {
      const names = new Set<string>()
      for (const { definition } of entries) {
        if (definition.name === TOOL_SEARCH) throw new ToolError(`the tool name "${TOOL_SEARCH}" is the runtime's own (deferred tools)`, 'DUPLICATE_TOOL')
        if (table.has(definition.name) || names.has(definition.name)) {
          throw new ToolError(`a tool named "${definition.name}" is already registered`, 'DUPLICATE_TOOL')
        }
        names.add(definition.name)
      }
      for (const entry of entries) table.set(entry.definition.name, entry)
      if (entries.length) this.changed()
      return () => {
        let removed = false
        for (const entry of entries) {
          if (table.get(entry.definition.name) !== entry) continue
          table.delete(entry.definition.name)
          removed = true
        }
        if (removed) this.changed()
      }
    })
  }

  /**
   * Runs `change` (registrations and disposals) with `tools/change` held back, then emits it once
   * if anything changed: a surface replacing part of its tools announces one change, and no
   * listener sees the catalog half replaced. Synchronous; nests.
   */
  batch<T>(change: () => T): T {
    const hold = this.hold
    hold.depth++
    try {
      return change()
    } finally {
      if (--hold.depth === 0 && hold.changed) {
        hold.changed = false
        this.changed()
      }
    }
  }

  /**
   * Claims the names starting with `prefix` for unknown-tool answers: a call to such a name that no
   * tool has gets the error `explain(name)` returns (coded, e.g. "the server is unavailable")
   * instead of `UNKNOWN_TOOL`; `undefined` keeps `UNKNOWN_TOOL`. For a surface whose tools come
   * and go with something outside (an MCP server). An effect on the caller's scope.
   */
  namespace(prefix: string, explain: (name: string) => Error | undefined): () => void {
    if (!prefix) throw new ToolError('a namespace prefix must be non-empty', 'INVALID_TOOL')
    const namespaces = this.namespaces
    return this.ctx.effect(() => {
      const claim = { prefix, explain }
      namespaces.push(claim)
      return () => {
        const at = namespaces.indexOf(claim)
        if (at >= 0) namespaces.splice(at, 1)
      }
    })
  }

  get(name: string): ToolDefinition | undefined {
    return this.lookup(name)?.definition
  }

  /** Whether `name` is withheld from catalogs until `tool_search` loads it (a bridge words its instructions by it). */
  isDeferred(name: string): boolean {
    return this.deferral.isDeferred(name)
  }

  /** The entry of a name: a registered tool, or `tool_search` while anything is deferred. */
  private lookup(name: string): Entry | undefined {
    return this.entries.get(name) ?? (name === TOOL_SEARCH && this.deferral.active ? this.search() : undefined)
  }

  /**
   * The JSON Schema a host relaying calls publishes for the tool's value (MCP's `outputSchema`, with
   * the value as `structuredContent`): the output side of its `output`, when it declares one that
   * describes an object and has not set `structuredOutput: false`. Undefined otherwise.
   */
  outputSchema(name: string): JsonObject | undefined {
    return this.lookup(name)?.outputSchema()
  }

  /**
   * What the model is told about the tools: sorted by name so the prefix is stable across load
   * orders. While deferrable tools pass the `defer` budget they are left out and `tool_search` is
   * listed after the others; a session's catalog then ends with what its searches loaded, in load
   * order. `all` lists every registered tool instead.
   */
  catalog(options: CatalogOptions = {}): CatalogEntry[] {
    if (options.all) return [...this.entries.values()].map((entry) => entry.catalog).sort(byName)
    return this.deferral.catalog(options.session, () => this.search().catalog)
  }

  /**
   * Installs the approver that answers for `approval: 'prompt'` tools; an effect on the caller's
   * scope. With several live approvers the most recently registered one answers; disposing it
   * hands the job back to the one before.
   */
  approver(answer: Approver): () => void {
    if (typeof answer !== 'function') throw new ToolError('an approver must be a function', 'INVALID_TOOL')
    return this.installLatest(this.approvers, answer)
  }

  /** Puts `answer` last in `slots` (the last one answers) as an effect on the caller's scope; disposing takes it out. */
  private installLatest<T>(slots: { readonly answer: T }[], answer: T): () => void {
    return this.ctx.effect(() => {
      const slot = { answer }
      slots.push(slot)
      return () => {
        const at = slots.lastIndexOf(slot)
        if (at >= 0) slots.splice(at, 1)
      }
    })
  }

  /**
   * Installs the questioner that answers servers' questions to the user (`ask`); an effect on the
   * caller's scope. The most recently registered live one answers, as with approvers.
   */
  questioner(answer: Questioner): () => void {
    if (typeof answer !== 'function') throw new ToolError('a questioner must be a function', 'INVALID_TOOL')
    return this.installLatest(this.questioners, answer)
  }

  /**
   * Asks the user a server's question through the live questioner. `answered: false` when nobody
   * can answer (no questioner: a non-interactive host), the questioner failed or answered
   * something malformed: the caller declines then, and says why. Never waits past the question's signal.
   */
  async ask(question: UserQuestion): Promise<{ readonly answered: true; readonly answer: UserAnswer } | { readonly answered: false; readonly why: string }> {
    const questioner = this.questioners.at(-1)?.answer
    if (!questioner) return { answered: false, why: 'nobody can answer here (a harness registers ctx.tools.questioner; `dsh call --yes` accepts a form with its defaults)' }
    let answer: unknown
    try {
      answer = await Lifetime.run({ signal: question.signal }, async (waiting) => questioner({ ...question, signal: waiting.signal }))
    } catch (error) {
      return { answered: false, why: question.signal.aborted ? 'the call ended while the question waited' : `the questioner failed (${errorMessage(error)})` }
    }
    if (!isUserAnswer(answer)) return { answered: false, why: 'the questioner answered something other than { action: accept | decline | cancel }' }
    return { answered: true, answer }
  }

  /** Adds a system-prompt guidance section; an effect on the caller's scope. */
  section(section: PromptSection): () => void {
    if (!section.name) throw new ToolError('prompt section name must be non-empty', 'INVALID_TOOL')
    if (!Number.isFinite(section.order)) throw new ToolError(`prompt section "${section.name}": order must be finite`, 'INVALID_TOOL')
    const frozen = Object.freeze({ ...section })
    return this.ctx.effect(() => {
      if (this.guidance.has(frozen.name)) throw new ToolError(`prompt section "${frozen.name}" is already registered`, 'DUPLICATE_TOOL')
      this.guidance.set(frozen.name, frozen)
      return () => {
        if (this.guidance.get(frozen.name) === frozen) this.guidance.delete(frozen.name)
      }
    })
  }

  sections(): PromptSection[] {
    const deferred = this.deferral.section()
    return [...this.guidance.values(), ...(deferred ? [deferred] : [])].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : 1))
  }

  /**
   * The tool's UI card for a call (its `presentCall`), for harness UIs; opaque JSON. `undefined`
   * when the tool is unknown or has no presenter, the arguments are invalid, or the presenter fails
   * (logged).
   */
  presentCall(name: string, args: unknown): JsonValue | undefined {
    return this.present(name, args, 'presentCall', (definition, parsed) => definition.presentCall?.(parsed))
  }

  /** The tool's UI card for a finished call (its `presentResult`); `undefined` as for `presentCall`. */
  presentResult(name: string, args: unknown, result: ToolResult): JsonValue | undefined {
    return this.present(name, args, 'presentResult', (definition, parsed) => definition.presentResult?.(parsed, result))
  }

  /**
   * Runs one call exactly as the model made it. Never throws: every failure is an error result with
   * a code. It does not use its receiver, so a caller may take it once (`const { execute } =
   * ctx.tools`) and call it bare, or read it per call: a read through the tracked `ctx.tools` builds
   * nothing (`answerAsProperty`, docs/architecture.md, "Helpers"). A call registers nothing on the
   * caller's scope, which is all the tracking carries.
   */
  readonly execute = (call: ToolCall): Promise<ToolResult> => this.run(call)

  /**
   * One call, start to result. The checks before the body are synchronous (an approval awaits its
   * approver); the body is taken up by one `then` inside the one promise the call answers with
   * (`dispatch`), and the result is made where the body settles: each further async step would be
   * another promise and microtask turn on every call (the runtime's own share of a quick call's
   * work). What can fail becomes an error result with a code; nothing here rejects.
   */
  private run(call: ToolCall): Promise<ToolResult> {
    const startedAt = performance.now()
    const callId = new CallId(call.callId)
    try {
      const args = toFrozenJson(call.arguments, this.settings.maxArgumentDepth)
      if (!args.ok) throw new ToolError(`arguments are not JSON: ${args.problem}`, 'INVALID_ARGS')
      if (call.signal?.aborted) throw new ToolError('the call was aborted before it was dispatched', 'ABORTED_BEFORE_DISPATCH')
      const entry = this.lookup(call.name)
      if (!entry) throw this.unknown(call.name)
      const parsed = entry.parse(args.value)
      if (!parsed.ok) throw new ToolError(`invalid arguments for ${call.name}: ${parsed.problem}`, 'INVALID_ARGS')
      const started = { call, callId, startedAt, entry, args: parsed.value }
      if (entry.approval === 'auto') return this.dispatch(started)
      return approve(entry.approval, this.approvers.at(-1)?.answer, { call, callId: callId.value, definition: entry.definition, args: args.value }).then(
        () => this.dispatchChecked(started),
        (error: unknown) => this.finished(started, undefined, toolFailure(error)),
      )
    } catch (error) {
      return Promise.resolve(this.finished({ call, callId, startedAt, entry: undefined, args: undefined }, undefined, toolFailure(error)))
    }
  }

  /** `dispatch` where a throw is not caught by `run` (after an approval). */
  private dispatchChecked(started: CallStart & { readonly entry: Entry }): Promise<ToolResult> | ToolResult {
    try {
      return this.dispatch(started)
    } catch (error) {
      return this.finished(started, undefined, toolFailure(error))
    }
  }

  /**
   * Runs the body under the call's budget and answers its result. One promise of the runtime's own
   * per call (and the body's `then`); once the budget aborts, waits at most `abandonAfterMs` more.
   * The abort is learnt from the budget itself rather than through an event listener: this is on
   * every call's path.
   */
  private dispatch(started: CallStart & { readonly entry: Entry }): Promise<ToolResult> {
    const { call, callId, entry, args } = started
    const definition = entry.definition
    const name = definition.name
    const budget = Lifetime.following(call.signal, { timeoutMs: definition.timeoutMs, code: ToolErrorCode.TOOL_TIMEOUT })
    const progress = progressReporter(call.onProgress, (error) => this.ctx.logger('tools').warn(`${name}: a progress listener failed: ${errorMessage(error)}`))
    const body = definition as LooseDefinition
    const running = new CallExecution(callId, name, budget, call.session, progress.report)
    const session = definition.ambientSession === false ? undefined : call.session
    return new Promise<ToolResult>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      let settled = false
      const done = (outcome: Outcome) => {
        if (settled) return
        settled = true
        if (timer) clearTimeout(timer)
        progress.close()
        budget.dispose()
        resolve(this.finished(started, running, this.resultOf(started, budget, outcome)))
      }
      let answer: unknown
      try {
        answer = runInSession(session, () => body.execute(args, running))
      } catch (error) {
        done({ kind: 'rejected', error })
        return
      }
      Promise.resolve(answer).then(
        (value) => done({ kind: 'fulfilled', value }),
        (error: unknown) => done({ kind: 'rejected', error }),
      )
      budget.onAbort(() => {
        if (settled) return
        timer = setTimeout(() => {
          this.ctx.logger('tools').warn(`${name} ignored its abort signal for ${this.settings.abandonAfterMs} ms; answering without it`)
          done({ kind: 'abandoned' })
        }, this.settings.abandonAfterMs)
      })
    })
  }

  /** The result of a body that settled (or was abandoned): its value checked and rendered, or the coded error. */
  private resultOf(started: CallStart & { readonly entry: Entry }, budget: Lifetime, outcome: Outcome): ToolResult {
    const { call, entry } = started
    try {
      if (budget.expired) throw timedOut(entry.definition.timeoutMs, outcome)
      if (call.signal?.aborted) throw new ToolError('the call was aborted', 'ABORTED', { cause: call.signal.reason })
      if (outcome.kind === 'rejected') throw outcome.error
      if (outcome.kind === 'abandoned') throw new ToolError('the call was aborted', 'ABORTED')
      return this.success(entry, started.args, outcome.value)
    } catch (error) {
      return toolFailure(error)
    }
  }

  /** The call's final result: the definition's `finalizeContent` applied once its body ran, and the observers told. */
  private finished(started: CallStart, exec: ToolExecution | undefined, result: ToolResult): ToolResult {
    const { call, callId, entry } = started
    const definition = entry?.definition
    if (exec && definition?.finalizeContent) result = this.finalize(definition, exec, result)
    // Nobody listening (most harnesses): no event, and no id drawn for it.
    if (this.observers.size) this.announce({ callId: callId.value, name: call.name, session: call.session, result, durationMs: performance.now() - started.startedAt })
    return result
  }

  /** The error for a call to a name no tool has: its namespace owner's explanation, else UNKNOWN_TOOL. */
  private unknown(name: string): Error {
    const unknown = new ToolError(`no tool named ${quote(name)}`, 'UNKNOWN_TOOL')
    const claim = this.namespaces.filter((entry) => name.startsWith(entry.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0]
    if (!claim) return unknown
    try {
      return claim.explain(name) ?? unknown
    } catch (error) {
      this.ctx.logger('tools').warn(`the namespace ${claim.prefix} failed to explain ${quote(name)}: ${errorMessage(error)}`)
      return unknown
    }
  }

  private success(entry: Entry, args: unknown, raw: unknown): ToolResult {
    const definition = entry.definition as ToolDefinition & LooseDefinition
    // One walk: the copy (the body keeps no handle on the value it answered) is frozen as it is made.
    const json = toFrozenJson(raw)
    if (!json.ok) throw new ToolError(`${definition.name} returned a value that is not JSON: ${json.problem}`, 'INVALID_TOOL_OUTPUT')
    const value = json.value
    if (entry.checkOutput) {
      const checked = entry.checkOutput.safeParse(value)
      if (!checked.success) throw new ToolError(`${definition.name} returned an invalid value: ${describeIssues(checked.error)}`, 'INVALID_TOOL_OUTPUT')
    }
    let content: readonly ContentBlock[]
    try {
      const rendered = definition.render ? definition.render(args, value) : JSON.stringify(value, null, 2)
      content = typeof rendered === 'string' ? [{ type: 'text', text: rendered }] : rendered
    } catch (error) {
      throw new ToolError(`${definition.name} could not render its result: ${errorMessage(error)}`, 'INVALID_TOOL_OUTPUT', { cause: error })
    }
    if (!definition.meta) return { isError: false, value, content }
    const meta = this.opaque(definition.name, 'meta', () => definition.meta?.(args, value))
    return meta === undefined ? { isError: false, value, content } : { isError: false, value, content, meta }
  }

  private present(name: string, args: unknown, presenter: Presenter, run: (definition: LooseDefinition, args: unknown) => unknown): JsonValue | undefined {
    const entry = this.lookup(name)
    if (!entry?.definition[presenter]) return undefined
    // The presenter sees the arguments the body would: checked and parsed. Invalid ones have no card.
    const json = toFrozenJson(args, this.settings.maxArgumentDepth)
    if (!json.ok) return undefined
    const parsed = entry.parse(json.value)
    if (!parsed.ok) return undefined
    return this.opaque(name, presenter, () => run(entry.definition as ToolDefinition & LooseDefinition, parsed.value))
  }

  /** Runs an optional hook whose answer is opaque JSON; a throw or a non-JSON answer is logged and becomes `undefined`. */
  private opaque(name: string, hook: 'meta' | Presenter, run: () => unknown): JsonValue | undefined {
    let answer: unknown
    try {
      answer = run()
    } catch (error) {
      this.ctx.logger('tools').warn(`${name}: ${hook} failed and was ignored: ${errorMessage(error)}`)
      return undefined
    }
    if (answer === undefined) return undefined
    const json = toFrozenJson(answer)
    if (!json.ok) {
      this.ctx.logger('tools').warn(`${name}: ${hook} returned something that is not JSON (${json.problem}); ignored`)
      return undefined
    }
    return json.value
  }

  /** Applies the definition's `finalizeContent`; its failure or a malformed answer keeps the result as it was. */
  private finalize(definition: ToolDefinition, exec: ToolExecution, result: ToolResult): ToolResult {
    let blocks: unknown
    try {
      blocks = definition.finalizeContent?.(exec, result)
    } catch (error) {
      this.ctx.logger('tools').warn(`${definition.name}: finalizeContent failed and was ignored: ${errorMessage(error)}`)
      return result
    }
    if (blocks === undefined) return result
    if (!isContent(blocks)) {
      this.ctx.logger('tools').warn(`${definition.name}: finalizeContent returned something other than a list of text blocks; ignored`)
      return result
    }
    return { ...result, content: Object.freeze(blocks.map((block) => Object.freeze({ type: 'text' as const, text: block.text }))) }
  }

  /**
   * Hears every call's final result (`ToolResultEvent`), for logs, replay and UIs; an effect on the
   * caller's scope. Observers cannot change a result, and one that throws is logged without keeping
   * the others from hearing. Our own list rather than a cordis event: an emit through cordis costs
   * ~40 µs per call even with nobody listening, and asking cordis whether anyone does takes its
   * private members.
   */
  onResult(observe: ResultObserver): () => void {
    if (typeof observe !== 'function') throw new ToolError('a result observer must be a function', 'INVALID_TOOL')
    const observers = this.observers
    return this.ctx.effect(() => {
      const slot = { observe }
      observers.add(slot)
      return () => {
        observers.delete(slot)
      }
    })
  }

  private announce(event: ToolResultEvent): void {
    for (const { observe } of this.observers) {
      try {
        observe(event)
      } catch (error) {
        this.ctx.logger('tools').warn(`a result observer failed: ${errorMessage(error)}`)
      }
    }
  }

  private changed(): void {
    this.deferral.invalidate()
    this.searchIndex.invalidate()
    const hold = this.hold
    if (hold.depth > 0) {
      hold.changed = true
      return
    }
    this.notify()
  }

  /** Emits `tools/change`: the registry changed, or a session's catalog grew (a search loaded tools). */
  private notify(): void {
    try {
      this.ctx.emit('tools/change')
    } catch (error) {
      this.ctx.logger('tools').warn(`a tools/change listener failed: ${errorMessage(error)}`)
    }
  }
}

/** Checks a definition and prepares its argument parser; throws INVALID_TOOL. */
function compileEntry(definition: ToolDefinition): Entry {
  const name: unknown = definition?.name
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new ToolError(`tool name ${JSON.stringify(name)} must match ${TOOL_NAME.source}`, 'INVALID_TOOL')
  }
  if (typeof definition.description !== 'string' || !definition.description.trim()) {
    throw new ToolError(`tool "${name}": description must be non-empty`, 'INVALID_TOOL')
  }
  if (typeof definition.execute !== 'function') throw new ToolError(`tool "${name}": execute must be a function`, 'INVALID_TOOL')
  const { timeoutMs } = definition
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMER_DELAY_MS)) {
    throw new ToolError(`tool "${name}": timeoutMs must be a positive integer no greater than ${MAX_TIMER_DELAY_MS}`, 'INVALID_TOOL')
  }
  const defer = definition.defer ?? 'never'
  if (!DEFER_MODES.has(defer)) throw new ToolError(`tool "${name}": defer must be one of ${[...DEFER_MODES].join(', ')}`, 'INVALID_TOOL')
  const approval = approvalModeOf(definition)
  // Only a host relaying calls publishes it (dsh serve); a catalog never shows it.
  const { output } = definition
  const outputSchema = output && definition.structuredOutput !== false ? lazy(() => deepFreeze(outputJsonSchema(output))) : () => undefined
  if (definition.checkOutput !== undefined && typeof definition.checkOutput !== 'boolean') throw new ToolError(`tool "${name}": checkOutput must be a boolean when given`, 'INVALID_TOOL')
  if (definition.ambientSession !== undefined && typeof definition.ambientSession !== 'boolean') throw new ToolError(`tool "${name}": ambientSession must be a boolean when given`, 'INVALID_TOOL')
  const checkOutput = definition.checkOutput === false ? undefined : output
  const listed = (parameters: JsonObject) => {
    const catalog: CatalogEntry = Object.freeze({ name, description: definition.description, parameters })
    return { definition, approval, defer, outputSchema, checkOutput, catalog, chars: name.length + definition.description.length + JSON.stringify(parameters).length }
  }
  if (definition.input) {
    const schema = definition.input
    const { quickArgs } = definition
    if (quickArgs !== undefined && typeof quickArgs !== 'function') throw new ToolError(`tool "${name}": quickArgs must be a function when given`, 'INVALID_TOOL')
    return {
      ...listed(deepFreeze(inputJsonSchema(name, schema))),
      parse: (args) => {
        const quick = quickArgs?.(args)
        if (quick !== undefined) return { ok: true, value: quick }
        const result = schema.safeParse(args)
        return result.success ? { ok: true, value: result.data } : { ok: false, problem: describeIssues(result.error) }
      },
    }
  }
  const parameters = toJson(definition.parameters)
  if (!parameters.ok || !isRecord(parameters.value)) {
    throw new ToolError(`tool "${name}": parameters must be a JSON Schema object`, 'INVALID_TOOL')
  }
  return {
    ...listed(deepFreeze(parameters.value)),
    parse: (args) => (isRecord(args) ? { ok: true, value: args } : { ok: false, problem: '(arguments): expected a JSON object' }),
  }
}

const DEFER_MODES: ReadonlySet<string> = new Set<DeferMode>(['never', 'auto', 'always'])

/**
 * A call's id: the caller's, else a random UUID drawn when something first asks (the body, an
 * approver, a result observer). Most calls are asked by nobody, and each draw costs.
 */
class CallId {
  private drawn: string | undefined

  constructor(private readonly given: string | undefined) {}

  get value(): string {
    return this.given ?? (this.drawn ??= process.getBuiltinModule('node:crypto').randomUUID())
  }
}

/**
 * The `exec` a body gets. Its `signal` is made when the body first reads it: a body that never does
 * (most quick ones) costs no AbortController, the largest single part of the runtime's per-call cost.
 * Its `callId` is likewise drawn on first read (`CallId`).
 */
class CallExecution implements ToolExecution {
  constructor(
    private readonly id: CallId,
    readonly name: string,
    readonly lifetime: Lifetime,
    readonly session: Session | undefined,
    readonly progress: (update: ToolProgress) => void,
  ) {}

  get callId(): string {
    return this.id.value
  }

  get signal(): AbortSignal {
    return this.lifetime.signal
  }
}

/**
 * The error of a call whose budget ran out: the body's own `ToolError` coded `TOOL_TIMEOUT` when it
 * rejected with one (it says what the call was waiting for and what to do, as tool-lsp's does for a
 * server still searching), else the runtime's. The budget's reason itself (a `TimeoutReason` with
 * the same code, which most bodies rethrow as it is) is not such an error.
 */
function timedOut(timeoutMs: number | undefined, outcome: Outcome): Error {
  if (outcome.kind === 'rejected' && outcome.error instanceof ToolError && outcome.error.code === ToolErrorCode.TOOL_TIMEOUT) return outcome.error
  return new ToolError(`tool call timed out after ${timeoutMs} ms`, 'TOOL_TIMEOUT')
}

function isContent(value: unknown): value is readonly ContentBlock[] {
  return Array.isArray(value) && value.every((block: unknown) => typeof block === 'object' && block !== null && (block as ContentBlock).type === 'text' && typeof (block as ContentBlock).text === 'string')
}

type Outcome = { kind: 'fulfilled'; value: unknown } | { kind: 'rejected'; error: unknown } | { kind: 'abandoned' }

/** A call past its checks (or stopped by them: no entry, no arguments), as its result is made. */
interface CallStart {
  readonly call: ToolCall
  readonly callId: CallId
  readonly startedAt: number
  readonly entry: Entry | undefined
  /** The parsed arguments the body gets. */
  readonly args: unknown
}


/** An error as a call's result: a harness error keeps its code, anything else is TOOL_FAILED. */
export function toolFailure(error: unknown): ToolResult {
  const message = errorMessage(error)
  const info = isHarnessError(error)
    ? { message, code: error.code, name: error.name }
    : { message, code: ToolErrorCode.TOOL_FAILED, ...(error instanceof Error ? { name: error.name } : {}) }
  return { isError: true, content: [{ type: 'text', text: `Error: ${message}` }], error: info }
}

function isUserAnswer(value: unknown): value is UserAnswer {
  if (!isRecord(value)) return false
  if (value.action === 'decline' || value.action === 'cancel') return true
  return value.action === 'accept' && (value.content === undefined || isRecord(value.content))
}
