import type { Context } from 'cordis'
import { configParser, effectWithTeardown, hostEnv } from 'dsh-core'
import type {} from 'dsh-web'
import { registerKeyedSearch } from 'dsh-web/keyed-search'
import type { Agent, Dispatcher } from 'undici'
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
  // undici loads with the first search: most runs never search, and it is most of this package's load time.
  let agent: Promise<Agent> | undefined
  const connection = () => (agent ??= import('undici').then(({ Agent }) => new Agent()))
  const dispatcher = { request: async (options: Dispatcher.RequestOptions) => (await connection()).request(options) } as Pick<Dispatcher, 'request'>
  registerKeyedSearch(ctx, deepSeekSearchSpec({ options: () => snapshot(settings, hostEnv(ctx)), dispatcher }))
  effectWithTeardown(ctx, () => async () => {
    await (await agent)?.destroy()
  })
}
