import { realpathSync, statSync } from 'node:fs'
import { basename, dirname, relative, sep } from 'node:path'
import type { FSWatcher } from 'chokidar'
import { errorMessage } from 'dsh-core'
import { AppearanceWatches } from './appearance.ts'
import type { SkillRoot } from './roots.ts'
import { WatchBound } from './watch-bound.ts'

export interface WatchOptions {
  readonly usePolling: boolean
  readonly stabilityThresholdMs: number
  readonly pollIntervalMs: number
  readonly maxProjects: number
  readonly followSymlinks: boolean
  /** A root whose watcher failed is tried again no sooner than this after the failure. */
  readonly retryMs: number
  /** What the catalog looks at in a root (`maxRootEntries`): only those folders and `.md` files are watched (watch-bound.ts). */
  readonly maxRootEntries: number
}

/**
 * How a root is watched. `root`: the root exists; chokidar watches it two levels deep (bundles and
 * their SKILL.md), only what the catalog looks at (watch-bound.ts). `ancestor`: it does not exist yet; the nearest existing ancestor is watched for
 * the next missing segment (`AppearanceWatches`), one segment at a time until the root itself can be
 * watched.
 */
type Mode = { readonly kind: 'root'; readonly anchor: string } | { readonly kind: 'ancestor'; readonly anchor: string; readonly next: string }

/** What watches a root now: a chokidar watcher on the root, or a wait for its next segment. */
type Watching = { readonly kind: 'tree'; readonly watcher: FSWatcher } | { readonly kind: 'appearance'; readonly stop: () => void }

interface Watched {
  readonly root: SkillRoot
  readonly owners: Set<string>
  mode: Mode | undefined
  watching: Watching | undefined
  healthy: boolean
  /** The open in progress, so two reads never open two watchers for one root. */
  opening: Promise<void> | undefined
  /** Why the root is not watched (its watcher failed), and when that was; cleared once a watcher is ready. */
  failure: { readonly reason: string; readonly at: number } | undefined
}

/** A root that is not there, or a broken link that will be one once repaired: watched through its ancestor. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP'
}

/** Out of watches, descriptors or memory: no watcher of this root can work now, whatever path the error names. */
const EXHAUSTED = new Set(['EMFILE', 'ENFILE', 'ENOSPC', 'ENOMEM'])

/**
 * An error about one entry under the watched directory (a symlink loop, an unreadable or vanished
 * child): chokidar carries on watching the rest, and discovery reports that entry. Anything else
 * (the anchor itself, exhausted watches) means the root is not watched.
 */
