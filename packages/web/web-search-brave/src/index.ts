import type { Context } from 'cordis'
import type {} from 'dsh-web'
import { credentialResolver, keyedSearchProvider } from 'dsh-web/keyed-search'
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

export const Config = (config: unknown): BraveSearchConfig => BraveSearchConfig.parse(config ?? {})

export function apply(ctx: Context, config: BraveSearchConfig): void {
  const settings = Config(config)
  const lifetime = new AbortController()
  // Unloading the plugin removes the provider (the seam ties it to this scope) and ends its searches.
  ctx.effect(() => () => lifetime.abort())
  ctx.web.registerSearchProvider(
    keyedSearchProvider({
      id: PROVIDER_ID,
      name: 'Brave Search',
      row: name,
      event: REQUEST_EVENT,
      options: () => settings,
      endpoint: (options) => searchEndpoint(options.baseURL).href,
      resolveKey: credentialResolver(ctx),
      request: braveRequest,
      refusal: braveRefusal,
      map: mapResponse,
      lifetime: lifetime.signal,
    }),
  )
}
