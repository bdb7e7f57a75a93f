import { assertNever, type CapabilityStatus } from 'dsh-core'
import { callBounded } from './bounded.ts'
import { WebError } from './errors.ts'
import { joinDetail, usability, type ProviderRegistry } from './registry.ts'
import { describeReport, setbackDetail, verdictOf, type SearchHealth, type SearchProviderReport } from './search-health.ts'
import type { SearchSelection } from './search-selection.ts'
import type { SkippedProvider, WebBound, WebSearchProvider, WebSearchRequest, WebSearchResult } from './types.ts'

/**
 * Runs one search on the provider selection picks, and keeps the providers' setbacks. With a
 * failover list (`searchProvider: [a, b]`, or `auto`) a provider that is rate limited, down,
 * out of quota, without a key or failing is skipped or left for the next one; a result, an error
 * about the request itself, or a failure once a result was under way (`partial`) ends the search. The answer names the provider that served it.
 */
export class SearchRouter {
  constructor(
    private readonly registry: ProviderRegistry<WebSearchProvider>,
    readonly selection: SearchSelection,
    private readonly health: SearchHealth,
  ) {}

  async search(request: WebSearchRequest, bound?: WebBound): Promise<WebSearchResult> {
    const { selection } = this
    switch (selection.kind) {
      case 'sole':
        return this.alone(this.registry.select(undefined, 'searchProvider: one id, a failover list, or auto'), bound, request, (report) => new WebError(`no usable web search provider: ${report}`, 'WEB_PROVIDER_UNAVAILABLE'))
      case 'pinned':
        return this.alone(
          this.registry.select(selection.id),
          bound,
          request,
          (report) => new WebError(`configured web search provider "${selection.id}" is registered but unavailable: ${report}`, 'WEB_PROVIDER_CONFIGURED_UNAVAILABLE'),
        )
      case 'ordered':
        return this.failover(selection.ids, request, bound)
      case 'auto':
        return this.failover(this.registry.ids(), request, bound)
      default:
        return assertNever(selection)
    }
  }

  /** Every provider selection knows of, in the order it would try them, with its state now. */
  reports(): SearchProviderReport[] {
    return this.candidates().map((id) => this.report(id))
  }

  /** The `dsh status` row of one id, from the provider's own status (undefined: not registered) or its probe. */
  row(id: string, own: CapabilityStatus | undefined, probed = false): CapabilityStatus {
    const note = this.note(id)
    if (!own) return { state: 'unavailable', detail: joinDetail(`${this.namedBy(id)}, but no provider with that id is registered (is its row mounted?)`, note) }
    const report = this.health.report(id)
    switch (report.state) {
      case 'cooling_down':
      case 'failing':
        // A refused key stands until the key changes, which only the provider's probe sees: its
        // answer (failing with the same key, idle or no_credential once the key changed) is the
        // better one, unless it says ready without knowing of the refusal.
        if (this.health.keyRefused(id) && probed && own.state !== 'ready') break
        return { state: report.state, detail: joinDetail(setbackDetail(report), note) }
      case 'no_credential':
        // What the last search found, unless the provider's own check (a probe) knows better now.
        if (!probed) return { state: 'no_credential', detail: joinDetail(report.reason, note) }
        break
      case 'ready':
      case 'unavailable':
        break
      default:
        assertNever(report.state)
    }
    return { state: own.state, detail: joinDetail(own.detail, note) }
  }

  /** One provider alone (pinned, or the sole usable one): its own error reaches the caller. */
  private async alone(provider: WebSearchProvider, bound: WebBound | undefined, request: WebSearchRequest, blocked: (report: string) => WebError): Promise<WebSearchResult> {
    const claim = this.health.claim(provider.id)
    if (!claim.claimed) throw blocked(describeReport(claim.report))
    return this.attempt(provider, request, bound)
  }

