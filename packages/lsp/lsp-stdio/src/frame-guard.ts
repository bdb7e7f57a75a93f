import type { Readable } from 'node:stream'
import { assertNever } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import { Disposable, type RAL } from 'vscode-jsonrpc/node'

/** Bytes a header block may take, stray lines included (as in the reference framing). */
export const MAX_HEADER_BYTES = 65_536

const TERMINATOR = Buffer.from('\r\n\r\n', 'ascii')
const EMPTY = Buffer.alloc(0)

/**
 * Stands between a server's stdout and vscode-jsonrpc's `ReadableStreamMessageReader`, which has no
 * size limit: it buffers whatever a header announces (a 100 MB answer) or whatever arrives without a
 * header terminator (endless noise) before anything can refuse it. The guard reads each header
 * block (bounded), refuses a `Content-Length` over `maxMessageBytes` before any of the body is
 * read, drops stray lines that are not `name: value` headers (a start-up banner), and passes the
 * body bytes through uncopied, counting them only to know where the next header starts (a chunk of
 * well-formed frames goes out as one slice). Buffering the body, decoding and JSON stay with
 * vscode-jsonrpc, which sees clean frames.
 *
 * It is the reader's stream itself (the library's `RAL.ReadableStream`: `onData`, `onError`,
 * `onClose`, `onEnd`), not a Transform in a pipe: each chunk of stdout is checked and handed to the
 * reader in the call that read it, without a second stream's write, buffer and `data` event.
 *
 * A violation (or an error of stdout) ends the guard with that error: `onError` listeners get it,
 * then `onClose` listeners run (on the next tick, as a destroyed stream's would), and nothing more
 * of stdout is passed on. Stdout's end ends it too (`onEnd`, then `onClose`).
 */
export class FrameGuard implements RAL.ReadableStream {
  /** Header bytes seen since the last frame ended (banner lines and noise included). */
  private header: Buffer = EMPTY
  /** Body bytes of the current frame still to pass through. */
  private bodyLeft = 0
  private reader: ((data: Uint8Array) => void) | undefined
  private readonly listeners = { error: new Set<(error: unknown) => void>(), close: new Set<() => void>(), end: new Set<() => void>() }
  private done = false
  private closed = false

  constructor(
    private readonly source: Readable,
    private readonly serverId: string,
    private readonly maxMessageBytes: number,
  ) {
    source.on('error', (error) => this.destroy(error))
    source.on('end', () => this.finish())
    // Destroyed without an end (its error, or our own destroy after a violation): the output is closed all the same.
    source.on('close', () => this.finish())
  }

  /** The reader's listener; stdout flows from here on. One reader per guard. */
  onData(listener: (data: Uint8Array) => void): Disposable {
    this.reader = listener
    this.source.on('data', this.read)
    return Disposable.create(() => {
      this.source.off('data', this.read)
      if (this.reader === listener) this.reader = undefined
    })
  }

  onError(listener: (error: unknown) => void): Disposable {
    return this.listen(this.listeners.error, listener)
  }

  onClose(listener: () => void): Disposable {
    return this.listen(this.listeners.close, listener)
  }

  onEnd(listener: () => void): Disposable {
    return this.listen(this.listeners.end, listener)
  }

  /** True once the guard ended (a violation, stdout's error or its end): nothing more is passed on. */
  get ended(): boolean {
    return this.done
  }

  /** Ends the guard with `error` (reported to `onError` listeners) or, without one, as an end of output. */
  destroy(error?: unknown): void {
    if (this.done) return
    this.done = true
    process.nextTick(() => {
      if (error !== undefined) for (const listener of [...this.listeners.error]) listener(error)
      this.close()
    })
  }

  /** One chunk of stdout, checked and passed on. */
  private readonly read = (chunk: Buffer): void => {
    if (this.done) return
    try {
      this.pass(chunk)
    } catch (error) {
      this.destroy(error)
    }
  }

  private finish(): void {
    if (this.done) return
    this.done = true
    process.nextTick(() => {
      for (const listener of [...this.listeners.end]) listener()
      this.close()
    })
  }

  private close(): void {
    if (this.closed) return
    this.closed = true
    for (const listener of [...this.listeners.close]) listener()
  }

  private listen<L>(set: Set<L>, listener: L): Disposable {
    set.add(listener)
    return Disposable.create(() => set.delete(listener))
  }

