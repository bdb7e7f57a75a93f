import { HarnessError } from '../errors.ts'
import { deepFreeze, toJson, type JsonObject, type JsonValue } from '../json.ts'
import type { ContentBlock } from '../tools/types.ts'

export interface SessionEvent {
  /** Counts from 0, one per append; keeps counting when old events are dropped (`maxEvents`). */
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
  return deepFreeze({ id: process.getBuiltinModule('node:crypto').randomUUID(), role: 'user' as const, source, content: [...blocks] })
}

/**
 * One conversation: the workspace its tool calls run in and an append-only log of JSON facts. The log
 * keeps the newest `maxEvents` events (a long-lived session, such as `dsh serve`'s, would otherwise
 * grow with every call); seqs keep counting, and a dropped event is no longer `visible`.
 */
export class Session {
  readonly id: string
  /** Absolute path of the session's workspace. */
  readonly cwd: string
  /** The kept events are `log[head…]`; the dropped front is cut off in batches, so appending stays O(1) amortized. */
  private log: SessionEvent[] = []
  private head = 0
  /** The seq the next event gets. */
  private nextSeq = 0
  /** The frozen copy `events` last handed out, and the seq it ended before; rebuilt only when the log changed. */
  private snapshot: readonly SessionEvent[] = Object.freeze([])
  private snapshotEnd = 0
  private closed = false
  /** Inclusive seq ranges a later event replaced (compaction); their events no longer reach the model. */
  private replaced: { readonly start: number; readonly end: number }[] = []

  constructor(
    id: string,
    cwd: string,
    private readonly onAppend: (session: Session, event: SessionEvent) => void,
    private readonly maxEvents = Number.POSITIVE_INFINITY,
  ) {
    this.id = id
    this.cwd = cwd
  }

  /** The kept events, oldest first, as a frozen snapshot; later appends do not change it. */
  get events(): readonly SessionEvent[] {
    if (this.snapshotEnd !== this.nextSeq) {
      this.snapshot = Object.freeze(this.log.slice(this.head))
      this.snapshotEnd = this.nextSeq
    }
    return this.snapshot
  }

  /** The seq of the oldest event still kept. */
  private get firstSeq(): number {
    return this.nextSeq - (this.log.length - this.head)
  }

  /** True once the session was ended (explicitly or by eviction): its log is gone and appends are refused. */
  get ended(): boolean {
    return this.closed
  }

  /** Frees the log; called by `ctx.sessions.end`. */
  close(): void {
    this.closed = true
    this.log = []
    this.head = 0
    this.replaced = []
    this.snapshot = Object.freeze([])
    this.snapshotEnd = this.nextSeq
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
    if (replaces && !(Number.isInteger(replaces.start) && Number.isInteger(replaces.end) && this.firstSeq <= replaces.start && replaces.start <= replaces.end && replaces.end < this.nextSeq)) {
      throw new HarnessError(`session event "${type}": replaces must be a range of logged seqs (got ${JSON.stringify(replaces)})`, 'SESSION_INVALID_EVENT')
    }
    const event = deepFreeze({ seq: this.nextSeq++, time: Date.now(), type, data: json.value })
    if (replaces) this.replaced.push({ start: replaces.start, end: replaces.end })
    this.log.push(event)
    if (this.log.length - this.head > this.maxEvents) this.dropOldest()
    this.onAppend(this, event)
    return event
  }

  private dropOldest(): void {
    this.head++
    // Cut the dropped front off once it is as long as what is kept: each event is copied O(1) times.
    if (this.head >= this.maxEvents) {
      this.log = this.log.slice(this.head)
      this.head = 0
    }
    const first = this.firstSeq
    if (this.replaced.length && this.replaced[0]!.end < first) this.replaced = this.replaced.filter((range) => range.end >= first)
  }

  /** Whether the event `seq` is logged and still visible to the model (no later event replaced it). */
  visible(seq: number): boolean {
    if (!Number.isInteger(seq) || seq < this.firstSeq || seq >= this.nextSeq) return false
    return !this.replaced.some((range) => range.start <= seq && seq <= range.end)
  }
}
