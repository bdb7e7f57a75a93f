import { throwIfAborted, type ContainedText, type FileSystem, type Workspace } from 'dsh-core'
import { finalExtension, normalizeExtensionKey } from 'dsh-lsp'

/** Directories a search looks into at most: the anchor is wanted near the top, not at any price. */
const MAX_DIRECTORIES = 200
/** Never searched: hidden directories (.git, .venv) and installed packages. */
const SKIPPED = /^(\.|node_modules$|__pycache__$)/

export interface Anchor {
  readonly source: ContainedText
  /** Its final extension, a key of the server's extension map. */
  readonly extension: string
}

/**
 * A workspace query names no file, but some servers search only the projects of the files open
 * (tsserver has no project at all without one). So the query opens one file of the server's
 * languages while it asks: the one whose extension comes first in the server's map (`.ts` before
 * `.js`), nearest the workspace root, first by name, among the first `MAX_DIRECTORIES`
 * directories breadth-first, without hidden directories, `node_modules` or symlinked directories.
 * A workspace with no such file gets no server at all. The choice is kept per workspace and made
 * again once the file cannot be read.
 */
export class AnchorFiles {
  private readonly priority: ReadonlyMap<string, number>
  private readonly chosen = new Map<string, string>()

  constructor(
    private readonly fs: FileSystem,
    extensions: readonly string[],
  ) {
    const keys = extensions.map((key) => normalizeExtensionKey(key)).filter((key) => key !== undefined)
    this.priority = new Map(keys.map((key, index) => [key, index]))
  }

  async find(workspace: Workspace, read: (path: string) => Promise<ContainedText>, signal: AbortSignal): Promise<Anchor | undefined> {
    const known = this.chosen.get(workspace.path)
    if (known) {
      try {
        return { source: await read(known), extension: finalExtension(known) }
      } catch {
        throwIfAborted(signal)
        this.chosen.delete(workspace.path)
      }
    }
    const path = await this.search(workspace.path, signal)
    if (!path) return undefined
    this.chosen.set(workspace.path, path)
    return { source: await read(path), extension: finalExtension(path) }
  }

  private async search(root: string, signal: AbortSignal): Promise<string | undefined> {
    let best: { path: string; rank: number } | undefined
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
        for (const entry of entries) {
          if (entry.type === 'directory' && !entry.symlink && !SKIPPED.test(entry.name)) next.push(entry.path)
          const rank = entry.type === 'file' ? this.priority.get(finalExtension(entry.name)) : undefined
          if (rank !== undefined && (!best || rank < best.rank)) best = { path: entry.path, rank }
        }
      }
      if (best?.rank === 0) return best.path
      level = next
    }
    return best?.path
  }
}
