import type { Context } from 'cordis'
import { configParser } from 'dsh-core'
import type {} from 'dsh-web'
import { registerKeyedSearch } from 'dsh-web/keyed-search'
import { TavilySearchConfig } from './config.ts'
import { mapResponse, searchEndpoint, tavilyRefusal, tavilyRequest } from './wire.ts'

export { TavilySearchConfig, DEFAULT_BASE_URL } from './config.ts'
export { mapResponse, requestBody, searchEndpoint, tavilyRefusal, tavilyRequest, MAX_RESULTS } from './wire.ts'

export const PROVIDER_ID = 'tavily'
/** The session event recorded before every request: the endpoint and body sent, without the key. */
export const REQUEST_EVENT = 'web/tavily-search-request'

/** dsh-web-search-tavily: registers the `tavily` search provider on `ctx.web`. */
export const name = 'web-search-tavily'
export const inject = { web: { required: true }, credentials: { required: false } }

export const Config: (config: unknown) => TavilySearchConfig = configParser(TavilySearchConfig)

export function apply(ctx: Context, config: TavilySearchConfig): void {
  const settings = Config(config)
  registerKeyedSearch(ctx, {
    id: PROVIDER_ID,
    name: 'Tavily',
    row: name,
    event: REQUEST_EVENT,
    options: () => settings,
    endpoint: (options) => searchEndpoint(options.baseURL).href,
    request: tavilyRequest,
    refusal: tavilyRefusal,
    map: (json) => mapResponse(json, settings.includeAnswer),
  })
}
