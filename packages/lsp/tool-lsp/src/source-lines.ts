import { FsError, type FileSystem, type Workspace } from 'dsh-core'
import { LineCollector, type LineBuffer } from './line-collector.ts'

export interface SourceLines {
  /** The wanted lines that exist, by zero-based line number. */
  readonly lines: ReadonlyMap<number, string>
  /** How many lines the file has, when the read reached its end (it stops after the last wanted line). */
  readonly lineCount: number | undefined
}

/**
 * The one way the tool reads a source file: `path` is what `fs.contained` returned for it a moment
 * ago (`ctx.fs` checks it again without resolving it again, and reads a small file on the event
 * loop), and the text is streamed only up to the last wanted line.
 * More than `maxBytes` bytes read before that line is `FS_TOO_LARGE`, naming the line the first
 * `maxBytes` bytes end in; a missing, binary or non-UTF-8 file fails with `ctx.fs`'s own codes.
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
): Promise<SourceLines> {
  const collector = new LineCollector(wanted, makeBuffer)
  let bytes = 0
  for await (const chunk of fs.streamContainedText(workspace, path, { signal, proven: true })) {
    bytes += chunk.bytes
    meter.bytes += chunk.bytes
    if (bytes > maxBytes) throw tooLarge(path, maxBytes, collector, chunk.text, maxBytes - (bytes - chunk.bytes), wanted)
    collector.push(chunk.text)
    if (collector.done) return { lines: collector.finish(), lineCount: undefined }
  }
  const lines = collector.finish()
  return { lines, lineCount: collector.lineCount }
}

/**
 * FS_TOO_LARGE, saying where the first `maxBytes` bytes end: in which line (a file whose line 1
 * alone is longer reads "before the end of line 1", not the last line of the window asked for).
 * The part of the last chunk within the bound is scanned for line breaks here, on the way out only.
 */
function tooLarge(path: string, maxBytes: number, collector: LineCollector, chunk: string, withinBytes: number, wanted: ReadonlySet<number>): FsError {
  collector.push(Buffer.from(chunk).subarray(0, withinBytes).toString('utf8'))
  if (!collector.done) return new FsError(`"${path}" has more than ${maxBytes} bytes before the end of line ${collector.lineCount + 1}`, 'FS_TOO_LARGE')
  // The lines wanted end within the bound, but the file is read in chunks and the one holding them goes past it.
  return new FsError(`"${path}" is read in chunks, and the one holding line ${Math.max(...wanted) + 1} goes past ${maxBytes} bytes`, 'FS_TOO_LARGE')
}
