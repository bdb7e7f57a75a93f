import { fileURLToPath } from 'node:url'
import { Lifetime, throwIfAborted, type FileSystem, type Workspace } from 'dsh-core'
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
 * Cancellation is not a read failure: it propagates. Bound by a call's `Lifetime`, the proofs and
 * the kept-text lookups (a moment's work each) check it between steps, and only a read of bytes
 * asks it for an `AbortSignal`: a warm call makes none.
 */
export async function readLineTexts(
  proofs: CallProofs,
  locations: readonly LspLocation[],
  limits: LineTextLimits,
  bound: AbortSignal | Lifetime,
): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = locations.map(() => undefined)
  if (limits.lineTextChars === 0 || locations.length === 0) return texts
  const cancel = cancellationOf(bound)
  const workspace = await attempt(() => proofs.workspace(cancel.quick), cancel)
  if (!workspace) return texts

  const meter = { bytes: 0 }
  for (const [path, wants] of await groupByContainedFile(proofs, workspace, locations, cancel)) {
    const left = limits.lineTextBudgetBytes - meter.bytes
    if (left <= 0) break
    const read = () => wantedLines(proofs, workspace, path, wants.lines, displayLine(limits.lineTextChars), Math.min(limits.maxLineFileBytes, left), cancel, meter)
    const source = await attempt(read, cancel)
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
  cancel: Cancellation,
  meter: { bytes: number },
): Promise<SourceLines> {
  const readInCall = proofs.readOf(path)
  if (readInCall) return linesOf(readInCall.text, wanted, makeBuffer)
  const { fs } = proofs
  let texts = keptTexts.get(fs)
  if (!texts) keptTexts.set(fs, (texts = new ProvenTextCache(fs)))
  cancel.check()
  const found = await texts.lookup(path, cancel.quick)
  if (found.hit) return linesOf(found.hit.text, wanted, makeBuffer)
  if (!found.info || found.info.size > Math.min(maxBytes, texts.maxFileBytes)) return readSourceLines(fs, workspace, path, wanted, makeBuffer, maxBytes, cancel.signal(), meter)
  meter.bytes += found.info.size
  return linesOf((await texts.fill(workspace, path, found, { maxBytes, signal: cancel.signal() })).text, wanted, makeBuffer)
}

function linesOf(text: string, wanted: ReadonlySet<number>, makeBuffer: () => LineBuffer): SourceLines {
  const collector = new LineCollector(wanted, makeBuffer)
  collector.push(text)
  const stoppedEarly = collector.done
  const lines = collector.finish()
  return { lines, lineCount: stoppedEarly ? undefined : collector.lineCount }
}

/** Canonical in-workspace file → what is wanted from it. Aliases of one file share an entry. */
async function groupByContainedFile(proofs: CallProofs, workspace: Workspace, locations: readonly LspLocation[], cancel: Cancellation): Promise<Map<string, FileWants>> {
  const canonicalByUri = new Map<string, string | undefined>()
  const files = new Map<string, FileWants>()
  for (const [index, location] of locations.entries()) {
    if (!canonicalByUri.has(location.uri)) {
      const local = localPath(location.uri)
      canonicalByUri.set(location.uri, local === undefined ? undefined : await attempt(() => proofs.contained(workspace, local, cancel.quick), cancel))
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
async function attempt<T>(work: () => Promise<T>, cancel: Cancellation): Promise<T | undefined> {
  try {
    return await work()
  } catch {
    cancel.check()
    return undefined
  }
}

/** How line text honours the caller's bound: its signal for every step, or a lifetime's checks and its signal for reads only. */
interface Cancellation {
  /** For a proof or a kept-text lookup: the caller's signal, or none under a lifetime (checked around them instead). */
  readonly quick: AbortSignal | undefined
  /** For a read of bytes. */
  signal(): AbortSignal
  /** Throws the reason once the caller has given up. */
  check(): void
}

function cancellationOf(bound: AbortSignal | Lifetime): Cancellation {
  if (bound instanceof Lifetime) return { quick: undefined, signal: () => bound.signal, check: () => bound.throwIfAborted() }
  return { quick: bound, signal: () => bound, check: () => throwIfAborted(bound) }
}
