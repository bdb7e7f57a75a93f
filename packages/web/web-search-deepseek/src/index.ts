import type { Context } from 'cordis'
import { configParser, hostEnv } from 'dsh-core'
import type {} from 'dsh-web'
import { registerKeyedSearch } from 'dsh-web/keyed-search'
import { DeepSeekSearchConfig, snapshot } from './config.ts'
import { deepSeekSearchSpec } from './provider.ts'

export { DeepSeekSearchConfig, snapshot, BASE_URL_ENV, DEFAULT_BASE_URL, type SearchOptions } from './config.ts'
export { deepSeekSearchProvider, deepSeekSearchSpec, deepSeekRequest, deepSeekRefusal, PROVIDER_ID, REQUEST_EVENT, missingKeyMessage, type DeepSeekSearchProviderOptions, type RecordedRequest } from './provider.ts'
export { mapResponse, requestBody, messagesEndpoint } from './wire.ts'

/** dsh-web-search-deepseek: registers the `deepseek-official` search provider on `ctx.web`. */
export const name = 'web-search-deepseek'
export const inject = { web: { required: true }, credentials: { required: false }, dshHost: { required: false } }

export const Config: (config: unknown) => DeepSeekSearchConfig = configParser(DeepSeekSearchConfig)

export function apply(ctx: Context, config: DeepSeekSearchConfig): void {
  const settings = Config(config)
  registerKeyedSearch(ctx, deepSeekSearchSpec({ options: () => snapshot(settings, hostEnv(ctx)) }))
}
