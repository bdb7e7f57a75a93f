import { Context, Service } from 'cordis'
import { configParser, errorMessage, Lifetime, scopeLifetime, throwIfAborted, untracked, type AbortFallback } from 'dsh-core'
import { z } from 'zod'
import { capSkillContent } from './cap.ts'
import { SkillError } from './errors.ts'
import { Layers, type Layer, type ProviderEntry } from './layers.ts'
import { compareNames, isSkillName, skillNameProblem } from './name.ts'
import { checkDefinition, checkObservation, policyProblem, summaryOf } from './validate.ts'
import { SkillRank, type ProviderControl, type RuntimeSkill, type ScopeKey, type SkillCandidate, type SkillDefinition, type SkillProvider, type SkillSnapshot, type SkillSummary, type ViewOptions } from './types.ts'

declare module 'cordis' {
  interface Context {
    skills: SkillRegistry
  }
}

export const SkillsConfig = z.strictObject({
  /** Completed observations kept (one per workspace × scope chain); the oldest goes first. */
  collectCacheMaxEntries: z.number().int().min(1).default(128),
  /** Scopes a view follows up its parent links (the scope itself included); farther ancestors are not merged, and a cycle cannot hang a read. */
  scopeChainMaxLength: z.number().int().min(1).default(64),
  /**
   * While something listens for changes (`onChange`: `dsh serve`), a view whose observation expires
   * (a provider that cannot watch what it read, such as skill-fs with `watch: false`) is listed again
   * when it expires, no sooner than this; a different answer is a change.
   */
  recheckMinMs: z.number().int().min(1).default(1000),
  /**
   * Characters of a skill's instructions the model is given at one load: the `skill` tool, `/name`
   * and `dsh serve`'s `prompts/get` alike (`forModel`). A longer body is cut at a line end with a
   * note naming the file the rest is in; a body the size of skill-fs's `maxSkillFileBytes` would
   * otherwise fill the model's context at one load.
   */
  loadMaxChars: z.number().int().min(1000).default(100_000),
})
export type SkillsConfig = z.infer<typeof SkillsConfig>

/** Where a registration goes: the global layer, or a scope's. */
export interface RegisterOptions {
  readonly scope?: ScopeKey
}

/** The winner of a name in one view, with the way to load it. */
interface Winner {
  readonly candidate: SkillCandidate
  readonly providerName: string
  readonly load: (candidate: SkillCandidate, options: ViewOptions) => Promise<unknown>
  /** Re-lists the provider next time (a stale load); a no-op once the registration is gone. */
  readonly invalidate: () => void
}

interface Collected {
  readonly winners: ReadonlyMap<string, Winner>
  readonly skills: readonly SkillSummary[]
  /** Skills left out because their workspace is not trusted. */
  readonly untrusted: number
}

/** A cached observation, answered until a new revision or, for providers that said so, until `expiresAt` (ms since the epoch). */
interface Cached {
  readonly collected: Collected
  readonly expiresAt: number
}

interface Ranked {
  readonly winner: Winner
  readonly rank: number
  readonly order: number
  readonly index: number
}

const runtimeControl: ProviderControl = { signal: new Lifetime().signal, invalidate: () => {} }

/** What a read throws when the caller's signal aborted without an Error reason of its own. */
const readAborted: AbortFallback = (reason) => new SkillError(`skill read aborted: ${errorMessage(reason)}`, 'SKILL_ABORTED', { cause: reason })

/**
 * `ctx.skills`: a layered skill registry. Providers offer candidates; in each layer the lowest rank
 * (then the earlier registration, then the earlier position) wins a name; across layers the nearest
 * scope wins outright. Bodies are loaded through the winning provider only when asked for.
 * Completed observations are cached per (workspace, scope chain, revision); every registration
 * change and every provider invalidation starts a new revision.
 */
export class SkillRegistry extends Service {
  static Config = configParser(SkillsConfig)

  private readonly layers: Layers
  private readonly cache = new Map<string, Cached>()
  private readonly listeners = new Set<() => unknown>()
  /** Every live provider registration, whatever its layer (scoped layers are not enumerable). */
  private readonly live = new Set<ProviderEntry>()
  private readonly settings: SkillsConfig
  /** The registry's plugin scope: provider controls and rechecks end with it. */
  private readonly lifetime: Lifetime
  /** Views (cwd and scope chain) with a recheck waiting for their observation to expire. */
  private readonly rechecks = new Set<string>()
  private revision = 0
  private order = 0