  private pass(chunk: Buffer): void {
    let offset = 0
    // Bytes from here on go out as they came: bodies, and headers already in canonical form.
    let forwardFrom = 0
    while (offset < chunk.length) {
      if (this.bodyLeft > 0) {
        const taken = Math.min(this.bodyLeft, chunk.length - offset)
        this.bodyLeft -= taken
        offset += taken
        continue
      }
      const headerStart = offset
      const carried = this.header.length
      const block = carried ? Buffer.concat([this.header, chunk.subarray(offset)]) : chunk.subarray(offset)
      const end = block.indexOf(TERMINATOR, Math.max(0, carried - TERMINATOR.length + 1))
      if (end < 0) {
        if (block.length > MAX_HEADER_BYTES) throw this.violation(`wrote ${block.length} bytes without a header terminator`)
        // Kept as a copy when it is a slice: only this tail of a possibly large chunk is needed.
        this.header = carried ? block : Buffer.from(block)
        this.forward(chunk, forwardFrom, headerStart)
        return
      }
      if (end > MAX_HEADER_BYTES) throw this.violation(`wrote a header block of ${end} bytes (at most ${MAX_HEADER_BYTES})`)
      offset += end + TERMINATOR.length - carried
      this.header = EMPTY
      const text = block.subarray(0, end).toString('latin1')
      const header = parseHeader(text)
      switch (header.kind) {
        case 'noise':
          this.forward(chunk, forwardFrom, headerStart)
          forwardFrom = offset
          continue
        case 'invalid':
          throw this.violation(header.reason)
        case 'frame':
          break
        default:
          return assertNever(header, 'header kind')
      }
      if (header.length > this.maxMessageBytes) {
        throw new LspError(
          `${this.serverId}: the language server announced a ${header.length}-byte message, over the ${this.maxMessageBytes}-byte limit (maxMessageBytes); it was refused unread`,
          'LSP_MESSAGE_TOO_LARGE',
        )
      }
      // vscode-jsonrpc would refuse a banner line and reads duplicate or padded headers differently
      // from us: unless the header is exactly the canonical one, it gets a header of our making.
      const canonical = `Content-Length: ${header.length}`
      if (carried || text !== canonical) {
        this.forward(chunk, forwardFrom, headerStart)
        this.reader?.(Buffer.from(`${canonical}\r\n\r\n`, 'latin1'))
        forwardFrom = offset
      }
      this.bodyLeft = header.length
    }
    this.forward(chunk, forwardFrom, offset)
  }

  private forward(chunk: Buffer, from: number, to: number): void {
    if (to > from) this.reader?.(chunk.subarray(from, to))
  }

  private violation(what: string): LspError {
    return new LspError(`${this.serverId}: the language server ${what}: that is not LSP framing`, 'LSP_PROTOCOL_ERROR')
  }
}

type Header = { readonly kind: 'frame'; readonly length: number } | { readonly kind: 'noise' } | { readonly kind: 'invalid'; readonly reason: string }

/**
 * One header block, read as the reference reads it: lines without `:` are skipped (a banner
 * printed before the first frame), the first `Content-Length` wins and must be a non-negative
 * integer, other headers are ignored. A block of nothing but such lines is noise between frames.
 */
export function parseHeader(block: string): Header {
  const canonical = canonicalLength(block)
  if (canonical !== undefined) return { kind: 'frame', length: canonical }
  let headers = 0
  let length: string | undefined
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    headers++
    if (length === undefined && line.slice(0, colon).trim().toLowerCase() === 'content-length') length = line.slice(colon + 1).trim()
  }
  if (!headers) return { kind: 'noise' }
  if (length === undefined) return { kind: 'invalid', reason: 'sent a header block without Content-Length' }
  if (!/^\d+$/.test(length)) return { kind: 'invalid', reason: `sent an invalid Content-Length ${JSON.stringify(length.slice(0, 40))}` }
  return { kind: 'frame', length: Number(length) }
}

const CANONICAL_PREFIX = 'Content-Length: '
/** Digits a length may have and still be added up exactly (below 2^53). */
const MAX_EXACT_DIGITS = 15

/**
 * The length of a block that is one `Content-Length: <digits>` line (every frame a well-behaved
 * server sends), read with no split and no regular expression; undefined for anything else, which
 * `parseHeader` then reads line by line. Gives what the line-by-line reading gives for such a block.
 */
function canonicalLength(block: string): number | undefined {
  const digits = block.length - CANONICAL_PREFIX.length
  if (digits < 1 || digits > MAX_EXACT_DIGITS || !block.startsWith(CANONICAL_PREFIX)) return undefined
  let length = 0
  for (let index = CANONICAL_PREFIX.length; index < block.length; index++) {
    const digit = block.charCodeAt(index) - 48
    if (digit < 0 || digit > 9) return undefined
    length = length * 10 + digit
  }
  return length
}
