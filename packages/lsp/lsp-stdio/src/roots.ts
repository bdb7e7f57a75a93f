import { dirname, join } from 'node:path'
import { thenOrNow, type FileSystem, type PathInfo, type Workspace } from 'dsh-core'
import { settled, SETTLE_MS, unchanged, type ProvenStat } from 'dsh-lsp'

/** The directory a server runs in and is initialised with. */
export interface ServerRoot extends Workspace {
  /** The root marker that chose this directory; absent for the session workspace itself, chosen for want of one. */
  readonly marker?: string
}

/**
 * Where the server for a file runs: the nearest directory at or above the file, never above the
 * session workspace, that holds one of the row's root markers (`go.mod`, `Cargo.toml`); else the
 * workspace. `markers` lists groups by precedence: a group found anywhere up to the workspace beats
 * every later group however near (`go.work` over `go.mod`), and within a group the nearest directory wins.
 * Markers are looked up afresh for every file, so one created meanwhile counts from the next query:
 * a directory's markers are looked up again whenever its entries may have changed (its own stat
 * differs from the last lookup's, or had not settled then, see `settled`).
 */
export class RootFinder {
  private readonly names: readonly string[]
  /** The markers each directory held, with the directory's stat at that lookup; cleared whole when full. */
  private readonly known = new Map<string, { readonly info: PathInfo; readonly present: readonly string[] }>()
  /** The last `directoriesOf` answer and what it was asked. */
  private lastTop = ''
  private lastPath = ''
  private lastDirectories: readonly string[] = []

  constructor(
    private readonly fs: FileSystem,
    private readonly markers: readonly (readonly string[])[],
    /** A directory changed less than this before a lookup is looked up again next time (see `settled`). */
    private readonly settleMs = SETTLE_MS,
  ) {
    this.names = [...new Set(markers.flat())]
  }

  get enabled(): boolean {
    return this.names.length > 0
  }

  /**
   * `path` is canonical and inside `workspace`. A value, not a promise, when every directory on the
   * way was settled by an lstat (the warm path: one lstat per directory, nothing else); a promise
   * only when a symlink must be followed on the thread pool. `seen` gives a directory's lstat taken
   * a moment ago in the same pass (the file's containment proof walked it), which stands for this one.
   */
  rootOf(workspace: Workspace, path: string, signal?: AbortSignal, seen?: (dir: string) => ProvenStat | undefined): ServerRoot | Promise<ServerRoot> {
    const dirs = this.directoriesOf(workspace.path, path)
    // Plain loops on this path (every file request, and after every edit a writer makes): V8 (Node 20)
    // deoptimised the array builtins here when their lists changed kind (bench/RESULTS.md, eighteenth session).
    const present: (readonly string[] | Promise<readonly string[]>)[] = []
    let waits = false
    for (let index = 0; index < dirs.length; index++) {
      const dir = dirs[index]!
      const names = this.markersIn(dir, signal, seen?.(dir))
      if (names instanceof Promise) waits = true
      present.push(names)
    }
    if (waits) return Promise.all(present).then((names) => this.choose(workspace, dirs, names))
    return this.choose(workspace, dirs, present as (readonly string[])[])
  }

  /**
   * The directories from `path`'s up to `top`, nearest first: the last file's list again when it is
   * asked about again (a writer's file, after every edit), so neither the names are cut anew nor
   * the map keys made of them hashed anew (a string keeps its hash). A pure function of the two strings.
   */
  private directoriesOf(top: string, path: string): readonly string[] {
    if (path === this.lastPath && top === this.lastTop) return this.lastDirectories
    const parent = dirname(path)
    const dirs = ancestors(top, this.fs.contains(top, parent) ? parent : top)
    this.lastTop = top
    this.lastPath = path
    this.lastDirectories = dirs
    return dirs
  }

  /** The nearest directory of the first marker group found, else the workspace. A directory holding no marker is passed at once. */
  private choose(workspace: Workspace, dirs: readonly string[], present: readonly (readonly string[])[]): ServerRoot {
    for (let at = 0; at < this.markers.length; at++) {
      const group = this.markers[at]!
      for (let index = 0; index < dirs.length; index++) {
        const names = present[index]!
        if (names.length === 0) continue
        const marker = group.find((name) => names.includes(name))
        if (!marker) continue
        const dir = dirs[index]!
        return dir === workspace.path ? { ...workspace, marker } : { path: dir, url: this.fs.fileUrl(dir), marker }
      }
    }
    return workspace
  }

  /**
   * The marker names present in `dir`; one that cannot be examined counts as absent. `dir` is on
   * the path the file's containment proof just walked, so the lookups run on the event loop. A
   * directory whose stat is what it was at an earlier, settled lookup holds the same names: an entry
   * created, removed or renamed changes it.
   */
  private markersIn(dir: string, signal: AbortSignal | undefined, seen: ProvenStat | undefined): readonly string[] | Promise<readonly string[]> {
    if (seen) return this.namesIn(dir, seen.info, seen.at, signal)
    const at = Date.now()
    const info = this.lookUp(dir, signal)
    return thenOrNow(info, (followed) => this.namesIn(dir, followed, at, signal))
  }

  /** The names in `dir` whose stat is `info` (taken at `at`): remembered, or looked up and remembered when settled. */
  private namesIn(dir: string, info: PathInfo | undefined, at: number, signal: AbortSignal | undefined): readonly string[] | Promise<readonly string[]> {
    const known = info && this.known.get(dir)
    if (known && unchanged(known.info, info)) return known.present
    const found = this.names.map((name) => {
      const marker = this.lookUp(join(dir, name), signal)
      return thenOrNow(marker, (followed) => (followed ? name : undefined))
    })
    // A marker that is a symlink holds while its target does, which the directory's stat does not
    // follow: such a directory is looked up again every time.
    if (found.some((name) => name instanceof Promise)) return Promise.all(found).then((names) => this.remember(dir, undefined, at, names))
    return this.remember(dir, info, at, found as (string | undefined)[])
  }

  /** The names found; remembered with `info` when that shows a directory settled by `at` (`info` undefined: never). */
  private remember(dir: string, info: PathInfo | undefined, at: number, found: readonly (string | undefined)[]): readonly string[] {
    const present = found.filter((name) => name !== undefined)
    if (info?.type === 'directory' && settled(info, at, this.settleMs)) {
      if (this.known.size >= MAX_KNOWN_DIRECTORIES) this.known.clear()
      this.known.set(dir, { info, present })
    } else {
      this.known.delete(dir)
    }
    return present
  }

  /** `ctx.fs.statBesideProven`, with no promise unless a symlink is followed; what cannot be examined is absent. */
  private lookUp(path: string, signal: AbortSignal | undefined): PathInfo | undefined | Promise<PathInfo | undefined> {
    let info: PathInfo | undefined | 'symlink'
    try {
      info = this.fs.lstatBesideProven(path, signal)
    } catch {
      return undefined
    }
    return info === 'symlink' ? this.fs.stat(path, signal).catch(() => undefined) : info
  }
}

/** Directories whose markers are remembered (a few per project; cleared whole when full). */
const MAX_KNOWN_DIRECTORIES = 1024

/** `dir` and the directories above it up to `top`, nearest first; `dir` is `top` or inside it. */
function ancestors(top: string, dir: string): string[] {
  const dirs = [dir]
  for (let current = dir; current !== top; ) dirs.push((current = dirname(current)))
  return dirs
}