  constructor(ctx: Context, config: SkillsConfig) {
    super(ctx, 'skills', true)
    this.settings = SkillRegistry.Config(config)
    this.layers = new Layers(this.settings.scopeChainMaxLength)
    this.lifetime = scopeLifetime(ctx, () => new SkillError('the skill registry was unloaded', 'SKILL_PROVIDER_DISPOSED'))
  }

  /**
   * Registers a provider; an effect on the caller's scope. The factory runs now and receives the
   * provider's control; if it throws, or registration fails, the control's signal aborts with the error.
   */
  registerProvider(factory: (control: ProviderControl) => SkillProvider, options: RegisterOptions = {}): () => void {
    const registry = untracked(this)
    const { scope } = options
    const lifetime = registry.lifetime.child()
    let entry: ProviderEntry | undefined
    let layer: Layer | undefined
    const control: ProviderControl = {
      signal: lifetime.signal,
      invalidate: () => {
        if (entry && layer?.providers.get(entry.name) === entry) registry.changed()
      },
    }
    try {
      const provider = factory(control)
      const name: unknown = provider?.name
      if (typeof name !== 'string' || !name) throw new SkillError('a skill provider needs a non-empty string name', 'SKILL_INVALID_PROVIDER')
      if (name === 'runtime') throw new SkillError('the skill provider name "runtime" is reserved for skills registered in code', 'SKILL_INVALID_PROVIDER')
      if (typeof provider.list !== 'function' || typeof provider.get !== 'function') {
        throw new SkillError(`skill provider "${name}" needs list() and get() functions`, 'SKILL_INVALID_PROVIDER')
      }
      const created: ProviderEntry = { provider, name, order: this.order++, control }
      return this.ctx.effect(() => {
        const target = registry.layers.layerFor(scope)
        if (target.providers.has(name)) {
          registry.layers.release(scope, target)
          throw new SkillError(`a skill provider named "${name}" is already registered${scope ? ' in this scope' : ''}`, 'SKILL_DUPLICATE_PROVIDER')
        }
        target.providers.set(name, created)
        registry.live.add(created)
        entry = created
        layer = target
        registry.changed()
        return () => {
          if (target.providers.get(name) !== created) return
          target.providers.delete(name)
          registry.live.delete(created)
          registry.layers.release(scope, target)
          lifetime.abort(new SkillError(`skill provider "${name}" was disposed`, 'SKILL_PROVIDER_DISPOSED'))
          registry.changed()
        }
      })
    } catch (error) {
      lifetime.abort(error)
      throw error
    }
  }

  /**
   * Registers a skill defined in code (rank 250 in its layer); an effect on the caller's scope. The
   * first registration of a name in a layer wins: a later one is logged and gets a disposer that does nothing.
   */
  register(skill: RuntimeSkill, options: RegisterOptions = {}): () => void {
    const registry = untracked(this)
    const nameProblem = skillNameProblem(skill?.name)
    if (nameProblem) throw new SkillError(`runtime skill ${JSON.stringify(skill?.name)}: ${nameProblem}`, 'SKILL_INVALID_SKILL')
    if (typeof skill.description !== 'string' || !skill.description) throw new SkillError(`runtime skill "${skill.name}" needs a non-empty description`, 'SKILL_INVALID_SKILL')
    if (typeof skill.content !== 'string') throw new SkillError(`runtime skill "${skill.name}" needs a string content`, 'SKILL_INVALID_SKILL')
    if (skill.invocation !== undefined) {
      const problem = policyProblem(skill.invocation)
      if (problem) throw new SkillError(`runtime skill "${skill.name}": ${problem}`, 'SKILL_INVALID_SKILL')
    }
    const stored: SkillDefinition = {
      ...skill,
      invocation: skill.invocation ?? { modelInvocable: true, userInvocable: true },
      provider: skill.provider ?? 'runtime',
      source: skill.source ?? 'runtime',
    }
    const { scope } = options
    return this.ctx.effect(() => {
      const layer = registry.layers.layerFor(scope)
      if (layer.runtime.has(stored.name)) {
        this.ctx.logger('skills').warn(`runtime skill "${stored.name}" is already registered${scope ? ' in this scope' : ''}; the first registration stays`)
        return () => {}
      }
      layer.runtime.set(stored.name, stored)
      registry.changed()
      return () => {
        if (layer.runtime.get(stored.name) !== stored) return
        layer.runtime.delete(stored.name)
        registry.layers.release(scope, layer)
        registry.changed()
      }
    })
  }

  /** Sets (or, with undefined, clears) the parent of a scope: its views then also see the parent's layers. */
  bindScope(scope: ScopeKey, parent: ScopeKey | undefined): void {
    untracked(this).layers.bind(scope, parent)
  }

