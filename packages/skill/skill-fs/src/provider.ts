import { throwIfAborted, type CapabilityRow, type FileSystem, type HostLifetime, type TrustDecider } from 'dsh-core'
import type { Observation, ProviderControl, SkillCandidate, SkillDefinition, SkillProvider, ViewOptions } from 'dsh-skill'
import type { Places, SkillFsConfig } from './config.ts'
import { NOT_TEXT_REASON } from './head.ts'
import { isNotText, loadSkill, UnusableSkillFile } from './load.ts'
import { OutcomeCache, rejected } from './outcomes.ts'
import { findProjectRoot, skillRoots, type SkillRoot } from './roots.ts'
import { scanRoot, type ScannedRoot, type ScanSettings, type SkillLocator } from './scan.ts'
import { newDiagnostics, resolveNames, rootRow, summaryRow, worthARow, type RootReport } from './status.ts'
import { trustedRoots, untrustedNote, untrustedRow, type UntrustedRoot } from './trust.ts'
import { isSkillPath, RootWatcher } from './watch.ts'

export interface Logger {
  warn(message: string): void
}

/** One full look at every root of a workspace. */
export interface Discovery {
  readonly project: string | undefined
  readonly candidates: SkillCandidate[]
  readonly reports: RootReport[]
  /** A passing I/O error was met: the next read must look again rather than trust this one. */
  readonly lookAgain: boolean
}

/** One project's latest read: its roots, and what their scan found when the watcher covered them all. */
interface RecentRead {
  readonly roots: readonly SkillRoot[]
  readonly scanned?: { readonly candidates: SkillCandidate[]; readonly changes: number }
}

/**
 * The filesystem skill provider: SKILL.md files in the project roots (found from the read's cwd),
 * the custom roots, the user roots and a bundled root, read through `ctx.fs`. Every malformed or
 * unreadable file is a rejection with its path and reason (logged once, shown by `dsh status`),
 * never half-loaded, and never hides another file. A root that is not watched is re-scanned on reads
 * older than `rescanMs`.
 */
export class FilesystemSkills {
  readonly provider: SkillProvider
  private readonly watcher: RootWatcher | undefined
  private readonly settings: ScanSettings
  /** Diagnostics already logged (path and reason), so each is said once. */
  private readonly said = new Set<string>()
  private readonly outcomes: OutcomeCache
  /**
   * The roots of recent reads, per project ('' for reads without a cwd): what `fileChanged` checks
   * against; with the candidates their last scan found while every root was watched, and the
   * `changes` count then.
   */
  private readonly recent = new Map<string, RecentRead>()
  /** Changes told so far (a watcher's event, a writer's `fileChanged`, a file found broken at load). */
  private changes = 0
  private closed: Promise<void> | undefined

  constructor(
    private readonly fs: FileSystem,
    private readonly config: SkillFsConfig,
    private readonly places: Places,
    private readonly control: ProviderControl,
    private readonly log: Logger,
    private readonly lifetime: HostLifetime,
    /** Whether a project's own skills may load (`ctx.trust`). */
    private readonly trust: TrustDecider,
  ) {
    this.settings = { maxSkillFileBytes: config.maxSkillFileBytes, maxFrontmatterBytes: config.maxFrontmatterBytes, io: fs.ioMode, readConcurrency: config.readConcurrency, maxRootEntries: config.maxRootEntries }
    this.outcomes = new OutcomeCache(config.parsedCacheMaxEntries)
    // A one-shot command answers once: no change after its read could ever be seen.
    this.watcher =
      config.watch && lifetime === 'long-lived'
        ? new RootWatcher(
            {
              usePolling: config.watchUsePolling,
              stabilityThresholdMs: config.watchStabilityThresholdMs,
              pollIntervalMs: config.watchPollIntervalMs,
              maxProjects: config.watchMaxProjects,
              followSymlinks: config.watchFollowSymlinks,
              retryMs: config.rescanMs,
              maxRootEntries: config.maxRootEntries,
            },
            () => this.changed(),
            (message) => log.warn(message),
          )
        : undefined
    this.provider = {
      name: config.providerName,
      list: (options) => this.list(options),
      get: (candidate, options) => this.get(candidate, options),
      fileChanged: (path) => this.fileChanged(path),
    }
  }