  private async failover(ids: readonly string[], request: WebSearchRequest, bound: WebBound | undefined): Promise<WebSearchResult> {
    const passed: SearchProviderReport[] = []
    for (const id of ids) {
      if (bound?.aborted) throw new WebError('web search aborted', 'WEB_ABORTED', { cause: bound.reason })
      const provider = this.registry.get(id)
      const check = provider ? usability(provider) : { usable: false, reason: 'not registered' }
      if (!provider || !check.usable) {
        passed.push({ id, state: 'unavailable', reason: check.reason || 'unavailable' })
        continue
      }
      const claim = this.health.claim(id)
      if (!claim.claimed) {
        passed.push(claim.report)
        continue
      }
      try {
        const result = await this.attempt(provider, request, bound)
        return passed.length ? { ...result, skipped: passed.map(skippedProvider) } : result
      } catch (error) {
        if (!(error instanceof WebError) || error.partial || !movesOn(verdictOf(error, bound).kind)) throw error
        passed.push(this.health.report(id))
      }
    }
    const states = passed.length ? passed.map((report) => `${report.id}: ${describeReport(report)}`).join('; ') : 'none is registered'
    throw new WebError(`no web search provider can serve this search now (${states})`, 'WEB_PROVIDER_UNAVAILABLE')
  }

  /** One search on one claimed provider; its verdict settles the claim. */
  private async attempt(provider: WebSearchProvider, request: WebSearchRequest, bound: WebBound | undefined): Promise<WebSearchResult> {
    let result: WebSearchResult
    try {
      result = await callBounded(provider, request, bound, provider.search, provider.searchWithin)
    } catch (error) {
      this.health.settle(provider.id, verdictOf(error, bound))
      throw error
    }
    this.health.settle(provider.id, { kind: 'answered' })
    return { ...result, provider: provider.id }
  }

  private report(id: string): SearchProviderReport {
    const provider = this.registry.get(id)
    if (!provider) return { id, state: 'unavailable', reason: 'not registered' }
    const check = usability(provider)
    return check.usable ? this.health.report(id) : { id, state: 'unavailable', reason: check.reason || 'unavailable' }
  }

  /** The ids selection would consider, in order. */
  private candidates(): readonly string[] {
    const { selection } = this
    switch (selection.kind) {
      case 'sole':
        return this.registry.ids()
      case 'pinned':
        return [selection.id]
      case 'ordered':
        return selection.ids
      case 'auto':
        return this.registry.ids()
      default:
        return assertNever(selection)
    }
  }

  /** How the operator named an id that has no provider. */
  private namedBy(id: string): string {
    const { selection } = this
    return selection.kind === 'ordered' ? `${selection.from} lists "${id}"` : `${selection.kind === 'pinned' ? selection.from : 'searchProvider'} is "${id}"`
  }

  /** What selection does with an id, for its status row ('' when nothing needs saying). */
  private note(id: string): string {
    const { selection } = this
    switch (selection.kind) {
      case 'sole': {
        const usable = this.registry.usableIds()
        return usable.length > 1 && usable.includes(id) ? `ambiguous: ${usable.join(', ')} are all usable; set searchProvider (one id, a failover list, or auto)` : ''
      }
      case 'pinned':
        return selection.id === id ? '' : `not selected: ${selection.from} is "${selection.id}"`
      case 'ordered': {
        const position = selection.ids.indexOf(id)
        return position < 0 ? `not selected: ${selection.from} is [${selection.ids.join(', ')}]` : `failover ${position + 1} of ${selection.ids.length} (${selection.from})`
      }
      case 'auto': {
        const ids = this.registry.ids()
        return `failover ${ids.indexOf(id) + 1} of ${ids.length} (${selection.from}: auto)`
      }
      default:
        return assertNever(selection)
    }
  }
}

function skippedProvider(report: SearchProviderReport): SkippedProvider {
  // A report of a passed-over provider is never `ready`: it was skipped or moved the search on.
  return { id: report.id, state: report.state === 'ready' ? 'unavailable' : report.state, reason: report.reason }
}

/** Whether a failed attempt leaves the search to the next provider. */
function movesOn(verdict: ReturnType<typeof verdictOf>['kind']): boolean {
  return verdict === 'fault' || verdict === 'no_credential'
}