  /** Calls `listener` after every change (registrations, invalidations); an effect on the caller's scope. */
  onChange(listener: () => unknown): () => void {
    const registry = untracked(this)
    return this.ctx.effect(() => {
      const entry = () => listener()
      registry.listeners.add(entry)
      return () => registry.listeners.delete(entry)
    })
  }

  /**
   * For writers: a file at `path` was just changed by this process (a file tool's write). Every
   * provider that tracks files is told at once, so the next read sees the edit without waiting for a watcher.
   */
  fileChanged(path: string): void {
    const registry = untracked(this)
    for (const entry of [...registry.live]) registry.tellFileChanged(entry, path)
  }

  async snapshot(view: ViewOptions = {}): Promise<SkillSnapshot> {
    const { collected, complete } = await untracked(this).collect(view)
    return { skills: collected.skills, complete, ...(collected.untrusted ? { untrusted: collected.untrusted } : {}) }
  }

  async list(view: ViewOptions = {}): Promise<readonly SkillSummary[]> {
    return (await this.snapshot(view)).skills
  }

  /** Loads the winning skill of `name` in the view; undefined when there is none. Invocation policy is the caller's business. */
  async get(name: string, view: ViewOptions = {}): Promise<SkillDefinition | undefined> {
    const registry = untracked(this)
    if (!isSkillName(name)) return undefined
    const { collected } = await registry.collect(view)
    throwIfAborted(view.signal, readAborted)
    const winner = collected.winners.get(name)
    if (!winner) return undefined
    const loaded = await Lifetime.run({ signal: view.signal }, () => Promise.resolve().then(() => winner.load(winner.candidate, view)), readAborted)
    if (loaded === undefined) return undefined
    const definition = checkDefinition(winner.providerName, loaded)
    if (definition.name !== winner.candidate.name) {
      // The file changed under us (its name now differs): the listing is stale.
      winner.invalidate()
      return undefined
    }
    return definition
  }

  /**
   * The instructions of a loaded skill as a model is given them: whole up to `loadMaxChars`, past it
   * cut at a line end with a note saying how much was shown and where the rest is (cap.ts). Every
   * consumer that hands a body to a model goes through this, so they share one bound and one note.
   */
  forModel(definition: SkillDefinition): string {
    return capSkillContent(definition, untracked(this).settings.loadMaxChars)
  }

  private tellFileChanged(entry: ProviderEntry, path: string): void {
    try {
      entry.provider.fileChanged?.(path)
    } catch (error) {
      this.ctx.logger('skills').warn(`skill provider "${entry.name}" failed on a file change: ${errorMessage(error)}`)
    }
  }

  /** One observation of the view: from the cache, or collected with one retry when a change raced it. */
  private async collect(view: ViewOptions, fresh = false): Promise<{ collected: Collected; complete: boolean }> {
    throwIfAborted(view.signal, readAborted)
    const chain = this.layers.chain(view.scope)
    const viewKey = JSON.stringify([view.cwd ?? null, this.layers.key(chain)])
    let last: Collected | undefined
    for (let attempt = 0; attempt < 2; attempt++) {
      const revision = this.revision
      const key = `${viewKey}@${revision}`
      const hit = this.cache.get(key)
      if (hit && hit.expiresAt > Date.now() && !fresh) return { collected: hit.collected, complete: true }
      let complete = true
      let maxAgeMs = Infinity
      let untrusted = 0
      const winners = new Map<string, Winner>()
      for (const layer of this.layers.merged(chain)) {
        const result = await this.collectLayer(layer, view)
        complete &&= result.complete
        maxAgeMs = Math.min(maxAgeMs, result.maxAgeMs)
        untrusted += result.untrusted
        // A nearer layer replaces a farther one's skill of the same name, whatever the ranks.
        for (const [name, winner] of result.winners) winners.set(name, winner)
      }
      throwIfAborted(view.signal, readAborted)
      const skills = [...winners.values()].map((winner) => summaryOf(winner.candidate)).sort((a, b) => compareNames(a.name, b.name))
      last = { winners, skills: Object.freeze(skills), untrusted }
      if (this.revision !== revision) continue
      if (complete) {
        this.remember(key, { collected: last, expiresAt: Date.now() + maxAgeMs })
        if (maxAgeMs !== Infinity) this.recheckLater(view, viewKey, last.skills, maxAgeMs)
      }
      return { collected: last, complete }
    }
    // Raced twice: answer, but neither cache it nor call it authoritative.
    return { collected: last!, complete: false }
  }

