import { Context, Service } from 'cordis'
import { assertNever, configParser, hostEnv, MAX_TIMER_DELAY_MS, type Capability, type CapabilityStatus } from 'dsh-core'
import { z } from 'zod'
import { callBounded } from './bounded.ts'
import { WebError } from './errors.ts'
import { envOverride, joinDetail, ProviderRegistry } from './registry.ts'
import { SearchHealth, type SearchProviderReport } from './search-health.ts'
import { SearchRouter } from './search-router.ts'
import { AUTO, namedIds, searchSelection, type SearchSelection } from './search-selection.ts'
import type { WebBound, WebFetchProvider, WebFetchRequest, WebFetchResult, WebProviderKind, WebSearchProvider, WebSearchRequest, WebSearchResult } from './types.ts'

declare module 'cordis' {
  interface Context {
    web: WebService
  }
}

const ProviderId = z.string().trim().min(1, 'must be a non-empty provider id')
const Milliseconds = z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS)

const FailoverList = z
  .array(ProviderId)
  .min(1, 'must list at least one provider id')
  .refine((ids) => new Set(ids).size === ids.length, 'lists a provider id twice')
  .refine((ids) => !ids.includes(AUTO), `"${AUTO}" stands alone, not in a list`)

/**
 * One id (pinned), `auto`, or a failover list. A value of neither shape is told what was given and
 * what is accepted: zod's own word for a union that no branch took is "Invalid input".
 */
const SearchProvider = z.union([ProviderId, FailoverList], {
  error: (issue) => (issue.code === 'invalid_union' ? `expected one provider id (brave), "${AUTO}", or a failover list of ids ([deepseek-official, brave, tavily]); got ${givenValue(issue.input)}` : undefined),
})

export const WebConfig = z.strictObject({
  /** One id (pinned), `auto` (every registered provider, failing over in id order), or a failover list. */
  searchProvider: SearchProvider.optional(),
  /** How long a provider that failed without saying for how long is skipped (rate limited, down, failing). */
  searchCooldownMs: Milliseconds.default(60_000),
  /** The longest cooldown whatever Retry-After says; also the cooldown of a spent quota. */
  searchMaxCooldownMs: Milliseconds.default(3_600_000),
  /** Pins fetch to this provider id; otherwise the single usable provider is used. */
  fetchProvider: ProviderId.optional(),
})
export type WebConfig = z.input<typeof WebConfig>
type Settings = z.output<typeof WebConfig>

/** A config value as a message shows it: short JSON and its kind, or for a list the first item that is not an id. */
function givenValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    const at = value.findIndex((item) => typeof item !== 'string')
    if (at >= 0) return `${preview(value)}, whose item ${at + 1} is ${kindOf(value[at])}, not an id`
  }
  return `${preview(value)} (${kindOf(value)})`
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** What the seam's owner may inject; cordis constructs the service without it. */
export interface WebServiceOptions {
  /** The clock of cooldowns (epoch milliseconds). Default: `Date.now`. */
  readonly now?: () => number
}

/**
 * `ctx.web`: the search and fetch provider registries and per-call selection. Providers register
 * capabilities here, never tools; the tool calls `search()` / `fetch()` and routes on the error
 * code. The search providers' cooldowns live here, so every session of the host shares them.
 */
export class WebService extends Service {
  static Config: (config: unknown) => Settings = configParser(WebConfig)
  static inject = { readiness: { required: false }, dshHost: { required: false } }

  private readonly searchRegistry = new ProviderRegistry<WebSearchProvider>('search')
  private readonly fetchRegistry = new ProviderRegistry<WebFetchProvider>('fetch')
  private readonly router: SearchRouter
  /** From config, else the environment override; fixed for the service's life. */
  private readonly pinnedFetch: string | undefined

  constructor(ctx: Context, config: WebConfig = {}, options: WebServiceOptions = {}) {
    super(ctx, 'web', true)
    const settings = WebService.Config(config)
    const health = new SearchHealth({ cooldownMs: settings.searchCooldownMs, maxCooldownMs: Math.max(settings.searchMaxCooldownMs, settings.searchCooldownMs), now: options.now ?? Date.now })
    this.router = new SearchRouter(this.searchRegistry, searchSelection(settings, hostEnv(ctx)), health)
    this.pinnedFetch = settings.fetchProvider ?? (hostEnv(ctx)[envOverride('fetch')]?.trim() || undefined)
    // The ids the operator named get their `dsh status` rows now, so a provider that never registers still shows why.
    for (const id of namedIds(this.router.selection)) this.readinessRow(this.searchCapability(id))
    if (this.pinnedFetch !== undefined) this.readinessRow(this.fetchCapability(this.pinnedFetch))
  }

