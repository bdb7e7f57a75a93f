import { fileURLToPath } from 'node:url'
import { throwIfAborted, type FileSystem, type Workspace } from 'dsh-core'
import type { LspLocation } from 'dsh-lsp'
import { LineCollector } from './line-collector.ts'

export interface LineTextLimits {
  /** 0 turns line text off. */
  readonly lineTextChars: number
  readonly maxLineFileBytes: number
}

/** The lines one file must yield, and which locations want each. */
interface FileWants {
  readonly lines: Set<number>
  readonly locations: number[]
}

/**
 * The trimmed source line at each location's start, aligned with `locations` (undefined where
 * there is none). Only `file:` locations that `ctx.fs` proves to lie inside the session workspace
 * (symlinks resolved) are read, each file once and only up to its last wanted line. Line text is
 * a convenience: a file that is missing, unreadable, binary or too large is skipped silently.
 * Cancellation is not a read failure: it propagates.
 */
export async function readLineTexts(
  fs: FileSystem,
  workspaceDir: string,
  locations: readonly LspLocation[],
  limits: LineTextLimits,
  signal: AbortSignal,
): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = locations.map(() => undefined)
  if (limits.lineTextChars === 0 || locations.length === 0) return texts
  const workspace = await attempt(() => fs.workspace(workspaceDir, signal), signal)
  if (!workspace) return texts

  for (const [path, wants] of await groupByContainedFile(fs, workspace, locations, signal)) {
    const lines = await attempt(() => readLines(fs, path, wants.lines, limits, signal), signal)
    if (!lines) continue
    for (const index of wants.locations) texts[index] = lines.get(locations[index]!.range.start.line)
  }
  return texts
}

/** Canonical in-workspace file → what is wanted from it. Aliases of one file share an entry. */
async function groupByContainedFile(
  fs: FileSystem,
  workspace: Workspace,
  locations: readonly LspLocation[],
  signal: AbortSignal,
): Promise<Map<string, FileWants>> {
  const canonicalByUri = new Map<string, string | undefined>()
  const files = new Map<string, FileWants>()
  for (const [index, location] of locations.entries()) {
    if (!canonicalByUri.has(location.uri)) {
      const local = localPath(location.uri)
      canonicalByUri.set(location.uri, local === undefined ? undefined : await attempt(() => fs.contained(workspace, local, signal), signal))
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

async function readLines(
  fs: FileSystem,
  path: string,
  wanted: ReadonlySet<number>,
  limits: LineTextLimits,
  signal: AbortSignal,
): Promise<ReadonlyMap<number, string> | undefined> {
  const info = await fs.stat(path, signal)
  if (info?.type !== 'file' || info.size > limits.maxLineFileBytes) return undefined
  const collector = new LineCollector(wanted, limits.lineTextChars)
  let bytes = 0
  for await (const chunk of fs.streamText(path, signal)) {
    bytes += chunk.bytes
    // The file grew past the cap after the stat: treat it like any other oversized file.
    if (bytes > limits.maxLineFileBytes) return undefined
    collector.push(chunk.text)
    if (collector.done) break
  }
  return collector.finish()
}

/** The local path of a `file:` URI, or undefined for other schemes, remote hosts and undecodable paths. */
function localPath(uri: string): string | undefined {
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
