import type { Context } from 'cordis'
import { configParser } from 'dsh-core'
import type {} from 'dsh-web'
import { registerKeyedSearch } from 'dsh-web/keyed-search'
import { BraveSearchConfig } from './config.ts'
import { braveRefusal, braveRequest, mapResponse, searchEndpoint } from './wire.ts'

export { BraveSearchConfig, DEFAULT_BASE_URL } from './config.ts'
export { braveRefusal, braveRequest, mapResponse, searchEndpoint, MAX_COUNT } from './wire.ts'

export const PROVIDER_ID = 'brave'
/** The session event recorded before every request: the URL sent, without the key. */
export const REQUEST_EVENT = 'web/brave-search-request'

/** dsh-web-search-brave: registers the `brave` search provider on `ctx.web`. */
export const name = 'web-search-brave'
export const inject = { web: { required: true }, credentials: { required: false } }

export const Config: (config: unknown) => BraveSearchConfig = configParser(BraveSearchConfig)

export function apply(ctx: Context, config: BraveSearchConfig): void {
  const settings = Config(config)
  registerKeyedSearch(ctx, {
    id: PROVIDER_ID,
    name: 'Brave Search',
    row: name,
    event: REQUEST_EVENT,
    options: () => settings,
    endpoint: (options) => searchEndpoint(options.baseURL).href,
    request: braveRequest,
    refusal: braveRefusal,
    map: mapResponse,
  })
}
