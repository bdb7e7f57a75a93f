import { fileURLToPath } from 'node:url'
import { isRecord } from 'dsh-core'

/** One `textDocument/publishDiagnostics` as it arrived. */
interface Publication {
  /** Arrival order across the whole connection. */
  readonly seq: number
  readonly at: number
  readonly version: number | undefined
  readonly diagnostics: unknown
}

export interface AwaitOptions {
  /** The version the document was opened with. */
  readonly version: number
  /** When the server could start working on the open (it was opened, and the server was quiet). */
  readonly since: number
  /** How long an unversioned publication must stay the newest before it counts as the answer, at least. */
  readonly settleMs: number
  /** Aborts the wait: the answer so far is returned as unsettled. */
  readonly signal: AbortSignal
}

/** The diagnostics the server published for the document, and whether they are its settled answer. */
export interface Awaited {
  readonly diagnostics: unknown
  readonly settled: boolean
}

/**
 * The server's `publishDiagnostics`, routed to whoever watches the document. A watcher is made
 * before the document is opened, so nothing published in answer to the open can be missed.
 *
 * Which publication answers an open: one carrying the version we opened with is final (pyright
 * sends versions). One without a version (typescript-language-server) counts only once the
 * barrier has passed — a request sent after the open whose reply arrives after everything the
 * server sent before reading the open, such as the empty list it publishes when the same file
 * was closed a moment earlier — and only when no newer one followed for a while, since such
 * servers publish syntax and semantic diagnostics one after the other: for `settleMs`, or half as
 * long as the server took to publish first after the open (once quiet) if that is longer (a server slowed down
 * by a busy machine leaves longer gaps too). Once a server has sent a version, its unversioned
 * publications (those of closed files) are ignored.
 */
export class PublishedDiagnostics {
  private seq = 0
  private readonly watches = new Map<string, Set<DiagnosticsWatch>>()
  /** The server has sent a version with its diagnostics at least once. */
  versioned = false

  /** Takes one `publishDiagnostics` notification; a malformed one is dropped (no request is waiting on it by id). */
  record(params: unknown): void {
    if (!isRecord(params) || typeof params.uri !== 'string') return
    const version = typeof params.version === 'number' && Number.isInteger(params.version) ? params.version : undefined
    if (version !== undefined) this.versioned = true
    const watches = this.watches.get(documentKey(params.uri))
    if (!watches) return
    const publication: Publication = { seq: ++this.seq, at: Date.now(), version, diagnostics: params.diagnostics }
    for (const watch of watches) watch.receive(publication)
  }

  /** Starts collecting what the server publishes for `uri`; dispose the watch when done. */
  watch(uri: string): DiagnosticsWatch {
    const key = documentKey(uri)
    let watches = this.watches.get(key)
    if (!watches) this.watches.set(key, (watches = new Set()))
    const set = watches
    const watch = new DiagnosticsWatch(this, () => {
      set.delete(watch)
      if (!set.size && this.watches.get(key) === set) this.watches.delete(key)
    })
    set.add(watch)
    return watch
  }

  /** The arrival count so far: a barrier's reply marks where it was. */
  get mark(): number {
    return this.seq
  }
}

export class DiagnosticsWatch {
  private readonly received: Publication[] = []
  private barrierMark: number | undefined
  private wake: (() => void) | undefined

  constructor(
    private readonly inbox: PublishedDiagnostics,
    readonly dispose: () => void,
  ) {}

  receive(publication: Publication): void {
    this.received.push(publication)
    // Only the newest unversioned and any versioned publication can ever answer; keep memory flat.
    if (this.received.length > 16) this.received.splice(0, this.received.length - 16)
    this.wake?.()
  }

  /** The barrier request settled: unversioned publications arriving from now on may answer. */
  barrierPassed(): void {
    this.barrierMark ??= this.inbox.mark
    this.wake?.()
  }

  /** Waits for the answer to the open of `version`; an aborted wait returns the newest candidate, unsettled. */
  async settle(options: AwaitOptions): Promise<Awaited> {
    const { version, since, settleMs, signal } = options
    let first: Publication | undefined
    for (;;) {
      const exact = this.find((publication) => publication.version === version, 'newest')
      if (exact) return { diagnostics: exact.diagnostics, settled: true }
      const loose = (publication: Publication) => !this.inbox.versioned && this.barrierMark !== undefined && publication.version === undefined && publication.seq > this.barrierMark
      first ??= this.find(loose, 'oldest')
      const newest = this.find(loose, 'newest')
      const settleFor = first ? Math.max(settleMs, (first.at - since) / 2) : 0
      const quietFor = newest ? Date.now() - newest.at : 0
      if (newest && quietFor >= settleFor) return { diagnostics: newest.diagnostics, settled: true }
      if (signal.aborted) return { diagnostics: newest?.diagnostics ?? [], settled: false }
      await this.nextEvent(newest ? settleFor - quietFor : undefined, signal)
    }
  }

  private find(match: (publication: Publication) => boolean, which: 'oldest' | 'newest'): Publication | undefined {
    return which === 'oldest' ? this.received.find(match) : this.received.findLast(match)
  }

  /** Resolves on the next publication or barrier, after `ms` (when given), or on abort. */
  private nextEvent(ms: number | undefined, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        if (timer) clearTimeout(timer)
        signal.removeEventListener('abort', done)
        this.wake = undefined
        resolve()
      }
      const timer = ms === undefined ? undefined : setTimeout(done, ms)
      this.wake = done
      signal.addEventListener('abort', done, { once: true })
    })
  }
}

/** The same document however the server spells its URI (percent-encoding, a drive letter's case). */
function documentKey(uri: string): string {
  if (!uri.startsWith('file:')) return uri
  try {
    return fileURLToPath(uri)
  } catch {
    return uri
  }
}
