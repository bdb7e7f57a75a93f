import { dirname, join } from 'node:path'
import type { FileSystem, Workspace } from 'dsh-core'

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
 * Markers are looked up afresh for every file, so one created meanwhile counts from the next query.
 */
export class RootFinder {
  private readonly names: readonly string[]

  constructor(
    private readonly fs: FileSystem,
    private readonly markers: readonly (readonly string[])[],
  ) {
    this.names = [...new Set(markers.flat())]
  }

  get enabled(): boolean {
    return this.names.length > 0
  }

  /** `path` is canonical and inside `workspace`. */
  async rootOf(workspace: Workspace, path: string, signal: AbortSignal): Promise<ServerRoot> {
    const dirs = ancestors(workspace.path, this.fs.contains(workspace.path, dirname(path)) ? dirname(path) : workspace.path)
    const present = await Promise.all(dirs.map((dir) => this.markersIn(dir, signal)))
    for (const group of this.markers) {
      for (const [index, dir] of dirs.entries()) {
        const marker = group.find((name) => present[index]!.includes(name))
        if (marker) return dir === workspace.path ? { ...workspace, marker } : { path: dir, url: this.fs.fileUrl(dir), marker }
      }
    }
    return workspace
  }

  /**
   * The marker names present in `dir`; one that cannot be examined counts as absent. `dir` is on
   * the path the file's containment proof just walked, so the lookups run on the event loop.
   */
  private async markersIn(dir: string, signal: AbortSignal): Promise<string[]> {
    const found = await Promise.all(this.names.map((name) => this.fs.statBesideProven(join(dir, name), signal).then((info) => (info ? name : undefined), () => undefined)))
    return found.filter((name) => name !== undefined)
  }
}

/** `dir` and the directories above it up to `top`, nearest first; `dir` is `top` or inside it. */
function ancestors(top: string, dir: string): string[] {
  const dirs = [dir]
  for (let current = dir; current !== top; ) dirs.push((current = dirname(current)))
  return dirs
}
