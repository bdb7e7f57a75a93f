import { randomUUID } from 'node:crypto'
import { HarnessError } from '../errors.ts'
import { deepFreeze, toJson, type JsonObject, type JsonValue } from '../json.ts'
import type { ContentBlock } from '../tools/types.ts'

export interface SessionEvent {
  /** Contiguous from 0. */
  readonly seq: number
  readonly time: number
  readonly type: string
  readonly data: JsonValue
}

export interface MessageSource extends JsonObject {
  /** Who produced the message: `user`, `skill-catalog`, … Consumers route on it instead of parsing text. */
  readonly kind: string
}

export interface UserMessage {
  readonly id: string
  readonly role: 'user'
  readonly source: MessageSource
  readonly content: readonly ContentBlock[]
}

export function createUserMessage(content: string | readonly ContentBlock[], source: MessageSource): UserMessage {
  const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content
  return deepFreeze({ id: randomUUID(), role: 'user' as const, source, content: [...blocks] })
}

/** One conversation: the workspace its tool calls run in and an append-only log of JSON facts. */
export class Session {
  readonly id: string
  /** Absolute path of the session's workspace. */
  readonly cwd: string
  private readonly log: SessionEvent[] = []
  /** The frozen copy `events` last handed out; rebuilt only when the log grew since (appends stay O(1)). */
  private snapshot: readonly SessionEvent[] = Object.freeze([])
  private closed = false
  /** Inclusive seq ranges a later event replaced (compaction); their events no longer reach the model. */
  private readonly replaced: { readonly start: number; readonly end: number }[] = []

  constructor(id: string, cwd: string, private readonly onAppend: (session: Session, event: SessionEvent) => void) {
    this.id = id
    this.cwd = cwd
  }

  /** A frozen snapshot; later appends do not change it. */
  get events(): readonly SessionEvent[] {
    if (this.snapshot.length !== this.log.length) this.snapshot = Object.freeze([...this.log])
    return this.snapshot
  }

  /** True once the session was ended (explicitly or by eviction): its log is gone and appends are refused. */
  get ended(): boolean {
    return this.closed
  }

  /** Frees the log; called by `ctx.sessions.end`. */
  close(): void {
    this.closed = true
    this.log.length = 0
    this.replaced.length = 0
    this.snapshot = Object.freeze([])
  }

  /**
   * Appends a fact. With `replaces`, the new event stands in for the earlier events `start..end`
   * (inclusive; compaction): they stay in the log but are no longer visible to the model.
   */
  append(type: string, data: unknown, options: { readonly replaces?: { readonly start: number; readonly end: number } } = {}): SessionEvent {
    if (this.closed) throw new HarnessError(`session "${this.id}" has ended`, 'SESSION_ENDED')
    if (!type) throw new HarnessError('session event type must be a non-empty string', 'SESSION_INVALID_EVENT')
    const json = toJson(data)
    if (!json.ok) throw new HarnessError(`session event "${type}" is not JSON: ${json.problem}`, 'SESSION_INVALID_EVENT')
    const { replaces } = options
    if (replaces && !(Number.isInteger(replaces.start) && Number.isInteger(replaces.end) && 0 <= replaces.start && replaces.start <= replaces.end && replaces.end < this.log.length)) {
      throw new HarnessError(`session event "${type}": replaces must be a range of logged seqs (got ${JSON.stringify(replaces)})`, 'SESSION_INVALID_EVENT')
    }
    const event = deepFreeze({ seq: this.log.length, time: Date.now(), type, data: json.value })
    if (replaces) this.replaced.push({ start: replaces.start, end: replaces.end })
    this.log.push(event)
    this.onAppend(this, event)
    return event
  }

  /** Whether the event `seq` is logged and still visible to the model (no later event replaced it). */
  visible(seq: number): boolean {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.log.length) return false
    return !this.replaced.some((range) => range.start <= seq && seq <= range.end)
  }
}
