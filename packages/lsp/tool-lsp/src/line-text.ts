import { fileURLToPath } from 'node:url'
import { Lifetime, thenOrNow, throwIfAborted, type ContainedText, type FileSystem, type Workspace } from 'dsh-core'
import { ProvenTextCache, type CallProofs, type LspLocation, type TextLookup } from 'dsh-lsp'
import { lineAt, lineIndexOf } from './line-index.ts'
import { displayLine, type LineBuffer } from './line-collector.ts'
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
 * a convenience: a file that is missing, unreadable or binary is skipped silently, and so is each
 * wanted line that ends past `maxLineFileBytes` (the file's lines before it are still shown), and once the call has read `lineTextBudgetBytes` the
 * remaining files are skipped too (100 locations in 100 large files must not mean 200 MB of reads).
 * Cancellation is not a read failure: it propagates. Bound by a call's `Lifetime`, the proofs and
 * the kept-text lookups (a moment's work each) check it between steps, and only a read of bytes
 * asks it for an `AbortSignal`: a warm call makes none. The texts themselves, not a promise of
 * them, when no step had to wait (a warm call: proofs on the event loop, kept texts).
 */
export function readLineTexts(
  proofs: CallProofs,
  locations: readonly LspLocation[],
  limits: LineTextLimits,
  bound: AbortSignal | Lifetime,
): LineTexts | Promise<LineTexts> {
  // A loop, not `locations.map`: see diagnosticsValue (an empty list and a full one alternate).
  const texts: LineTexts = []
  for (let index = 0; index < locations.length; index++) texts.push(undefined)
  if (limits.lineTextChars === 0 || locations.length === 0) return texts
  const job: LineJob = { proofs, locations, limits, cancel: cancellationOf(bound), texts, meter: { bytes: 0 } }
  // Warm, every step is a value: the workspace and the files proven on the event loop, kept texts, indexed lines.
  const workspace = attempt(() => proofs.workspaceNow(job.cancel.quick) ?? proofs.workspace(job.cancel.quick), job.cancel)
  return thenOrNow(workspace, (proven) => (proven ? linesBelow(job, proven) : texts))
}

/** Line text per location, aligned with the locations (undefined where there is none). */
type LineTexts = (string | undefined)[]

/** One `readLineTexts` call's inputs and what it has filled in so far. */
interface LineJob {
  readonly proofs: CallProofs
  readonly locations: readonly LspLocation[]
  readonly limits: LineTextLimits
  readonly cancel: Cancellation
  readonly texts: LineTexts
  /** Bytes read so far, against `lineTextBudgetBytes`. */
  readonly meter: { bytes: number }
}

function linesBelow(job: LineJob, workspace: Workspace): LineTexts | Promise<LineTexts> {
  return thenOrNow(groupByContainedFile(job.proofs, workspace, job.locations, job.cancel), (files) => linesFrom(job, workspace, [...files], 0))
}

/** Fills in the files from `from` on, in order; a value until a file's lines must be awaited. */
function linesFrom(job: LineJob, workspace: Workspace, files: readonly [string, FileWants][], from: number): LineTexts | Promise<LineTexts> {
  const { limits, meter, cancel } = job
  for (let at = from; at < files.length; at++) {
    const left = limits.lineTextBudgetBytes - meter.bytes
    if (left <= 0) break
    const [path, wants] = files[at]!
    const reading = attempt(() => wantedLines(job.proofs, workspace, path, wants.lines, displayLine(limits.lineTextChars), Math.min(limits.maxLineFileBytes, left), cancel, meter), cancel)
    if (reading instanceof Promise) {
      return reading.then((source) => {
        show(job, wants, source)
        return linesFrom(job, workspace, files, at + 1)
      })
    }
    show(job, wants, reading)
  }
  return job.texts
}

/** A file's wanted lines at the locations that want them; a blank line has nothing to show. */
function show(job: LineJob, wants: FileWants, source: SourceLines | undefined): void {
  if (!source) return
  for (const index of wants.locations) job.texts[index] = source.lines.get(job.locations[index]!.range.start.line) || undefined
}

/** Kept texts of the files line text was read from, one cache per host's `ctx.fs`. */
const keptTexts = new WeakMap<FileSystem, ProvenTextCache>()

/**
 * The wanted lines of a proven file: from the text read earlier in this call (the provider's
 * source), or its kept text while it is unchanged (no bytes read; the stat is the one the file's
 * proof took in this call); else a small file is read whole and kept, and a larger one streamed up
 * to its last wanted line. A value, not a promise, unless bytes are read or a symlink followed.
 */
function wantedLines(
  proofs: CallProofs,
  workspace: Workspace,
  path: string,
  wanted: ReadonlySet<number>,
  makeBuffer: () => LineBuffer,
  maxBytes: number,
  cancel: Cancellation,
  meter: { bytes: number },
): SourceLines | Promise<SourceLines> {
  const readInCall = proofs.readOf(path)
  if (readInCall) return linesOf(readInCall, wanted, makeBuffer)
  const { fs } = proofs
  let texts = keptTexts.get(fs)
  if (!texts) keptTexts.set(fs, (texts = new ProvenTextCache(fs)))
  cancel.check()
  const kept = texts
  const looked = kept.lookup(path, cancel.quick, proofs)
  const from = (found: TextLookup): SourceLines | Promise<SourceLines> => {
    if (found.hit) return linesOf(found.hit, wanted, makeBuffer)
    if (!found.info || found.info.size > Math.min(maxBytes, kept.maxFileBytes)) return readSourceLines(fs, workspace, path, wanted, makeBuffer, maxBytes, cancel.signal(), meter, true)
    meter.bytes += found.info.size
    return kept.fill(workspace, path, found, { maxBytes, signal: cancel.signal() }).then((text) => linesOf(text, wanted, makeBuffer))
  }
  return thenOrNow(looked, from)
}

/** The wanted lines of a whole text: looked up in its line index once it has one (see line-index.ts), else scanned to the last one. */
function linesOf(source: ContainedText, wanted: ReadonlySet<number>, makeBuffer: () => LineBuffer): SourceLines {
  const index = lineIndexOf(source)
  if (index) {
    const lines = new Map<number, string>()
    for (const line of wanted) {
      const text = lineAt(source.text, index, line)
      if (text === undefined) continue
      const buffer = makeBuffer()
      if (text) buffer.append(text)
      lines.set(line, buffer.text())
    }
    return { lines, lineCount: index.length }
  }
  return scannedLines(source.text, wanted, makeBuffer)
}

/**
 * `LineCollector`'s answer for a whole text pushed in one piece and finished: the wanted lines
 * (blank ones as ''), and the line count unless the scan stopped after the last wanted line's
 * break. A loop over the characters to that line, without the collector's object, regular
 * expression and per-line steps: the first use of a text (the file the provider read for this
 * call, after every edit a writer makes) is scanned here.
 */
export function scannedLines(text: string, wanted: ReadonlySet<number>, makeBuffer: () => LineBuffer): SourceLines {
  const lines = new Map<number, string>()
  let last = -1
  for (const line of wanted) if (line > last) last = line
  if (last < 0) return { lines, lineCount: undefined }
  // The next `\n` and `\r` at or after `start` (-1: none left), each searched again only once passed:
  // `indexOf` runs natively even while this function is not optimised yet (a loop over the
  // characters cost ~20 instructions a character then), and a text without `\r` is searched for one once.
  let newline = -2
  let carriageReturn = -2
  for (let line = 0, start = 0; ; line++) {
    if (newline !== -1 && newline < start) newline = text.indexOf('\n', start)
    if (carriageReturn !== -1 && carriageReturn < start) carriageReturn = text.indexOf('\r', start)
    const end = newline === -1 ? (carriageReturn === -1 ? text.length : carriageReturn) : carriageReturn === -1 || newline < carriageReturn ? newline : carriageReturn
    if (wanted.has(line)) {
      const buffer = makeBuffer()
      if (end > start) buffer.append(text.slice(start, end))
      lines.set(line, buffer.text())
    }
    if (end === text.length) return { lines, lineCount: line + 1 }
    if (line + 1 > last) return { lines, lineCount: undefined }
    start = text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1
  }
}

/**
 * Canonical in-workspace file → what is wanted from it, in the order the locations name them.
 * Aliases of one file share an entry. A value when every proof runs on the event loop (a path
 * spelled inside the workspace); the others are awaited in turn.
 */
function groupByContainedFile(proofs: CallProofs, workspace: Workspace, locations: readonly LspLocation[], cancel: Cancellation): Map<string, FileWants> | Promise<Map<string, FileWants>> {
  cancel.check()
  const canonicalByUri = new Map<string, string | undefined>()
  /** URIs whose proof belongs on the thread pool, with their local paths. */
  const awaited: [string, string][] = []
  for (const { uri } of locations) {
    if (canonicalByUri.has(uri)) continue
    const local = localPath(uri)
    canonicalByUri.set(uri, undefined)
    if (local === undefined) continue
    let now: string | undefined
    try {
      now = proofs.containedNow(workspace, local)
    } catch {
      // Refused (outside, or unreadable on the way): no line text, unless the call was cancelled.
      cancel.check()
      continue
    }
    if (now === undefined) awaited.push([uri, local])
    else canonicalByUri.set(uri, now)
  }
  if (awaited.length === 0) return wantsByFile(locations, canonicalByUri)
  return (async () => {
    for (const [uri, local] of awaited) canonicalByUri.set(uri, await attempt(() => proofs.contained(workspace, local, cancel.quick), cancel))
    return wantsByFile(locations, canonicalByUri)
  })()
}

function wantsByFile(locations: readonly LspLocation[], canonicalByUri: ReadonlyMap<string, string | undefined>): Map<string, FileWants> {
  const files = new Map<string, FileWants>()
  for (const [index, location] of locations.entries()) {
    const canonical = canonicalByUri.get(location.uri)
    if (canonical === undefined) continue
    let wants = files.get(canonical)
    if (!wants) files.set(canonical, (wants = { lines: new Set(), locations: [] }))
    wants.lines.add(location.range.start.line)
    wants.locations.push(index)
  }
  return files
}

/** URIs whose local path is kept (cleared whole when full): a pure function of the string, asked for every location of every call. */
const LOCAL_PATHS_KEPT = 1024
const localPaths = new Map<string, string | undefined>()

/** The local path of a `file:` URI, or undefined for other schemes, remote hosts and undecodable paths. */
export function localPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined
  const known = localPaths.get(uri)
  if (known !== undefined || localPaths.has(uri)) return known
  let path: string | undefined
  try {
    path = fileURLToPath(new URL(uri))
    if (path.includes('\0')) path = undefined
  } catch {
    path = undefined
  }
  if (localPaths.size >= LOCAL_PATHS_KEPT) localPaths.clear()
  localPaths.set(uri, path)
  return path
}

/** `work()`'s result, or undefined when it fails, unless the failure is our own cancellation; a value when `work` gives one. */
function attempt<T>(work: () => T | Promise<T>, cancel: Cancellation): T | undefined | Promise<T | undefined> {
  let result: T | Promise<T>
  try {
    result = work()
  } catch {
    cancel.check()
    return undefined
  }
  if (!(result instanceof Promise)) return result
  return result.catch(() => {
    cancel.check()
    return undefined
  })
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
