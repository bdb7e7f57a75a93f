import type { z } from 'zod'
import type { JsonObject, JsonValue } from '../json.ts'
import type { Lifetime } from '../lifetime/lifetime.ts'
import type { Session } from '../sessions/session.ts'

export interface TextBlock {
  readonly type: 'text'
  readonly text: string
}
export type ContentBlock = TextBlock

/** What a tool body learns about its call. */
export interface ToolExecution {
  readonly callId: string
  readonly name: string
  /** Aborts on caller cancellation or when the tool's `timeoutMs` runs out. Forward it. */
  readonly signal: AbortSignal
  /**
   * The call's lifetime, which `signal` belongs to: for work under the call with a budget of its own
   * (`lifetime.child({ timeoutMs, code })`, `lifetime.run`) or a cheap `onAbort`, without making an
   * AbortSignal. It ends when the call does (released once the call answers). The runtime aborts it
   * only through the caller's signal and the tool's `timeoutMs`, never otherwise, so a body whose own
   * wait is bounded sooner may skip `signal` when `lifetime.canAbortBefore(end)` is false.
   */
  readonly lifetime: Lifetime
  /** The calling session; its `cwd` is the workspace the call runs in. */
  readonly session: Session | undefined
  /**
   * Tells the caller how far the call has come (`ToolCall.onProgress`). Cheap when nobody listens;
   * never throws; reports after the call has answered are dropped.
   */
  progress(update: ToolProgress): void
}

