import { throwIfAborted, type ContainedText, type FileSystem, type Workspace } from 'dsh-core'
import { finalExtension, normalizeExtensionKey } from 'dsh-lsp'

/** Directories a search looks into at most: the anchor is wanted near the top, not at any price. */
const MAX_DIRECTORIES = 200
/** Files of one directory tried as the anchor, best first, when one cannot be read (binary, too large, not UTF-8). */
const MAX_CANDIDATES = 8
/** Never searched: hidden directories (.git, .venv) and installed packages. */
const SKIPPED = /^(\.|node_modules$|__pycache__$)/

export interface Anchor {
  readonly source: ContainedText
  /** The language id its extension maps to. */
  readonly languageId: string
}

/**
 * A workspace query names no file, but some servers search only the projects of the files open
 * (tsserver has no project at all without one). So the query opens one file of the server's
 * languages while it asks: the one whose extension comes first in the server's map (`.ts` before
 * `.js`), nearest the workspace root, first by name, among the first `MAX_DIRECTORIES`
 * directories breadth-first, without hidden directories, `node_modules` or symlinked directories.
 * A file that cannot be read as a source (binary, too large) is passed over for the next one of its
 * directory. A workspace with no such file gets no server at all. The choice is kept per workspace
 * and made again once the file cannot be read.
 */
export class AnchorFiles {
  /** Normalised extension → its place in the server's map, and its language id. */
  private readonly languages = new Map<string, { readonly rank: number; readonly languageId: string }>()
  private readonly chosen = new Map<string, string>()

  constructor(
    private readonly fs: FileSystem,
    extensionToLanguage: Readonly<Record<string, string>>,
  ) {
    for (const [key, languageId] of Object.entries(extensionToLanguage)) {
      const extension = normalizeExtensionKey(key)
      if (extension && !this.languages.has(extension)) this.languages.set(extension, { rank: this.languages.size, languageId })
    }
  }

  async find(workspace: Workspace, read: (path: string) => Promise<ContainedText>, signal: AbortSignal): Promise<Anchor | undefined> {
    const known = this.chosen.get(workspace.path)
    if (known) {
      try {
        return await this.anchor(known, read)
      } catch {
        throwIfAborted(signal)
        this.chosen.delete(workspace.path)
      }
    }
    const candidates = await this.search(workspace.path, signal, true)
    if (!candidates.length) return undefined
    const { path, anchor } = await this.firstReadable(candidates, read, signal)
    this.chosen.set(workspace.path, path)
    return anchor
  }

  /**
   * The files of the server's languages in each directory that holds any (best ranked first, at
   * most `MAX_CANDIDATES`), in the same bounded breadth-first order: where project roots are looked
   * for (every root a file near the top belongs to gets asked).
   */
  async everyDirectory(workspace: Workspace, signal: AbortSignal): Promise<string[][]> {
    const found: string[][] = []
    await this.search(workspace.path, signal, false, (paths) => found.push(paths))
    return found
  }

  /**
   * The first of `candidates` (one directory's, best first) that reads as a source: a binary or
   * oversized file with the language's extension (a `bin.ts`, a generated bundle) failed every
   * workspace query of the server with LSP_SOURCE_INVALID. The last failure when none reads.
   */
  async firstReadable(candidates: readonly string[], read: (path: string) => Promise<ContainedText>, signal: AbortSignal): Promise<{ path: string; anchor: Anchor }> {
    let failure: unknown
    for (const path of candidates) {
      try {
        return { path, anchor: await this.anchor(path, read) }
      } catch (error) {
        throwIfAborted(signal)
        failure = error
      }
    }
    throw failure
  }

  async anchor(path: string, read: (path: string) => Promise<ContainedText>): Promise<Anchor> {
    return { source: await read(path), languageId: this.languages.get(finalExtension(path))!.languageId }
  }

  /**
   * The best directory's files (stopping early at the first level with a top-ranked one when
   * `early`), best ranked first; `each` sees every directory's. Within a rank, the listing's order.
   */
  private async search(root: string, signal: AbortSignal, early: boolean, each?: (paths: string[]) => void): Promise<string[]> {
    let best: { paths: string[]; rank: number } | undefined
    let level = [root]
    let visited = 0
    while (level.length && visited < MAX_DIRECTORIES) {
      const next: string[] = []
      for (const dir of level) {
        if (visited++ >= MAX_DIRECTORIES) break
        throwIfAborted(signal)
        let entries
        try {
          entries = await this.fs.listDir(dir, signal)
        } catch {
          throwIfAborted(signal)
          continue
        }
        const here: { path: string; rank: number }[] = []
        for (const entry of entries) {
          if (entry.type === 'directory' && !entry.symlink && !SKIPPED.test(entry.name)) next.push(entry.path)
          const rank = entry.type === 'file' ? this.languages.get(finalExtension(entry.name))?.rank : undefined
          if (rank !== undefined) here.push({ path: entry.path, rank })
        }
        if (!here.length) continue
        // Stable: within a rank, the listing's order.
        here.sort((a, b) => a.rank - b.rank)
        const paths = here.slice(0, MAX_CANDIDATES).map((file) => file.path)
        each?.(paths)
        if (!best || here[0]!.rank < best.rank) best = { paths, rank: here[0]!.rank }
      }
      if (early && best?.rank === 0) return best.paths
      level = next
    }
    return best?.paths ?? []
  }
}
