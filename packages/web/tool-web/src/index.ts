import type { Context } from 'cordis'
import { effectWithTeardown, untracked } from 'dsh-core'
import type {} from 'dsh-web'
import { FetchCache } from './cache.ts'
import { Config, ToolWebConfig } from './config.ts'
import { PageConverter } from './convert/converter.ts'
import { ConversionPool } from './convert/pool.ts'
import { FetchInput, FetchValue, renderFetch, runFetch } from './fetch.ts'
import { FETCH_DESCRIPTION, FETCH_GUIDANCE, searchDescription, searchGuidance } from './guidance.ts'
import { fetchMeta, presentFetchCall, presentFetchResult, presentSearchCall, presentSearchResult, searchMeta } from './presentation.ts'
import { renderSearch, runSearch, SearchValue, searchInput } from './search.ts'

/**
 * dsh-tool-web: the model-facing `web_search` and `web_fetch` over `ctx.web`. The switches alone
 * decide what is registered: with no provider, or a provider that is not ready, the tools stay
 * listed (stable schemas) and calls fail with the seam's code. It never imports a provider.
 */
export const name = 'tool-web'
export const inject = { tools: { required: true }, web: { required: true }, subprocess: { required: false } }
export { Config }
export type { ToolWebConfig } from './config.ts'
export { SearchValue, merge, renderSearch, distinctQueries } from './search.ts'
export { FetchValue, renderFetch } from './fetch.ts'
export { FetchCache, type FetchCacheSettings, type Clock } from './cache.ts'
export {
  searchMeta,
  readSearchMeta,
  presentSearchCall,
  presentSearchResult,
  fetchMeta,
  readFetchMeta,
  presentFetchCall,
  presentFetchResult,
  type SearchMeta,
  type FetchMeta,
  type GenericCard,
  type SearchCard,
  type FetchCard,
  type PresentableResult,
} from './presentation.ts'
export { conversionEvents, type ConversionEvent } from './convert/pool.ts'
// The converter itself (htmlToMarkdown, nestsTooDeep, withMarkdown) is `dsh-tool-web/convert`
// (src/convert.ts): the tools load it with their first page, and a host listing them never reads it.

export function apply(ctx: Context, config: ToolWebConfig): void {
  // cordis validates through Config; a direct apply() call gets the same checks and defaults.
  const settings = Config(config)
  // Searches and fetches register nothing, so they may skip cordis's per-call caller tracking.
  const web = untracked(ctx.web)
  if (settings.search) {
    ctx.tools.section({ name: 'tool:web_search', order: 110, text: searchGuidance(settings.searchMaxQueries, settings.fetch) })
    ctx.tools.register({
      name: 'web_search',
      surface: 'web',
      description: searchDescription(settings.searchMaxQueries),
      input: searchInput(settings.searchMaxQueries),
      output: SearchValue,
      timeoutMs: settings.searchTimeoutMs,
      concurrencySafe: true,
      execute: (args, exec) => runSearch(web, settings, args, exec.lifetime),
      render: (_args, value) => renderSearch(value, settings.searchMaxOutputChars),
      meta: (_args, value) => searchMeta(value),
      presentCall: presentSearchCall,
      presentResult: presentSearchResult,
    })
  }
  if (settings.fetch) {
    // One cache per plugin instance: unloading the row drops it with everything else.
    const cache = new FetchCache({ ttlMs: settings.cacheTtlMs, maxBytes: settings.cacheMaxBytes })
    let pool: ConversionPool | undefined
    // Converters are processes, and `ctx.subprocess` is the only way a package starts one: a host
    // without it converts every page on the event loop (as conversionWorkers: 0 does).
    const subprocess = ctx.get('subprocess')
    if (settings.conversionWorkers > 0 && !subprocess) ctx.logger('tool-web').warn('dsh-core/subprocess is not loaded: pages are converted on the event loop (conversionWorkers has no effect)')
    if (settings.conversionWorkers > 0 && subprocess) {
      const converters = new ConversionPool({ spawn: (spec) => subprocess.spawn(spec), workers: settings.conversionWorkers, maxMemoryMb: settings.conversionMaxMemoryMb })
      // Unloading the row kills the converter processes; a host that awaits teardowns waits for them to exit.
      effectWithTeardown(ctx, () => () => converters.close())
      pool = converters
    }
    const converter = new PageConverter(pool, settings.conversionWorkerMinChars)
    const fetchSettings = { maxOutputChars: settings.fetchMaxOutputChars, maxElements: settings.fetchMaxElements, mainContent: settings.fetchMainContent, cache, converter }
    ctx.tools.section({ name: 'tool:web_fetch', order: 111, text: FETCH_GUIDANCE })
    ctx.tools.register({
      name: 'web_fetch',
      surface: 'web',
      description: FETCH_DESCRIPTION,
      input: FetchInput,
      output: FetchValue,
      // The value holds the whole page (up to the provider's maxResponseBytes); the rendering is cut
      // at fetchMaxOutputChars. Publishing it (dsh serve's structuredContent) would send far more.
      structuredOutput: false,
      // runFetch builds the value field by field from the seam's typed result (the body's kind
      // switched exhaustively); the runtime still proves it JSON. Checking it against FetchValue
      // on every call re-proved the compiler's work (about a tenth of the runtime's cost).
      checkOutput: false,
      timeoutMs: settings.fetchTimeoutMs,
      concurrencySafe: true,
      execute: (args, exec) => runFetch(web, fetchSettings, args, exec),
      render: (_args, value) => renderFetch(value, settings.fetchMaxOutputChars).text,
      meta: (_args, value) => fetchMeta(value, settings.fetchMaxOutputChars),
      presentCall: presentFetchCall,
      presentResult: presentFetchResult,
    })
  }
}