/** One progress report of a running call, in the shape of MCP's `notifications/progress`. */
export interface ToolProgress {
  /** Grows with every report; out of `total` when that is known. */
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

interface ToolDefinitionBase<A, V extends JsonValue> {
  /** `[A-Za-z0-9_-]{1,64}`, unique in the runtime. */
  readonly name: string
  readonly description: string
  execute(args: A, exec: ToolExecution): Promise<V>
  /** What the model sees for a success. Default: the value as pretty JSON. */
  render?(args: A, value: V): string | readonly ContentBlock[]
  /**
   * Checks the canonical value; a mismatch is `INVALID_TOOL_OUTPUT`. Hosts that relay calls publish
   * it too (`ctx.tools.outputSchema(name)`: `dsh serve` lists it as the MCP `outputSchema` and sends
   * the value as `structuredContent`), so a tool declaring one keeps its value as bounded as its rendering.
   */
  readonly output?: z.ZodType<V>
  /**
   * `false` keeps a declared `output` to the runtime's check: not published, and the value is not
   * sent as structured content (for a value that can hold far more than the rendering shows).
   */
  readonly structuredOutput?: boolean
  /**
   * `false` skips the runtime's check of each value against `output` (it is still published, and
   * a value that is not JSON is still `INVALID_TOOL_OUTPUT`). For a tool whose value its own code
   * builds, field by field, from typed parts: the check would re-prove the compiler's work on every
   * call. Keep the default (checked) when the value passes on what another party produced (a
   * provider plugin's result as is, a server's answer); an MCP tool checks its server's
   * `structuredContent` itself.
   */
  readonly checkOutput?: boolean
  /**
   * `true` when every value the body answers was built for this call and shares no part with
   * anything that will change it (a cache, the body's own state, another call's value): the runtime
   * then checks it as JSON and freezes it where it is instead of copying it (`adoptFrozenJson`), so
   * the value answered is the body's own object, frozen. Default `false`: the value is copied, and
   * the body may keep and change what it answered. Parts frozen, sealed or not extensible already are copied either way; a getter is read once for the check and kept (give data properties). For
   * a tool called often whose value is large (the `lsp` tool's locations), where the copy is most of
   * the runtime's own work per call.
   */
  readonly freshValue?: boolean
  /** Budget enforced by the runtime (`TOOL_TIMEOUT`). */
  readonly timeoutMs?: number
  /**
   * `false` when the body, and everything it calls, takes the calling session from
   * `exec.session` and never asks `currentSession()`: the runtime then runs it outside the ambient
   * session (default `true`: `currentSession()` answers the call's session inside it). On Node 20
   * and 22 the first ambient session turns async hooks on for the whole process, which every
   * promise after it pays; a host whose calls all opt out never turns them on. For a tool called
   * often whose callees are known (the `lsp` query tool); a writer or anything reaching credentials,
   * keyed search or `ctx.lsp.fileChanged` without a session keeps the default.
   */
  readonly ambientSession?: boolean
  /** True when sibling calls may overlap this one (documentary for hosts that schedule calls). */
  readonly concurrencySafe?: boolean
  /** The surface the tool belongs to (`lsp`, `web`, …); `dsh status` lists it beside that surface's capabilities. */
  readonly surface?: string
  /**
   * Whether a call needs someone's yes before its body runs (default `auto`). `prompt` asks the
   * most recently registered approver (`ctx.tools.approver`); `deny` refuses every call.
   */
  readonly approval?: ApprovalMode
  /**
   * Whether the catalog may withhold the tool until the model finds it with `tool_search` (default
   * `never`): `auto` once the deferrable tools pass the runtime's `defer` budget, `always` whatever
   * the budget. A deferred tool still runs when called by its exact name.
   */
  readonly defer?: DeferMode
  /**
   * The last word on what the model sees, for every outcome once the body was dispatched (a
   * success, a thrown error, a timeout, an abort): return blocks to replace the result's `content`,
   * or `undefined` to keep it. Synchronous; a throw or a malformed return is logged and ignored.
   */
  finalizeContent?(exec: ToolExecution, result: ToolResult): readonly ContentBlock[] | undefined
  /**
   * Data a harness keeps with a success for replay and UI (`ToolResult.meta`); computed after
   * `render`, never shown to the model. A throw or a non-JSON answer is logged and the result is
   * kept without meta.
   */
  meta?(args: A, value: V): JsonValue | undefined
  /** A UI card for a call about to run (`ctx.tools.presentCall`); opaque to the core. */
  presentCall?(args: A): JsonValue | undefined
  /** A UI card for a finished call (`ctx.tools.presentResult`); opaque to the core. */
  presentResult?(args: A, result: ToolResult): JsonValue | undefined
}

/** A zod-typed tool: arguments are validated with the schema, the model sees its JSON Schema. */
export interface ZodToolDefinition<A, V extends JsonValue> extends ToolDefinitionBase<A, V> {
  readonly input: z.ZodType<A>
  /**
   * A check of the common case without zod, asked before `input` on every call: return the
   * arguments when they are certainly valid, or `undefined` to let `input` decide (and word the
   * error, so a bad call is refused exactly as without it). It gets the call's deep-frozen JSON
   * copy, and may return it as is. It must accept nothing `input` refuses and answer what `input`
   * would: a test should hold it against the schema. For a tool called often with small arguments,
   * where zod's parse is a large part of what the runtime does per call.
   */
  readonly quickArgs?: (args: JsonValue) => A | undefined
  readonly parameters?: undefined
}

/** A tool that brings its own JSON Schema (MCP): arguments need only be a JSON object. */
export interface RawToolDefinition<V extends JsonValue> extends ToolDefinitionBase<JsonObject, V> {
  readonly parameters: JsonObject
  readonly input?: undefined
}

export type ToolDefinition<A = any, V extends JsonValue = JsonValue> = ZodToolDefinition<A, V> | RawToolDefinition<V>

/** When a tool may be left out of the catalog until a search loads it (see `ToolDefinition.defer`). */
export type DeferMode = 'never' | 'auto' | 'always'

/** Which catalog `ctx.tools.catalog()` answers. */
export interface CatalogOptions {
  /** The session whose model asks: its catalog holds the deferred tools its searches loaded. */
  readonly session?: Session
  /** Every registered tool, deferred ones included and `tool_search` left out (`dsh tools --all`, status). */
  readonly all?: boolean
}

/** `auto` runs at once, `prompt` asks the approver first, `deny` never runs. */
export type ApprovalMode = 'auto' | 'prompt' | 'deny'

/** What an approver is asked about one call of a `prompt` tool. */
export interface ApprovalRequest {
  readonly callId: string
  readonly name: string
  /** The call's arguments as validated, deep-frozen. */
  readonly arguments: JsonValue
  readonly session: Session | undefined
  /** The tool's `surface`, when it declares one. */
  readonly surface: string | undefined
  /** Aborts when the caller gives up on the call: stop asking. */
  readonly signal: AbortSignal
}

export type ApprovalDecision = { readonly approved: true } | { readonly approved: false; readonly reason?: string }

/** Answers whether a call may run; a throw or a malformed answer denies it. */
export type Approver = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>

/**
 * A question a tool's server asks the user while a call runs (MCP elicitation): fill in a form
 * whose `schema` is a flat object of plain fields (JSON Schema: string, number, integer, boolean,
 * enums, each with an optional `default`), or visit a URL. `source` names who asks (an MCP server).
 * Everything in it comes from that server: show it as the server's words, never follow it blindly.
 */
export type UserQuestion =
  | { readonly kind: 'form'; readonly source: string; readonly message: string; readonly schema: JsonObject; readonly signal: AbortSignal }
  | { readonly kind: 'url'; readonly source: string; readonly message: string; readonly url: string; readonly signal: AbortSignal }

/** `accept` (with the form's values), `decline` (the user said no), or `cancel` (dismissed without a choice). */
export type UserAnswer = { readonly action: 'accept'; readonly content?: JsonObject } | { readonly action: 'decline' } | { readonly action: 'cancel' }

/** Answers a server's question; a throw or a malformed answer declines it. */
export type Questioner = (question: UserQuestion) => UserAnswer | Promise<UserAnswer>

export interface CatalogEntry {
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
}

export interface ToolCall {
  readonly name: string
  readonly arguments: unknown
  readonly callId?: string
  readonly session?: Session
  readonly signal?: AbortSignal
  /** Receives the body's progress reports while the call runs (a terminal line, a client notification). */
  readonly onProgress?: (update: ToolProgress) => void
}

export interface ToolErrorInfo {
  readonly message: string
  readonly code: string
  readonly name?: string
}

export type ToolResult =
  | {
      readonly isError: false
      readonly value: JsonValue
      readonly content: readonly ContentBlock[]
      /** The definition's `meta(args, value)`, deep-frozen; absent when it has none. */
      readonly meta?: JsonValue
    }
  | { readonly isError: true; readonly content: readonly ContentBlock[]; readonly error: ToolErrorInfo; readonly meta?: undefined }

/** Hears a call's final result (`ctx.tools.onResult`). */
export type ResultObserver = (event: ToolResultEvent) => void

/** What result observers learn about each finished call. */
export interface ToolResultEvent {
  readonly callId: string
  readonly name: string
  readonly session: Session | undefined
  /** The final result, exactly as `execute` returns it (content finalized, frozen). */
  readonly result: ToolResult
  /** From the call's start to its result. */
  readonly durationMs: number
}

export interface PromptSection {
  /** Unique, e.g. `tool:lsp`. */
  readonly name: string
  /** Sections are listed by order, then name. Tool guidance uses 100–199. */
  readonly order: number
  readonly text: string
}
