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
 * More than `maxBytes` bytes before that line is `FS_TOO_LARGE`; a missing, binary or non-UTF-8
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
): Promise<SourceLines> {
  const collector = new LineCollector(wanted, makeBuffer)
  let bytes = 0
  for await (const chunk of fs.streamContainedText(workspace, path, { signal, proven: true })) {
    bytes += chunk.bytes
    meter.bytes += chunk.bytes
    if (bytes > maxBytes) throw new FsError(`"${path}" has more than ${maxBytes} bytes before line ${Math.max(...wanted) + 1}`, 'FS_TOO_LARGE')
    collector.push(chunk.text)
    if (collector.done) return { lines: collector.finish(), lineCount: undefined }
  }
  const lines = collector.finish()
  return { lines, lineCount: collector.lineCount }
}
