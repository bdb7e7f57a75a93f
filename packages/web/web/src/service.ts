import { Context, Service } from 'cordis'
import { z } from 'zod'
import { envOverride, ProviderRegistry } from './registry.ts'
import type { WebFetchProvider, WebFetchRequest, WebFetchResult, WebProviderKind, WebSearchProvider, WebSearchRequest, WebSearchResult } from './types.ts'

declare module 'cordis' {
  interface Context {
    web: WebService
  }
}

const ProviderId = z.string().trim().min(1, 'must be a non-empty provider id')

export const WebConfig = z.strictObject({
  /** Pins search to this provider id; otherwise the single usable provider is used. */
  searchProvider: ProviderId.optional(),
  /** Pins fetch to this provider id; otherwise the single usable provider is used. */
  fetchProvider: ProviderId.optional(),
})
export type WebConfig = z.infer<typeof WebConfig>

/**
 * `ctx.web`: the search and fetch provider registries and per-call selection. Providers register
 * capabilities here, never tools; the tool calls `search()` / `fetch()` and routes on the error code.
 */
export class WebService extends Service {
  static Config = (config: unknown) => WebConfig.parse(config ?? {})
  static inject = { readiness: { required: false } }

  private readonly searchProviders: ProviderRegistry<WebSearchProvider>
  private readonly fetchProviders: ProviderRegistry<WebFetchProvider>

  constructor(ctx: Context, config: WebConfig = {}) {
    super(ctx, 'web', true)
    this.searchProviders = new ProviderRegistry('search', configuredId(config.searchProvider, 'search'))
    this.fetchProviders = new ProviderRegistry('fetch', configuredId(config.fetchProvider, 'fetch'))
    // A pinned id gets its `dsh status` row now, so a provider that never registers still shows why.
    for (const registry of [this.searchProviders, this.fetchProviders]) {
      if (registry.configuredId !== undefined) ctx.get('readiness')?.register(registry.capability(registry.configuredId))
    }
  }

  /** An effect on the caller's scope; the disposer (or unloading the caller) removes the provider. */
  registerSearchProvider(provider: WebSearchProvider): () => void {
    return this.register(this.searchProviders, provider)
  }

  registerFetchProvider(provider: WebFetchProvider): () => void {
    return this.register(this.fetchProviders, provider)
  }

  /** The configured id for a kind (config, else the environment override), if any. */
  configured(kind: WebProviderKind): string | undefined {
    return (kind === 'search' ? this.searchProviders : this.fetchProviders).configuredId
  }

  /** Selects a provider for this call, runs it with the caller's signal, and applies `maxResults`. */
  async search(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResult> {
    const result = await this.searchProviders.select().search(request, signal)
    return capSources(result, request.maxResults)
  }

  /** Selects a provider for this call and returns its result unchanged (a 404 is a result). */
  async fetch(request: WebFetchRequest, signal?: AbortSignal): Promise<WebFetchResult> {
    return this.fetchProviders.select().fetch(request, signal)
  }

  private register<P extends WebSearchProvider | WebFetchProvider>(registry: ProviderRegistry<P>, provider: P): () => void {
    const id = registry.admit(provider)
    const release = this.ctx.effect(() => {
      const remove = registry.add(id, provider)
      // The pinned id's row exists already (made by the service); every other provider brings its own.
      const row = id === registry.configuredId ? undefined : this.ctx.get('readiness')?.register(registry.capability(id))
      return () => {
        row?.()
        remove()
      }
    })
    return release
  }
}

function configuredId(fromConfig: string | undefined, kind: WebProviderKind): string | undefined {
  if (fromConfig !== undefined) return fromConfig
  // Read once, at construction. An exported but empty variable counts as unset, as for credentials.
  const fromEnv = process.env[envOverride(kind)]?.trim()
  return fromEnv ? fromEnv : undefined
}

function capSources(result: WebSearchResult, maxResults: number | undefined): WebSearchResult {
  if (maxResults === undefined || result.sources.length <= maxResults) return result
  return { ...result, sources: result.sources.slice(0, maxResults), truncated: true }
}