function isEntryError(error: unknown, anchor: string): boolean {
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException
  if (code && EXHAUSTED.has(code)) return false
  return typeof path === 'string' && path !== anchor && !relative(anchor, path).startsWith('..')
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
 * Relevant events within one synchronous batch become one invalidation. A root whose watcher fails
 * (no inotify watches left, an unreadable root) is reported by `unwatched()` with the reason, so the
 * provider re-scans it on reads instead; a later read tries to watch it again after `retryMs`. Every
 * watcher has an error listener for its whole life: no watcher error can reach the host as uncaught.
 */
export class RootWatcher {
  private readonly watched = new Map<string, Watched>()
  private readonly projects = new Map<string, readonly string[]>()
  private readonly appearances: AppearanceWatches
  private queued = false
  private closing = false

  constructor(
    private readonly options: WatchOptions,
    private readonly invalidate: () => void,
    private readonly warn: (message: string) => void,
  ) {
    this.appearances = new AppearanceWatches(options)
  }

  /** Open chokidar watchers (existing roots) and appearance watches (directories a missing root waits in). */
  counts(): { readonly trees: number; readonly appearances: number } {
    const trees = [...this.watched.values()].filter((entry) => entry.watching?.kind === 'tree').length
    return { trees, appearances: this.appearances.size }
  }

  /** Watches every root of a read (those already watched are re-probed). Never throws: a failure is recorded per root. */
  async retain(roots: readonly SkillRoot[], project: string | undefined): Promise<void> {
    if (this.closing) return
    for (const root of roots) {
      let entry = this.watched.get(root.path)
      if (!entry) this.watched.set(root.path, (entry = { root, owners: new Set(), mode: undefined, watching: undefined, healthy: false, opening: undefined, failure: undefined }))
      entry.owners.add(ownerOf(root))
    }
    if (project !== undefined) {
      // Reads from different directories of one project use different package roots: all stay until the project is let go.
      const known = this.projects.get(project) ?? []
      this.projects.delete(project)
      this.projects.set(project, [...new Set([...known, ...roots.filter((root) => root.project === project).map((root) => root.path)])])
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
    await Promise.all(roots.map((root) => this.ensure(root.path)))
  }

  /** Why a root is not watched (its watcher failed, or watching has stopped); undefined while it is watched or was never asked for. */
  unwatched(path: string): string | undefined {
    return this.closing ? 'watching has stopped' : this.watched.get(path)?.failure?.reason
  }

  async close(): Promise<void> {
    this.closing = true
    const entries = [...this.watched.values()]
    this.watched.clear()
    this.projects.clear()
    await Promise.allSettled(entries.map((entry) => entry.opening))
    await Promise.allSettled(entries.map((entry) => this.closeWatcher(entry)))
    this.appearances.close()
  }

  private release(path: string, owner: string): void {
    const entry = this.watched.get(path)
    if (!entry) return
    entry.owners.delete(owner)
    if (entry.owners.size) return
    this.watched.delete(path)
    void this.closeWatcher(entry)
  }

  /**
   * Re-probes the root's mode on every read (a deleted or created root changes it) and (re)opens its
   * watcher if needed; a root whose watcher failed is tried again once `retryMs` has passed.
   */
  private async ensure(path: string): Promise<void> {
    const entry = this.watched.get(path)
    if (!entry || this.closing) return
    while (entry.opening) await entry.opening
    if (entry.failure && Date.now() - entry.failure.at < this.options.retryMs) return
    const opening = this.reopen(entry)
    entry.opening = opening
    try {
      await opening
    } finally {
      entry.opening = undefined
    }
  }

  private async reopen(entry: Watched): Promise<void> {
    let mode: Mode
    try {
      mode = this.probe(entry.root.path)
    } catch (error) {
      return this.fail(entry, error)
    }
    if (entry.watching && entry.healthy && sameMode(entry.mode, mode)) return
    try {
      await this.open(entry, mode)
    } catch (error) {
      await this.fail(entry, error)
    }
  }

  /**
   * A stat per missing segment, and a realpath only for a root that exists: a missing root's
   * ancestor is watched by name (the OS watch resolves links once), so a deep package directory
   * costs no walk of every path component per root.
   */
  private probe(path: string): Mode {
    try {
      if (statSync(path).isDirectory()) return { kind: 'root', anchor: this.options.followSymlinks ? realpathSync.native(path) : path }
    } catch (error) {
      if (!isMissing(error)) throw error
    }
    let next = path
    for (let dir = dirname(path); ; next = dir, dir = dirname(dir)) {
      try {
        if (statSync(dir).isDirectory()) return { kind: 'ancestor', anchor: dir, next }
      } catch (error) {
        if (!isMissing(error)) throw error
      }
      if (dirname(dir) === dir) return { kind: 'ancestor', anchor: dir, next }
    }
  }

  private async open(entry: Watched, mode: Mode): Promise<void> {
    await this.closeWatcher(entry)
    if (mode.kind === 'ancestor') return this.await(entry, mode)
    const { options } = this
    // chokidar loads with the first watcher: a one-shot host (`dsh tools`) never watches.
    const { default: chokidar } = await import('chokidar')
    const bound = new WatchBound(entry.root, mode.anchor, options.maxRootEntries)
    await bound.start()
    const watcher = chokidar.watch(mode.anchor, {
      persistent: true,
      ignoreInitial: true,
      depth: 1,
      ignored: (path, stats) => bound.ignores(path, stats?.isFile()),
      followSymlinks: options.followSymlinks,
      atomic: true,
      awaitWriteFinish: { stabilityThreshold: options.stabilityThresholdMs, pollInterval: options.pollIntervalMs },
      usePolling: options.usePolling,
      interval: options.pollIntervalMs,
    })
    const watching: Watching = { kind: 'tree', watcher }
    entry.watching = watching
    entry.mode = mode
    entry.healthy = false
    const ready = new Promise<void>((resolve, reject) => {
      watcher.once('ready', resolve)
      // For the watcher's whole life, closed or not: an 'error' without a listener would be thrown.
      watcher.on('error', (error: unknown) => {
        if (this.closing || entry.watching !== watching) return
        // The entry is reported by discovery; a new one appearing is worth a look.
        if (isEntryError(error, mode.anchor)) return entry.healthy ? this.queue() : undefined
        if (!entry.healthy) return reject(error)
        // Nothing is reading now: the next read must look, and see the root as not watched.
        void this.fail(entry, error).then(() => this.queue())
      })
    })
    try {
      await ready
    } catch (error) {
      return this.fail(entry, error)
    }
    entry.healthy = true
    entry.failure = undefined
    const rebound = boundKeeper(bound, watcher, () => !this.closing && entry.watching === watching)
    watcher.on('all', (event, path) => {
      if (this.closing || entry.watching !== watching) return
      if (event !== 'change' && WatchBound.isRootEntry(mode.anchor, path)) rebound()
      if (!relevant(entry.root, mode.anchor, event, path)) return
      if (event === 'unlinkDir' && path === mode.anchor) this.rewatch(entry)
      else this.queue()
    })
  }

  /** Waits for the root's next missing segment; once it appears, the root is watched one level closer. */
  private await(entry: Watched, mode: Extract<Mode, { kind: 'ancestor' }>): void {
    let watching: Watching | undefined
    const current = () => !this.closing && watching !== undefined && entry.watching === watching
    try {
      const stop = this.appearances.watch(mode.anchor, basename(mode.next), {
        appeared: () => {
          if (current()) this.rewatch(entry)
        },
        failed: (error) => {
          // Nothing is reading now: the next read must look, and see the root as not watched.
          if (current()) void this.fail(entry, error).then(() => this.queue())
        },
      })
      watching = { kind: 'appearance', stop }
    } catch (error) {
      entry.mode = mode
      return void this.fail(entry, error)
    }
    entry.watching = watching
    entry.mode = mode
    entry.healthy = true
    entry.failure = undefined
  }

  /** The root cannot be watched now: say why once, and stop its watcher; reads re-scan it instead. */
  private async fail(entry: Watched, error: unknown): Promise<void> {
    const reason = errorMessage(error)
    if (entry.failure?.reason !== reason) this.warn(`cannot watch skill root ${entry.root.path} (${reason}); reads re-scan it instead`)
    entry.failure = { reason, at: Date.now() }
    await this.closeWatcher(entry)
  }

  /** The root appeared or went away: look again now, and watch it the new way. */
  private rewatch(entry: Watched): void {
    entry.healthy = false
    this.queue()
    void this.ensure(entry.root.path).then(() => this.queue())
  }

  private async closeWatcher(entry: Watched): Promise<void> {
    const watching = entry.watching
    entry.watching = undefined
    entry.healthy = false
    if (!watching) return
    try {
      if (watching.kind === 'tree') await watching.watcher.close()
      else watching.stop()
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

/**
 * Moves a watcher's bound after changes of its root's entries: one listing at a time, and one more
 * after it when more changes came meanwhile. An entry past the bound is never watched, so its
 * coming and going moves nothing (the catalog's count of entries not looked at is then as of its
 * last rebuild).
 */
function boundKeeper(bound: WatchBound, watcher: FSWatcher, live: () => boolean): () => void {
  let running = false
  let again = false
  const run = async (): Promise<void> => {
    running = true
    try {
      do {
        again = false
        const { watch, unwatch } = await bound.moved()
        if (!live()) return
        if (unwatch.length) watcher.unwatch(unwatch)
        if (watch.length) watcher.add(watch)
      } while (again)
    } finally {
      running = false
    }
  }
  return () => {
    if (running) again = true
    else void run().catch(() => undefined)
  }
}

function ownerOf(root: SkillRoot): string {
  return root.project !== undefined ? `project:${root.project}` : `shared:${root.path}`
}

function sameMode(a: Mode | undefined, b: Mode): boolean {
  return a !== undefined && a.kind === b.kind && a.anchor === b.anchor && (a.kind === 'root' || (b.kind === 'ancestor' && a.next === b.next))
}
