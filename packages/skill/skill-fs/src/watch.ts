import { realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'
import chokidar, { type FSWatcher } from 'chokidar'
import { errorMessage } from 'dsh-core'
import type { SkillRoot } from './roots.ts'

export interface WatchOptions {
  readonly usePolling: boolean
  readonly stabilityThresholdMs: number
  readonly pollIntervalMs: number
  readonly maxProjects: number
  readonly followSymlinks: boolean
}

/**
 * How a root is watched. `root`: the root exists; chokidar watches it two levels deep (bundles and
 * their SKILL.md). `ancestor`: it does not exist yet; chokidar watches the nearest existing ancestor
 * for the next missing segment, one segment at a time until the root itself can be watched.
 */
type Mode = { readonly kind: 'root'; readonly anchor: string } | { readonly kind: 'ancestor'; readonly anchor: string; readonly next: string }

interface Watched {
  readonly root: SkillRoot
  readonly owners: Set<string>
  mode: Mode | undefined
  watcher: FSWatcher | undefined
  healthy: boolean
  /** The open in progress, so two reads never open two watchers for one root. */
  opening: Promise<void> | undefined
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Where `path` sits under `base` (a root, or its canonical anchor): its parts, [] for `base` itself, undefined outside it or under the root's skipped child. */
function partsUnder(base: string, root: SkillRoot, path: string): string[] | undefined {
  const rel = relative(base, path)
  if (rel === '') return []
  if (rel.startsWith('..')) return undefined
  const parts = rel.split(sep)
  return parts[0] === root.skip ? undefined : parts
}

/** `<name>.md` (flat) or `<name>/SKILL.md` (a bundle). */
function isSkillFile(parts: readonly string[]): boolean {
  return (parts.length === 1 && parts[0]!.endsWith('.md')) || (parts.length === 2 && parts[1] === 'SKILL.md')
}

/** Which events under a root can change what it offers. */
function relevant(root: SkillRoot, anchor: string, event: string, path: string): boolean {
  const parts = partsUnder(anchor, root, path)
  if (!parts) return false
  if (event === 'addDir' || event === 'unlinkDir') return parts.length <= 1
  return (event === 'add' || event === 'change' || event === 'unlink') && isSkillFile(parts)
}

/** A path a writer may have just turned into (or out of) a skill of this root. */
export function isSkillPath(root: SkillRoot, path: string): boolean {
  const parts = partsUnder(root.path, root, path)
  return parts !== undefined && isSkillFile(parts)
}

/**
 * Keeps chokidar watchers on the roots recent reads used. Project roots are grouped per project in
 * a least-recently-read list capped at `maxProjects`; shared roots (user, custom, bundled) stay.
 * Relevant events within one synchronous batch become one invalidation. A watcher that fails makes
 * `retain()` throw (the read is then incomplete: the catalog keeps its last good version) until a
 * later read manages to watch again.
 */
export class RootWatcher {
  private readonly watched = new Map<string, Watched>()
  private readonly projects = new Map<string, readonly string[]>()
  private queued = false
  private closing = false

  constructor(
    private readonly options: WatchOptions,
    private readonly invalidate: () => void,
    private readonly warn: (message: string) => void,
  ) {}

  async retain(roots: readonly SkillRoot[], project: string | undefined): Promise<void> {
    if (this.closing) return
    for (const root of roots) {
      let entry = this.watched.get(root.path)
      if (!entry) this.watched.set(root.path, (entry = { root, owners: new Set(), mode: undefined, watcher: undefined, healthy: false, opening: undefined }))
      entry.owners.add(ownerOf(root))
    }
    if (project !== undefined) {
      this.projects.delete(project)
      this.projects.set(project, roots.filter((root) => root.project === project).map((root) => root.path))
      let evicted = false
      while (this.projects.size > this.options.maxProjects) {
        const [oldest, paths] = this.projects.entries().next().value!
        this.projects.delete(oldest)
        for (const path of paths) this.release(path, `project:${oldest}`)
        evicted = true
      }
      // Whatever the evicted projects showed is no longer watched: their next read must look again.
      if (evicted) this.queue()
    }
    const results = await Promise.allSettled(roots.map((root) => this.ensure(root.path)))
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected')
    if (failed) throw failed.reason
  }

  async close(): Promise<void> {
    this.closing = true
    const entries = [...this.watched.values()]
    this.watched.clear()
    this.projects.clear()
    await Promise.allSettled(entries.map((entry) => entry.opening))
    await Promise.allSettled(entries.map((entry) => this.closeWatcher(entry)))
  }

  private release(path: string, owner: string): void {
    const entry = this.watched.get(path)
    if (!entry) return
    entry.owners.delete(owner)
    if (entry.owners.size) return
    this.watched.delete(path)
    void this.closeWatcher(entry)
  }

  /** Re-probes the root's mode on every read (a deleted or created root changes it) and (re)opens its watcher if needed. */
  private async ensure(path: string): Promise<void> {
    const entry = this.watched.get(path)
    if (!entry || this.closing) return
    while (entry.opening) await entry.opening.catch(() => {})
    const mode = this.probe(entry.root.path)
    if (entry.watcher && entry.healthy && sameMode(entry.mode, mode)) return
    const opening = this.open(entry, mode)
    entry.opening = opening
    try {
      await opening
    } finally {
      entry.opening = undefined
    }
  }

  private probe(path: string): Mode {
    const canonical = (dir: string) => (this.options.followSymlinks ? realpathSync.native(dir) : dir)
    try {
      if (statSync(path).isDirectory()) return { kind: 'root', anchor: canonical(path) }
    } catch (error) {
      if (!isMissing(error)) throw error
    }
    let next = path
    for (let dir = dirname(path); ; next = dir, dir = dirname(dir)) {
      try {
        if (statSync(dir).isDirectory()) {
          const anchor = realpathSync.native(dir)
          return { kind: 'ancestor', anchor, next: join(anchor, basename(next)) }
        }
      } catch (error) {
        if (!isMissing(error)) throw error
      }
      if (dirname(dir) === dir) return { kind: 'ancestor', anchor: dir, next: join(dir, basename(next)) }
    }
  }

  private async open(entry: Watched, mode: Mode): Promise<void> {
    await this.closeWatcher(entry)
    const { options } = this
    const watcher = chokidar.watch(mode.anchor, {
      persistent: true,
      ignoreInitial: true,
      depth: mode.kind === 'root' ? 1 : 0,
      followSymlinks: options.followSymlinks,
      atomic: true,
      awaitWriteFinish: { stabilityThreshold: options.stabilityThresholdMs, pollInterval: options.pollIntervalMs },
      usePolling: options.usePolling,
      interval: options.pollIntervalMs,
    })
    entry.watcher = watcher
    entry.mode = mode
    entry.healthy = false
    let ready = false
    try {
      await new Promise<void>((resolve, reject) => {
        watcher.once('ready', resolve)
        watcher.once('error', reject)
      })
    } catch (error) {
      this.warn(`cannot watch skill root ${entry.root.path}: ${errorMessage(error)}`)
      await this.closeWatcher(entry)
      throw error
    }
    ready = true
    entry.healthy = true
    watcher.on('all', (event, path) => {
      if (this.closing || entry.watcher !== watcher) return
      if (mode.kind === 'ancestor') {
        // Only the next missing segment appearing matters; then watch one level closer.
        if (path === mode.next || path.startsWith(mode.next + sep)) this.rewatch(entry)
        return
      }
      if (!relevant(entry.root, mode.anchor, event, path)) return
      if (event === 'unlinkDir' && path === mode.anchor) this.rewatch(entry)
      else this.queue()
    })
    watcher.on('error', (error) => {
      if (this.closing || entry.watcher !== watcher || !ready) return
      this.warn(`watching skill root ${entry.root.path} failed: ${errorMessage(error)}`)
      this.rewatch(entry)
    })
  }

  /** The mode changed or the watcher broke: look again now, and watch again. */
  private rewatch(entry: Watched): void {
    entry.healthy = false
    this.queue()
    void this.ensure(entry.root.path).then(
      () => this.queue(),
      () => {
        // The next read retries, and reports itself incomplete until it succeeds.
      },
    )
  }

  private async closeWatcher(entry: Watched): Promise<void> {
    const watcher = entry.watcher
    entry.watcher = undefined
    entry.healthy = false
    if (!watcher) return
    try {
      await watcher.close()
    } catch (error) {
      this.warn(`closing the watcher of ${entry.root.path} failed: ${errorMessage(error)}`)
    }
  }

  private queue(): void {
    if (this.queued || this.closing) return
    this.queued = true
    queueMicrotask(() => {
      this.queued = false
      if (!this.closing) this.invalidate()
    })
  }
}

function ownerOf(root: SkillRoot): string {
  return root.project !== undefined ? `project:${root.project}` : `shared:${root.path}`
}

function sameMode(a: Mode | undefined, b: Mode): boolean {
  return a !== undefined && a.kind === b.kind && a.anchor === b.anchor && (a.kind === 'root' || (b.kind === 'ancestor' && a.next === b.next))
}
