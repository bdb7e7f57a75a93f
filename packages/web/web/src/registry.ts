import { errorMessage, type Capability, type CapabilityStatus } from 'dsh-core'
import { WebError } from './errors.ts'
import type { WebProviderBase, WebProviderKind } from './types.ts'

/**
 * The providers of one kind, and the rule that picks the one provider when selection wants exactly
 * one (a pinned id, or the sole usable provider). It depends only on the id asked for and on which
 * providers are usable now, never on registration order.
 */
export class ProviderRegistry<P extends WebProviderBase> {
  private readonly providers = new Map<string, P>()

  constructor(readonly kind: WebProviderKind) {}

  /** Checks a registration; throws synchronously so the registering plugin fails at load. */
  admit(provider: P): string {
    const id: unknown = provider?.id
    if (typeof id !== 'string' || !id.trim()) throw new WebError(`a web ${this.kind} provider needs a non-empty string id`, 'WEB_INVALID_PROVIDER')
    // A provider's working method is named after its kind: search() or fetch().
    for (const method of [this.kind, 'available'] as const) {
      if (typeof (provider as unknown as Record<string, unknown>)[method] !== 'function') {
        throw new WebError(`web ${this.kind} provider "${id}" has no ${method}() method`, 'WEB_INVALID_PROVIDER')
      }
    }
    if (this.providers.has(id)) throw new WebError(`a web ${this.kind} provider with id "${id}" is already registered`, 'WEB_DUPLICATE_PROVIDER')
    return id
  }

  add(id: string, provider: P): () => void {
    this.providers.set(id, provider)
    return () => {
      if (this.providers.get(id) === provider) this.providers.delete(id)
    }
  }

  get(id: string): P | undefined {
    return this.providers.get(id)
  }

  /** Registered ids, sorted: the order of every list and message, and of `searchProvider: auto`. */
  ids(): string[] {
    return [...this.providers.keys()].sort()
  }

  /** The provider for this call: the pinned one, or the sole usable one; else the coded reason there is none. */
  select(pinned: string | undefined, pinnedBy = `${this.kind}Provider`): P {
    const { kind } = this
    if (pinned !== undefined) {
      const provider = this.providers.get(pinned)
      if (!provider) throw new WebError(`configured web ${kind} provider "${pinned}" is not registered (${this.registeredNote()})`, 'WEB_PROVIDER_CONFIGURED_MISSING')
      const check = usability(provider)
      if (!check.usable) {
        throw new WebError(`configured web ${kind} provider "${pinned}" is registered but unavailable${check.reason ? `: ${check.reason}` : ''}`, 'WEB_PROVIDER_CONFIGURED_UNAVAILABLE')
      }
      return provider
    }
    // The common case without sorting or building messages: exactly one usable provider.
    let only: P | undefined
    let usableCount = 0
    for (const provider of this.providers.values()) {
      if (usability(provider).usable) {
        only = provider
        usableCount++
      }
    }
    if (usableCount === 1) return only!
    const checked = this.ids().map((id) => ({ id, ...usability(this.providers.get(id)!) }))
    const usable = checked.filter((entry) => entry.usable)
    if (usable.length > 1) {
      throw new WebError(
        `multiple usable web ${kind} providers are registered (${usable.map((entry) => entry.id).join(', ')}); configure one explicitly (${pinnedBy}, or ${envOverride(kind)})`,
        'WEB_PROVIDER_AMBIGUOUS',
      )
    }
    const reasons = checked.map((entry) => `${entry.id}: ${entry.reason || 'unavailable'}`)
    throw new WebError(`no usable web ${kind} provider is registered${reasons.length ? ` (${reasons.join('; ')})` : ''}`, 'WEB_PROVIDER_UNAVAILABLE')
  }

  /** What is registered instead, for the message about an id that is not: the ids, or that there are none. */
  private registeredNote(): string {
    const ids = this.ids()
    return ids.length ? `registered: ${ids.join(', ')}` : `no web ${this.kind} provider is registered; is its row mounted?`
  }

  /** The sorted ids of the providers usable now. */
  usableIds(): string[] {
    return this.ids().filter((id) => usability(this.providers.get(id)!).usable)
  }

  /**
   * The `dsh status` row for one id: `row` turns the provider's own status (undefined when no
   * provider has that id; `probed` when it comes from the provider's probe) into the row, adding
   * what selection does with it.
   */
  capability(id: string, row: (own: CapabilityStatus | undefined, probed: boolean) => CapabilityStatus): Capability {
    return {
      surface: 'web',
      id: `${this.kind}:${id}`,
      configured: true,
      status: () => {
        const provider = this.providers.get(id)
        return row(provider && ownStatus(provider), false)
      },
      probe: async (context) => {
        const provider = this.providers.get(id)
        if (provider?.probe) return row(await provider.probe(context), true)
        return row(provider && ownStatus(provider), false)
      },
    }
  }
}

export function usability(provider: WebProviderBase): { usable: boolean; reason: string } {
  try {
    if (provider.available()) return { usable: true, reason: '' }
    return { usable: false, reason: provider.status ? provider.status().detail : '' }
  } catch (error) {
    // A provider's own bug must not break selection for the others.
    return { usable: false, reason: `available() threw: ${errorMessage(error)}` }
  }
}

function ownStatus(provider: WebProviderBase): CapabilityStatus {
  try {
    if (provider.status) return provider.status()
    return provider.available() ? { state: 'ready', detail: '' } : { state: 'unavailable', detail: 'the provider reports itself unavailable' }
  } catch (error) {
    return { state: 'unavailable', detail: errorMessage(error) }
  }
}

/** A row's detail: its parts that say something, joined (a sentence's full stop gives way to the separator). */
export function joinDetail(...parts: readonly string[]): string {
  const said = parts.filter(Boolean)
  return said.map((part, index) => (index < said.length - 1 ? part.replace(/\.$/, '') : part)).join('; ')
}

export function envOverride(kind: WebProviderKind): string {
  return kind === 'search' ? 'DSH_WEB_SEARCH_PROVIDER' : 'DSH_WEB_FETCH_PROVIDER'
}
