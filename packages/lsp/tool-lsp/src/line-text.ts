import { fileURLToPath } from 'node:url'
import { throwIfAborted, type FileSystem, type Workspace } from 'dsh-core'
import { ProvenTextCache, type CallProofs, type LspLocation } from 'dsh-lsp'
import { displayLine, LineCollector, type LineBuffer } from './line-collector.ts'
import { readSourceLines, type SourceLines } from './source-lines.ts'

export interface LineTextLimits {
  /** 0 turns line text off. */
  readonly lineTextChars: number
  readonly maxLineFileBytes: number
  /** Bytes all line-text reads of one call may take together; files past it get no line text. */
  readonly lineTextBudgetBytes: number
}

/** The lines one file must yield, and which locations want each. */
interface FileWants {
  readonly lines: Set<number>
  readonly locations: number[]
}

/**
 * The trimmed source line at each location's start, aligned with `locations` (undefined where
 * there is none). Only `file:` locations that `ctx.fs` proves to lie inside the session workspace
 * (symlinks resolved; through the call's `proofs`, so a file the provider proved is not proved again) are read, each file once (one proof, one read) and only up to its last wanted line. Line text is
 * a convenience: a file that is missing, unreadable or binary, or whose wanted lines lie past
 * `maxLineFileBytes`, is skipped silently, and once the call has read `lineTextBudgetBytes` the
 * remaining files are skipped too (100 locations in 100 large files must not mean 200 MB of reads).
 * Cancellation is not a read failure: it propagates.
 */
export async function readLineTexts(
  proofs: CallProofs,
  locations: readonly LspLocation[],
  limits: LineTextLimits,
  signal: AbortSignal,
): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = locations.map(() => undefined)
  if (limits.lineTextChars === 0 || locations.length === 0) return texts
  const workspace = await attempt(() => proofs.workspace(signal), signal)
  if (!workspace) return texts

  const meter = { bytes: 0 }
  for (const [path, wants] of await groupByContainedFile(proofs, workspace, locations, signal)) {
    const left = limits.lineTextBudgetBytes - meter.bytes
    if (left <= 0) break
    const read = () => wantedLines(proofs, workspace, path, wants.lines, displayLine(limits.lineTextChars), Math.min(limits.maxLineFileBytes, left), signal, meter)
    const source = await attempt(read, signal)
    if (!source) continue
    // A blank line has nothing to show.
    for (const index of wants.locations) texts[index] = source.lines.get(locations[index]!.range.start.line) || undefined
  }
  return texts
}

/** Kept texts of the files line text was read from, one cache per host's `ctx.fs`. */
const keptTexts = new WeakMap<FileSystem, ProvenTextCache>()

/**
 * The wanted lines of a proven file: from the text read earlier in this call (the provider's
 * source), or its kept text while it is unchanged (no bytes read); else a small file is read whole
 * and kept, and a larger one streamed up to its last wanted line.
 */
async function wantedLines(
  proofs: CallProofs,
  workspace: Workspace,
  path: string,
  wanted: ReadonlySet<number>,
  makeBuffer: () => LineBuffer,
  maxBytes: number,
  signal: AbortSignal,
  meter: { bytes: number },
): Promise<SourceLines> {
  const readInCall = proofs.readOf(path)
  if (readInCall) return linesOf(readInCall.text, wanted, makeBuffer)
  const { fs } = proofs
  let texts = keptTexts.get(fs)
  if (!texts) keptTexts.set(fs, (texts = new ProvenTextCache(fs)))
  const found = await texts.lookup(path, signal)
  if (found.hit) return linesOf(found.hit.text, wanted, makeBuffer)
  if (!found.info || found.info.size > Math.min(maxBytes, texts.maxFileBytes)) return readSourceLines(fs, workspace, path, wanted, makeBuffer, maxBytes, signal, meter)
  meter.bytes += found.info.size
  return linesOf((await texts.fill(workspace, path, found, { maxBytes, signal })).text, wanted, makeBuffer)
}

function linesOf(text: string, wanted: ReadonlySet<number>, makeBuffer: () => LineBuffer): SourceLines {
  const collector = new LineCollector(wanted, makeBuffer)
  collector.push(text)
  const stoppedEarly = collector.done
  const lines = collector.finish()
  return { lines, lineCount: stoppedEarly ? undefined : collector.lineCount }
}

/** Canonical in-workspace file → what is wanted from it. Aliases of one file share an entry. */
async function groupByContainedFile(proofs: CallProofs, workspace: Workspace, locations: readonly LspLocation[], signal: AbortSignal): Promise<Map<string, FileWants>> {
  const canonicalByUri = new Map<string, string | undefined>()
  const files = new Map<string, FileWants>()
  for (const [index, location] of locations.entries()) {
    if (!canonicalByUri.has(location.uri)) {
      const local = localPath(location.uri)
      canonicalByUri.set(location.uri, local === undefined ? undefined : await attempt(() => proofs.contained(workspace, local, signal), signal))
    }
    const canonical = canonicalByUri.get(location.uri)
    if (canonical === undefined) continue
    let wants = files.get(canonical)
    if (!wants) files.set(canonical, (wants = { lines: new Set(), locations: [] }))
    wants.lines.add(location.range.start.line)
    wants.locations.push(index)
  }
  return files
}

/** The local path of a `file:` URI, or undefined for other schemes, remote hosts and undecodable paths. */
export function localPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined
  try {
    const path = fileURLToPath(uri)
    return path.includes('\0') ? undefined : path
  } catch {
    return undefined
  }
}

/** `work()`'s result, or undefined when it fails, unless the failure is our own cancellation. */
async function attempt<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  try {
    return await work()
  } catch {
    throwIfAborted(signal)
    return undefined
  }
}
