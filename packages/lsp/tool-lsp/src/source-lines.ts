import { FsError, type FileSystem, type Workspace } from 'dsh-core'
import { LineCollector, type LineBuffer } from './line-collector.ts'

export interface SourceLines {
  /** The wanted lines that exist, by zero-based line number. */
  readonly lines: ReadonlyMap<number, string>
  /** How many lines the file has, when the read reached its end (it stops after the last wanted line). */
  readonly lineCount: number | undefined
  /**
   * Set when a `partial` read stopped at the bound before its last wanted line: `line` (zero-based)
   * is the line the bound ends in, so every wanted line before it is in `lines` and none after it;
   * `error` is the FS_TOO_LARGE the read would have thrown without `partial`.
   */
  readonly cut?: { readonly line: number; readonly error: FsError }
}

/**
 * The one way the tool reads a source file: `path` is what `fs.contained` returned for it a moment
 * ago (`ctx.fs` checks it again without resolving it again, and reads a small file on the event
 * loop), and the text is streamed only up to the last wanted line.
 * The wanted lines must end within the first `maxBytes` bytes: the chunk that runs past them is
 * taken only up to the bound, so lines ending inside it are found whatever the chunk size; else
 * `FS_TOO_LARGE`, naming the line the first `maxBytes` bytes end in (with `partial`, the lines that
 * did end within it). A missing, binary or non-UTF-8
 * file fails with `ctx.fs`'s own codes.
 */
export async function readSourceLines(
  fs: FileSystem,
  workspace: Workspace,
  path: string,
  wanted: ReadonlySet<number>,
  makeBuffer: () => LineBuffer,
  maxBytes: number,
  signal: AbortSignal,
  /** Counts every byte read, also by a read that then fails (a per-call budget spans several files). */
  meter: { bytes: number } = { bytes: 0 },
  /**
   * Past the bound, answer the wanted lines that ended within it (and `cut`) instead of throwing
   * FS_TOO_LARGE: line text shows each line on its own, and a symbol found on a line searched
   * before any line past the bound is found all the same.
   */
  partial = false,
): Promise<SourceLines> {
  const collector = new LineCollector(wanted, makeBuffer)
  let bytes = 0
  for await (const chunk of fs.streamContainedText(workspace, path, { signal, proven: true })) {
    const before = bytes
    bytes += chunk.bytes
    meter.bytes += chunk.bytes
    if (bytes > maxBytes) {
      // The bound falls inside this chunk: the wanted lines may still end before it.
      collector.push(textWithin(chunk.text, maxBytes - before))
      if (collector.done) return { lines: collector.finish(), lineCount: undefined }
      const error = new FsError(`"${path}" has more than ${maxBytes} bytes before the end of line ${collector.lineCount + 1}`, 'FS_TOO_LARGE')
      if (partial) return { lines: collector.collected(), lineCount: undefined, cut: { line: collector.lineCount, error } }
      throw error
    }
    collector.push(chunk.text)
    if (collector.done) return { lines: collector.finish(), lineCount: undefined }
  }
  const lines = collector.finish()
  return { lines, lineCount: collector.lineCount }
}

const encoder = new TextEncoder()

/**
 * The start of `text` whose UTF-8 takes at most `bytes` bytes, never half a character. The caller
 * counts from the bytes read before the chunk, so a character carried over from the previous
 * chunk's end counts twice (the part taken stops up to 3 bytes short of the bound); a leading
 * byte-order mark, which is not text, is not counted.
 */
function textWithin(text: string, bytes: number): string {
  return text.slice(0, encoder.encodeInto(text, new Uint8Array(bytes)).read)
}