  /** Every root for `cwd`, looked at now (no cache, no watching): the registry caches, `dsh status` wants fresh. */
  async discover(cwd: string | undefined, signal?: AbortSignal): Promise<Discovery> {
    const { project, roots } = await this.rootsFor(cwd, signal)
    return this.scan(project, roots, signal)
  }

  /**
   * The workspace's project (from `cwd`) and every root a read for it looks at; a project root whose
   * directory is not trusted is left out (`untrusted`, said once in the log).
   */
  private async rootsFor(cwd: string | undefined, signal?: AbortSignal): Promise<{ project: string | undefined; roots: SkillRoot[]; untrusted: UntrustedRoot[] }> {
    const project = cwd === undefined ? undefined : await findProjectRoot(this.fs, cwd)
    const { roots, untrusted } = await trustedRoots(this.fs, this.trust, skillRoots(this.config, this.places, project, cwd), signal)
    for (const entry of untrusted) {
      const line = untrustedRow(entry).detail
      if (!this.said.has(line)) {
        this.said.add(line)
        this.log.warn(`skill root ${line}`)
      }
    }
    return { project, roots, untrusted }
  }

  private async scan(project: string | undefined, roots: readonly SkillRoot[], signal: AbortSignal | undefined): Promise<Discovery> {
    const scanned: ScannedRoot[] = []
    for (const root of roots) {
      throwIfAborted(signal)
      scanned.push(await scanRoot(this.fs, root, this.config.providerName, this.settings, this.outcomes))
    }
    const { candidates, reports } = resolveNames(scanned)
    for (const report of reports) for (const line of newDiagnostics(report, this.said)) this.log.warn(line)
    return { project, candidates, reports, lookAgain: scanned.some((root) => root.lookAgain) }
  }

  private async list(options: ViewOptions): Promise<SkillCandidate[] | Observation> {
    const { project, roots, untrusted } = await this.rootsFor(options.cwd, options.signal)
    const key = project ?? ''
    const previous = this.recent.get(key)
    this.remember(key, { roots })
    if (this.watcher && !this.control.signal.aborted) await this.watcher.retain(roots, project)
    const kept = this.unchangedScan(previous, roots)
    const changes = this.changes
    const { candidates, lookAgain } = kept ? { candidates: kept, lookAgain: false } : await this.scan(project, roots, options.signal)
    const watchedAll = !!this.watcher && !lookAgain && roots.every((root) => this.notWatched(root) === undefined)
    if (watchedAll) this.remember(key, { roots, scanned: { candidates, changes } })
    const skipped = untrusted.reduce((sum, entry) => sum + entry.skills, 0)
    const withheld = skipped ? { untrusted: skipped } : {}
    if (lookAgain) return { candidates, complete: true, maxAgeMs: 0, ...withheld }
    // What no watcher covers can change unseen: it is looked at again once this read is old. A
    // root left out as untrusted is one: the user may trust its workspace meanwhile (trust.json
    // changes are not signalled), though then only the trust is asked again (`unchangedScan`).
    const unwatched = !watchedAll || untrusted.length > 0
    return unwatched ? { candidates, complete: true, maxAgeMs: this.config.rescanMs, ...withheld } : candidates
  }

  private async get(candidate: SkillCandidate, options: ViewOptions): Promise<SkillDefinition | undefined> {
    let definition
    try {
      definition = await loadSkill(this.fs, candidate, this.settings, options.signal)
    } catch (error) {
      // Found past what discovery reads: from now on discovery rejects the file for it too.
      if (isNotText(error)) await this.rejectFile((candidate.locator as SkillLocator).path, NOT_TEXT_REASON)
      // Unusable since it was listed: the listing is stale, and the next one rejects the file itself.
      else if (error instanceof UnusableSkillFile) this.changed()
      throw error
    }
    // Gone or broken since it was listed: the listing is stale.
    if (!definition) this.changed()
    return definition
  }