  /** An effect on the caller's scope; the disposer (or unloading the caller) removes the provider. */
  registerSearchProvider(provider: WebSearchProvider): () => void {
    if (provider?.searchWithin !== undefined && typeof provider.searchWithin !== 'function') {
      throw new WebError(`web search provider "${String(provider.id)}": searchWithin must be a function when given`, 'WEB_INVALID_PROVIDER')
    }
    const named = namedIds(this.router.selection)
    return this.register(this.searchRegistry, provider, (id) => (named.includes(id) ? undefined : this.searchCapability(id)))
  }

  registerFetchProvider(provider: WebFetchProvider): () => void {
    if (provider?.fetchWithin !== undefined && typeof provider.fetchWithin !== 'function') {
      throw new WebError(`web fetch provider "${String(provider.id)}": fetchWithin must be a function when given`, 'WEB_INVALID_PROVIDER')
    }
    return this.register(this.fetchRegistry, provider, (id) => (id === this.pinnedFetch ? undefined : this.fetchCapability(id)))
  }

  /**
   * What is configured for a kind: for fetch the pinned id; for search the pinned id, `auto`, or
   * the failover list comma-joined. Undefined when nothing is (the sole usable provider is used).
   */
  configured(kind: WebProviderKind): string | undefined {
    if (kind === 'fetch') return this.pinnedFetch
    return describeSelection(this.router.selection)
  }

  /** The search providers selection knows of, in the order it tries them, each with its state now. */
  searchProviderStates(): SearchProviderReport[] {
    return this.router.reports()
  }

  /**
   * Runs the search on the provider selection picks (failing over along a list), applies
   * `maxResults`, and names the provider that served it (`provider`). A lifetime reaches a
   * provider's `searchWithin` as the same object, else `search` as its signal.
   */
  async search(request: WebSearchRequest, bound?: WebBound): Promise<WebSearchResult> {
    return capSources(await this.router.search(request, bound), request.maxResults)
  }

  /**
   * Selects a provider for this call and returns its result unchanged (a 404 is a result). A
   * lifetime reaches a provider's `fetchWithin` as the same object, else `fetch` as its signal.
   */
  async fetch(request: WebFetchRequest, bound?: WebBound): Promise<WebFetchResult> {
    const provider = this.fetchRegistry.select(this.pinnedFetch)
    return callBounded(provider, request, bound, provider.fetch, provider.fetchWithin)
  }

  private register<P extends WebSearchProvider | WebFetchProvider>(registry: ProviderRegistry<P>, provider: P, capability: (id: string) => Capability | undefined): () => void {
    const id = registry.admit(provider)
    return this.ctx.effect(() => {
      const remove = registry.add(id, provider)
      // A named id's row exists already (made by the service); every other provider brings its own.
      const row = capability(id)
      const removeRow = row && this.ctx.get('readiness')?.register(row)
      return () => {
        removeRow?.()
        remove()
      }
    })
  }

  private readinessRow(capability: Capability): void {
    this.ctx.get('readiness')?.register(capability)
  }

  private searchCapability(id: string): Capability {
    return this.searchRegistry.capability(id, (own, probed) => this.router.row(id, own, probed))
  }

  private fetchCapability(id: string): Capability {
    return this.fetchRegistry.capability(id, (own) => fetchRow(this.fetchRegistry, this.pinnedFetch, id, own))
  }
}

function fetchRow(registry: ProviderRegistry<WebFetchProvider>, pinned: string | undefined, id: string, own: CapabilityStatus | undefined): CapabilityStatus {
  if (!own) return { state: 'unavailable', detail: `fetchProvider is "${id}", but no provider with that id is registered (is its row mounted?)` }
  let note = ''
  if (pinned !== undefined) note = pinned === id ? '' : `not selected: fetchProvider is "${pinned}"`
  else {
    const usable = registry.usableIds()
    if (usable.length > 1 && usable.includes(id)) note = `ambiguous: ${usable.join(', ')} are all usable; set fetchProvider`
  }
  return { state: own.state, detail: joinDetail(own.detail, note) }
}

function describeSelection(selection: SearchSelection): string | undefined {
  switch (selection.kind) {
    case 'sole':
      return undefined
    case 'pinned':
      return selection.id
    case 'ordered':
      return selection.ids.join(',')
    case 'auto':
      return AUTO
    default:
      return assertNever(selection, 'search selection')
  }
}

function capSources(result: WebSearchResult, maxResults: number | undefined): WebSearchResult {
  if (maxResults === undefined || result.sources.length <= maxResults) return result
  return { ...result, sources: result.sources.slice(0, maxResults), truncated: true }
}
