import fs from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BareLspClient } from './bare-lsp-client.ts'

// The least work the `lsp` tool's contract asks around a kept client's request, in plain
// synchronous Node with no host, no schemas and no lifetimes: the side `lsp-fixed-cost` measures
// when BENCH_LSP_FIXED_FLOOR=1, so that ours ÷ floor shows what our layers cost and floor ÷ kept
// what the contract itself costs. The contract (docs/lsp.md): the session's workspace proven a
// directory by its real path; the asked file proven below it without a symlink; the kept document
// checked against the file on disk before the request; every answered location proven below the
// workspace, its path made relative, its source line added; one text answer.

interface KeptText {
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly lines: readonly string[]
}

interface Position {
  readonly line: number
  readonly character: number
}

interface AnsweredLocation {
  readonly uri: string
  readonly start: Position
}

export class ContractFloorClient {
  private readonly texts = new Map<string, KeptText>()

  constructor(
    private readonly kept: BareLspClient,
    private readonly workspace: string,
  ) {}

  async query(method: string, file: string, languageId: string, line: number, character: number): Promise<string> {
    const root = fs.realpathSync.native(this.workspace)
    if (!fs.statSync(root).isDirectory()) throw new Error(`${root}: not a directory`)
    const source = provenBelow(root, file)
    this.keptTextOf(join(root, file), source)
    const answer = await this.kept.query(method, file, languageId, line, character)
    if (method === 'textDocument/hover') return hoverText(answer).trimEnd()
    const rendered: string[] = []
    for (const location of locationsOf(answer)) {
      const path = relative(root, fileURLToPath(location.uri))
      if (path.startsWith(`..${sep}`) || path === '..') continue
      const stats = provenBelow(root, path)
      const text = this.keptTextOf(join(root, path), stats)
      rendered.push(`${path}:${location.start.line + 1}:${location.start.character + 1}  ${text.lines[location.start.line]?.trim() ?? ''}`)
    }
    return rendered.length ? rendered.join('\n') : 'No results.'
  }

  /** The file's lines, read again only when its (inode, size, mtime) moved. */
  private keptTextOf(path: string, stats: fs.Stats): KeptText {
    const known = this.texts.get(path)
    if (known && known.ino === stats.ino && known.size === stats.size && known.mtimeMs === stats.mtimeMs) return known
    const text: KeptText = { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, lines: fs.readFileSync(path, 'utf8').split('\n') }
    this.texts.set(path, text)
    return text
  }
}

/** lstat of each name below `root` on the way to `path`, none a symlink; the last one's stats. */
function provenBelow(root: string, path: string): fs.Stats {
  let at = root
  let stats: fs.Stats | undefined
  for (const name of path.split(sep)) {
    at = join(at, name)
    stats = fs.lstatSync(at)
    if (stats.isSymbolicLink()) throw new Error(`${at}: a symlink`)
  }
  if (!stats?.isFile()) throw new Error(`${path}: not a file`)
  return stats
}

function locationsOf(answer: unknown): AnsweredLocation[] {
  const items = answer == null ? [] : Array.isArray(answer) ? answer : [answer]
  return items.map((item: { uri?: string; range?: { start: Position }; targetUri?: string; targetSelectionRange?: { start: Position } }) =>
    item.targetUri !== undefined ? { uri: item.targetUri, start: item.targetSelectionRange!.start } : { uri: item.uri!, start: item.range!.start },
  )
}

function hoverText(answer: unknown): string {
  const contents = (answer as { contents?: unknown } | null)?.contents
  if (contents == null) return 'No hover information.'
  if (typeof contents === 'string') return contents
  if (Array.isArray(contents)) return contents.map((part) => (typeof part === 'string' ? part : (part as { value: string }).value)).join('\n')
  return (contents as { value: string }).value
}
