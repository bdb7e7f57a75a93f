import { readdir, stat } from 'node:fs/promises'
import { basename, join, relative, sep } from 'node:path'
import type { SkillRoot } from './roots.ts'

/**
 * What a root's watcher watches: what the catalog looks at (scan.ts's `boundEntries`), and no more.
 * chokidar at depth 1 put an inotify watch on every folder of a root and every file in them (20,000
 * folders: 20,000 watches, the user's whole default budget of 8,192 on some systems, whatever
 * `maxRootEntries` said). Only the root's first `max` folders and `.md` files in name order are
 * watched, and in each folder only its SKILL.md.
 */
export class WatchBound {
  /**
   * The last name the catalog looks at, when the root has more entries than `max`; undefined while
   * it has no more (everything it may hold is watched). Names compare as listDir sorts them.
   */
  private last: string | undefined

  constructor(
    private readonly root: SkillRoot,
    private readonly anchor: string,
    private readonly max: number,
  ) {}

  /** Reads the root's listing for the first bound. */
  async start(): Promise<void> {
    this.last = await this.lastLooked()
  }

  /**
   * Whether chokidar leaves `path` alone. `isFile`: undefined when chokidar asks before its stat.
   * A SKILL.md in a folder, the folders and `.md` files within the bound, and the root itself are watched.
   */
  ignores(path: string, isFile: boolean | undefined): boolean {
    const rel = relative(this.anchor, path)
    if (rel === '' || rel.startsWith('..')) return false
    const parts = rel.split(sep)
    if (parts.length > 1) return parts.length > 2 || parts[1] !== 'SKILL.md'
    const name = parts[0]!
    if (name === this.root.skip) return true
    if (isFile === true && !name.endsWith('.md')) return true
    return this.last !== undefined && name > this.last
  }

  /**
   * After a change of the root's own entries: the bound read again, and which paths came into it
   * (to watch) and left it (to stop watching). A name compares with the old and the new last name:
   * an entry added before the old bound was watched at once (chokidar asked `ignores`).
   */
  async moved(): Promise<{ readonly watch: string[]; readonly unwatch: string[] }> {
    const before = this.last
    const names = await this.countedNames()
    this.last = names.length > this.max ? names[this.max - 1] : undefined
    const within = (last: string | undefined, name: string) => last === undefined || name <= last
    const watch: string[] = []
    const unwatch: string[] = []
    for (const name of names) {
      const was = within(before, name)
      const is = within(this.last, name)
      if (was && !is) unwatch.push(join(this.anchor, name))
      else if (!was && is) watch.push(join(this.anchor, name))
    }
    return { watch, unwatch }
  }

  /** Whether an event at `path` changes the root's own entries (what the bound is taken from). */
  static isRootEntry(anchor: string, path: string): boolean {
    const rel = relative(anchor, path)
    return rel !== '' && !rel.startsWith('..') && basename(path) === rel
  }

  private async lastLooked(): Promise<string | undefined> {
    const names = await this.countedNames()
    return names.length > this.max ? names[this.max - 1] : undefined
  }

  /** The names the catalog counts towards the bound (folders, `.md` files, broken links), sorted as listDir sorts. */
  private async countedNames(): Promise<string[]> {
    let entries
    try {
      entries = await readdir(this.anchor, { withFileTypes: true })
    } catch {
      // The watcher reports a root it cannot read; until then nothing is held back.
      return []
    }
    const names: string[] = []
    for (const entry of entries) {
      if (entry.name === this.root.skip) continue
      let file = entry.isFile()
      if (entry.isSymbolicLink()) file = await stat(join(this.anchor, entry.name)).then((target) => target.isFile(), () => false)
      if (file && !entry.name.endsWith('.md')) continue
      names.push(entry.name)
    }
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  }
}
