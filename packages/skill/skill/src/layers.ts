import type { ProviderControl, ScopeKey, SkillDefinition, SkillProvider } from './types.ts'

export interface ProviderEntry {
  readonly provider: SkillProvider
  readonly name: string
  /** Service-wide registration order: the tie-break after rank. */
  readonly order: number
  readonly control: ProviderControl
}

/** One layer: the global one, or one scope's. Provider names and runtime skill names are unique in it. */
export interface Layer {
  readonly providers: Map<string, ProviderEntry>
  readonly runtime: Map<string, SkillDefinition>
}

function emptyLayer(): Layer {
  return { providers: new Map(), runtime: new Map() }
}

/** The global layer, per-scope layers created on first registration, and the scopes' parent links. */
export class Layers {
  readonly global: Layer = emptyLayer()
  private readonly scoped = new WeakMap<ScopeKey, Layer>()
  private readonly parents = new WeakMap<ScopeKey, ScopeKey>()
  private readonly ids = new WeakMap<ScopeKey, number>()
  private nextId = 1

  /** `maxChain` caps a scope chain's length, so a cycle made by re-binding cannot hang a read. */
  constructor(private readonly maxChain: number) {}

  /** The layer registrations with this scope go into, created if needed. */
  layerFor(scope: ScopeKey | undefined): Layer {
    if (!scope) return this.global
    let layer = this.scoped.get(scope)
    if (!layer) this.scoped.set(scope, (layer = emptyLayer()))
    return layer
  }

  /** Forgets a scope's layer once nothing is registered in it. */
  release(scope: ScopeKey | undefined, layer: Layer): void {
    if (scope && !layer.providers.size && !layer.runtime.size && this.scoped.get(scope) === layer) this.scoped.delete(scope)
  }

  bind(scope: ScopeKey, parent: ScopeKey | undefined): void {
    if (parent) this.parents.set(scope, parent)
    else this.parents.delete(scope)
  }

  /** The scope, its parent, its parent's parent, …: nearest first. */
  chain(scope: ScopeKey | undefined): ScopeKey[] {
    const chain: ScopeKey[] = []
    for (let current = scope; current && chain.length < this.maxChain && !chain.includes(current); current = this.parents.get(current)) chain.push(current)
    return chain
  }

  /** The layers a view of `chain` merges, in merge order: global first, the nearest scope last. */
  merged(chain: readonly ScopeKey[]): Layer[] {
    const layers = [this.global]
    for (let index = chain.length - 1; index >= 0; index--) {
      const layer = this.scoped.get(chain[index]!)
      if (layer) layers.push(layer)
    }
    return layers
  }

  /**
   * The cache identity of a chain: the ids of its scopes that have a layer. Scopes without one
   * change nothing, so every session without scoped registrations shares the global observation;
   * a layer appearing or going away always comes with a new revision.
   */
  key(chain: readonly ScopeKey[]): number[] {
    return chain.filter((scope) => this.scoped.has(scope)).map((scope) => this.idOf(scope))
  }

  /** A stable number per scope object, for cache keys. */
  idOf(scope: ScopeKey): number {
    let id = this.ids.get(scope)
    if (id === undefined) this.ids.set(scope, (id = this.nextId++))
    return id
  }
}