  /** Remembers a rejection found at load for the file as it is now (its size and mtime), and has the catalog look again. */
  private async rejectFile(path: string, reason: string): Promise<void> {
    const info = await this.fs.stat(path).catch(() => undefined)
    if (info) this.outcomes.set(path, info.size, info.mtimeMs, rejected(reason))
    this.changed()
  }

  /** A writer changed `path`: if it can be a skill file of a watched root, the next read looks again at once. */
  fileChanged(path: string): void {
    for (const { roots } of this.recent.values()) {
      if (roots.some((root) => isSkillPath(root, path))) return this.changed()
    }
  }

  /** Something a read found may be stale: count it, and have the registry list again. */
  private changed(): void {
    this.changes++
    this.control.invalidate()
  }

  private remember(project: string, read: RecentRead): void {
    this.recent.delete(project)
    this.recent.set(project, read)
    if (this.recent.size > this.config.watchMaxProjects) this.recent.delete(this.recent.keys().next().value!)
  }

  /**
   * The candidates of the last scan of these roots, when every one of them is watched and nothing
   * changed since: a read that comes back only because a root was left out as untrusted (trust is
   * not signalled, so it is asked again) needs no new look at the roots the watcher covers.
   */
  private unchangedScan(previous: RecentRead | undefined, roots: readonly SkillRoot[]): SkillCandidate[] | undefined {
    const last = previous?.scanned
    if (!last || last.changes !== this.changes || !this.watcher || roots.some((root) => this.notWatched(root) !== undefined)) return undefined
    const before = previous.roots
    return before.length === roots.length && before.every((root, index) => root.path === roots[index]!.path && root.id === roots[index]!.id) ? last.candidates : undefined
  }

  /** `dsh status`: a summary row, then one row per root that has skills, diagnostics or a problem. */
  async statusRows(cwd: string, signal: AbortSignal): Promise<CapabilityRow[]> {
    const { project, roots, untrusted } = await this.rootsFor(cwd, signal)
    // A long-lived host watches what it reports on, so the rows say whether that works.
    if (this.watcher && !this.control.signal.aborted) await this.watcher.retain(roots, project)
    const { reports } = await this.scan(project, roots, signal)
    const summary = summaryRow(this.config.providerName, project, reports, this.watching(roots))
    const notes = [untrustedNote(untrusted), this.homelessNote()].filter((note) => note !== undefined)
    const rows = [notes.length ? { ...summary, detail: [summary.detail, ...notes].join('; ') } : summary]
    for (const report of reports) {
      const notWatched = this.notWatched(report.root)
      if (worthARow(report, notWatched)) rows.push(rootRow(report, notWatched, this.config.statusItemsMax))
    }
    for (const entry of untrusted) rows.push(untrustedRow(entry))
    return rows
  }

  /** The user roots skipped for want of a home, for the summary row. */
  private homelessNote(): string | undefined {
    const { homeless, dshHome } = this.places
    if (homeless === undefined || !this.config.includeDefaultRoots) return undefined
    return `no user skills from ~/.agents and ~/.claude: no home directory (${homeless})${dshHome === undefined ? '; none from ~/.dsh either (set HOME or DSH_HOME)' : ''}`
  }

  /** How the roots are watched, for the summary row. */
  private watching(roots: readonly SkillRoot[]): string {
    if (!this.config.watch) return 'not watching (watch: false)'
    if (this.lifetime === 'one-shot') return 'not watching (a one-shot command)'
    const watched = roots.filter((root) => !this.notWatched(root)).length
    return watched === roots.length ? 'watching' : `watching ${watched} of ${roots.length} roots`
  }

  private notWatched(root: SkillRoot): string | undefined {
    return this.watcher?.unwatched(root.path)
  }

  /** Stops watching; idempotent. Reads still work afterwards, unwatched. */
  close(): Promise<void> {
    return (this.closed ??= this.watcher?.close() ?? Promise.resolve())
  }
}