  /**
   * An observation that expires is not watched: nothing would tell a listener that a re-scan found
   * something new. While someone listens, the view is listed again once it expires (no sooner than
   * `recheckMinMs`); a different answer is a change. The next recheck is planned by that listing.
   */
  private recheckLater(view: ViewOptions, viewKey: string, seen: readonly SkillSummary[], maxAgeMs: number): void {
    if (!this.listeners.size || this.rechecks.has(viewKey) || !this.lifetime.active) return
    this.rechecks.add(viewKey)
    const again: ViewOptions = { ...(view.cwd !== undefined ? { cwd: view.cwd } : {}), ...(view.scope !== undefined ? { scope: view.scope } : {}) }
    void this.lifetime
      .sleep(Math.max(maxAgeMs, this.settings.recheckMinMs))
      .then(async () => {
        this.rechecks.delete(viewKey)
        if (!this.listeners.size) return
        const { collected, complete } = await this.collect(again, true)
        if (complete && !sameSkills(seen, collected.skills)) this.changed()
      })
      .catch(() => {
        // Unloaded meanwhile, or the listing failed: the next read looks again.
        this.rechecks.delete(viewKey)
      })
  }

  private remember(key: string, cached: Cached): void {
    this.cache.set(key, cached)
    while (this.cache.size > this.settings.collectCacheMaxEntries) this.cache.delete(this.cache.keys().next().value!)
  }

  private async collectLayer(layer: Layer, view: ViewOptions): Promise<{ winners: Map<string, Winner>; complete: boolean; maxAgeMs: number; untrusted: number }> {
    const ranked: Ranked[] = []
    const runtime = [...layer.runtime.values()].sort((a, b) => compareNames(a.name, b.name))
    runtime.forEach((skill, index) => {
      const candidate: SkillCandidate = {
        ...summaryOf(skill),
        rank: SkillRank.runtime,
        locator: skill,
        ...(skill.path !== undefined ? { path: skill.path } : {}),
        ...(skill.metadata !== undefined ? { metadata: skill.metadata } : {}),
      }
      ranked.push({ winner: { candidate, providerName: 'runtime', load: async (c) => c.locator, invalidate: runtimeControl.invalidate }, rank: SkillRank.runtime, order: -1, index })
    })
    let complete = true
    let maxAgeMs = Infinity
    let untrusted = 0
    for (const entry of [...layer.providers.values()]) {
      let answer: unknown
      try {
        answer = await Lifetime.run({ signal: view.signal }, () => Promise.resolve().then(() => entry.provider.list(view)), readAborted)
      } catch (error) {
        if (view.signal?.aborted) throw error
        this.ctx.logger('skills').warn(`skill provider "${entry.name}" skipped: ${errorMessage(error)}`)
        complete = false
        continue
      }
      // Unregistered while it was listing: its skills are gone.
      if (layer.providers.get(entry.name) !== entry) continue
      const observation = checkObservation(entry.name, answer)
      complete &&= observation.complete
      maxAgeMs = Math.min(maxAgeMs, observation.maxAgeMs ?? Infinity)
      untrusted += observation.untrusted ?? 0
      const load = (candidate: SkillCandidate, options: ViewOptions) => entry.provider.get(candidate, options)
      observation.candidates.forEach((candidate, index) => {
        ranked.push({ winner: { candidate, providerName: entry.name, load, invalidate: () => entry.control.invalidate() }, rank: candidate.rank, order: entry.order, index })
      })
    }
    ranked.sort((a, b) => a.rank - b.rank || a.order - b.order || a.index - b.index)
    const winners = new Map<string, Winner>()
    for (const { winner } of ranked) {
      const name = winner.candidate.name
      const held = winners.get(name)
      if (held) {
        this.ctx.logger('skills').debug(`skill "${name}" from ${winner.providerName} (${winner.candidate.source}) is shadowed by ${held.providerName} (${held.candidate.source})`)
        continue
      }
      winners.set(name, winner)
    }
    return { winners, complete, maxAgeMs, untrusted }
  }

  /** A new revision: every cached observation is dropped and listeners are told. */
  private changed(): void {
    this.revision++
    this.cache.clear()
    for (const listener of [...this.listeners]) {
      try {
        const result = listener()
        if (result instanceof Promise) result.catch((error: unknown) => this.ctx.logger('skills').warn(`a skills change listener failed: ${errorMessage(error)}`))
      } catch (error) {
        this.ctx.logger('skills').warn(`a skills change listener failed: ${errorMessage(error)}`)
      }
    }
  }
}

function sameSkills(a: readonly SkillSummary[], b: readonly SkillSummary[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b)
}
