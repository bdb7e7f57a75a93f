import { characterCount, characterEnd } from 'dsh-core'
import { ellipsize } from './text-bound.ts'

/** LSP's line terminators. */
const LINE_BREAK = /\r\n|\r|\n/g
const NON_SPACE = /\S/

/** One line as it streams in. */
export interface LineBuffer {
  append(segment: string): void
  text(): string
}

/**
 * Picks chosen zero-based lines out of text that arrives in chunks, so a file is read only as far
 * as the last line wanted. `makeBuffer` decides what is kept of each wanted line: a bounded,
 * trimmed line for display, or the exact text when columns matter.
 */
export class LineCollector {
  private line = 0
  private current: LineBuffer | undefined
  /** The previous chunk ended in `\r`: a `\n` opening this one belongs to the same break. */
  private pendingCarriageReturn = false
  private readonly found = new Map<number, string>()
  private readonly lastWanted: number

  constructor(
    private readonly wanted: ReadonlySet<number>,
    private readonly makeBuffer: () => LineBuffer,
  ) {
    this.lastWanted = Math.max(-1, ...wanted)
    this.current = this.bufferFor(0)
  }

  /** True once every wanted line has gone by: the caller can stop reading. */
  get done(): boolean {
    return this.line > this.lastWanted
  }

  /** Lines begun so far; after `finish()` at the end of the text, the number of lines it has. */
  get lineCount(): number {
    return this.line
  }

  push(chunk: string): void {
    let start = this.pendingCarriageReturn && chunk.startsWith('\n') ? 1 : 0
    this.pendingCarriageReturn = false
    LINE_BREAK.lastIndex = start
    while (!this.done) {
      const match = LINE_BREAK.exec(chunk)
      const end = match ? match.index : chunk.length
      if (this.current && end > start) this.current.append(chunk.slice(start, end))
      if (!match) return
      if (match[0] === '\r' && LINE_BREAK.lastIndex === chunk.length) this.pendingCarriageReturn = true
      this.endLine()
      start = LINE_BREAK.lastIndex
    }
  }

  /** The wanted lines whose line break has been seen, by line number (the one still open is not ended). */
  collected(): ReadonlyMap<number, string> {
    return this.found
  }

  /** The wanted lines that exist (blank ones as ''), by line number. Ends the last (unterminated) line. */
  finish(): ReadonlyMap<number, string> {
    if (!this.done) this.endLine()
    return this.found
  }

  private endLine(): void {
    if (this.current) this.found.set(this.line, this.current.text())
    this.line += 1
    this.current = this.bufferFor(this.line)
  }

  private bufferFor(line: number): LineBuffer | undefined {
    return this.wanted.has(line) ? this.makeBuffer() : undefined
  }
}

/** A line exactly as written: columns into it are the file's columns. */
export function exactLine(): LineBuffer {
  let text = ''
  return {
    append: (segment) => void (text += segment),
    text: () => text,
  }
}

/** A line for display: leading whitespace dropped as it arrives, kept to one character past `maxChars`, cut with `…`. */
export function displayLine(maxChars: number): () => LineBuffer {
  return () => new DisplayLine(maxChars)
}

class DisplayLine implements LineBuffer {
  private kept = ''
  /** The characters (code points) of `kept`: the limit counts them, as `ellipsize` does. */
  private keptChars = 0
  /** Non-whitespace arrived after the kept prefix: the trimmed line is longer than the limit. */
  private overflowed = false

  constructor(private readonly maxChars: number) {}

  append(segment: string): void {
    if (this.overflowed) return
    const piece = this.kept ? segment : segment.trimStart()
    // Whole characters: a cut in UTF-16 units kept half the characters of an emoji line and could end in half a pair.
    const end = characterEnd(piece, this.maxChars + 1 - this.keptChars)
    const taken = piece.slice(0, end)
    this.kept += taken
    this.keptChars += characterCount(taken)
    if (end < piece.length && NON_SPACE.test(piece.slice(end))) this.overflowed = true
  }

  text(): string {
    const trimmed = this.kept.trimEnd()
    if (!this.overflowed) return ellipsize(trimmed, this.maxChars)
    return ellipsize(`${trimmed}\u2026`, this.maxChars)
  }
}
