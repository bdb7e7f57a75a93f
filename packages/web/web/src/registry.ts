import { errorMessage, type Capability, type CapabilityStatus } from 'dsh-core'
import { WebError } from './errors.ts'
import type { WebProviderBase, WebProviderKind } from './types.ts'

/**
 * The providers of one kind and the rule that picks one for each call. Selection depends only on
 * the configured id and on which providers are usable now, never on registration order.
 */
export class ProviderRegistry<P extends WebProviderBase> {
  private readonly providers = new Map<string, P>()

  constructor(
    readonly kind: WebProviderKind,
    /** From config, else the environment override; fixed for the service's life. */
    readonly configuredId: string | undefined,
  ) {}

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

  /** The provider for this call, or the coded reason there is none. */
  select(): P {
    const { configuredId, kind } = this
    if (configuredId !== undefined) {
      const provider = this.providers.get(configuredId)
      if (!provider) throw new WebError(`configured web ${kind} provider "${configuredId}" is not registered`, 'WEB_PROVIDER_CONFIGURED_MISSING')
      const check = usability(provider)
      if (!check.usable) {
        throw new WebError(`configured web ${kind} provider "${configuredId}" is registered but unavailable${check.reason ? `: ${check.reason}` : ''}`, 'WEB_PROVIDER_CONFIGURED_UNAVAILABLE')
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
    const checked = this.sortedIds().map((id) => ({ id, provider: this.providers.get(id)!, ...usability(this.providers.get(id)!) }))
    const usable = checked.filter((entry) => entry.usable)
    if (usable.length === 1) return usable[0]!.provider
    if (usable.length > 1) {
      throw new WebError(
        `multiple usable web ${kind} providers are registered (${usable.map((entry) => entry.id).join(', ')}); configure one explicitly (${kind}Provider, or ${envOverride(kind)})`,
        'WEB_PROVIDER_AMBIGUOUS',
      )
    }
    const reasons = checked.map((entry) => `${entry.id}: ${entry.reason || 'unavailable'}`)
    throw new WebError(`no usable web ${kind} provider is registered${reasons.length ? ` (${reasons.join('; ')})` : ''}`, 'WEB_PROVIDER_UNAVAILABLE')
  }

  /** The `dsh status` row for one provider id: its own state, plus whether selection would use it. */
  capability(id: string): Capability {
    return {
      surface: 'web',
      id: `${this.kind}:${id}`,
      configured: true,
      status: () => this.statusOf(id, (provider) => ownStatus(provider)),
      probe: async (context) => {
        const provider = this.providers.get(id)
        const own = provider?.probe ? await provider.probe(context) : undefined
        return this.statusOf(id, (registered) => own ?? ownStatus(registered))
      },
    }
  }

  private statusOf(id: string, own: (provider: P) => CapabilityStatus): CapabilityStatus {
    const provider = this.providers.get(id)
    if (!provider) {
      return { state: 'unavailable', detail: `${this.kind}Provider is "${id}", but no provider with that id is registered (is its row mounted?)` }
    }
    const status = own(provider)
    return { state: status.state, detail: [status.detail, this.selectionNote(id)].filter(Boolean).join('; ') }
  }

  private selectionNote(id: string): string {
    if (this.configuredId !== undefined) return this.configuredId === id ? '' : `not selected: ${this.kind}Provider is "${this.configuredId}"`
    const usable = this.sortedIds().filter((other) => usability(this.providers.get(other)!).usable)
    if (usable.length > 1 && usable.includes(id)) return `ambiguous: ${usable.join(', ')} are all usable; set ${this.kind}Provider`
    return ''
  }

  private sortedIds(): string[] {
    return [...this.providers.keys()].sort()
  }
}

function usability(provider: WebProviderBase): { usable: boolean; reason: string } {
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

export function envOverride(kind: WebProviderKind): string {
  return kind === 'search' ? 'DSH_WEB_SEARCH_PROVIDER' : 'DSH_WEB_FETCH_PROVIDER'
}

