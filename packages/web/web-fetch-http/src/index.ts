import type { Context } from 'cordis'
import { configParser, effectWithTeardown } from 'dsh-core'
import type {} from 'dsh-web'
import { FetchHttpConfig } from './config.ts'
import { HttpFetchProvider } from './provider.ts'

export { FetchHttpConfig } from './config.ts'
export { HttpFetchProvider, type HttpFetchProviderOptions } from './provider.ts'
export { NetworkGuard, systemResolver, type Resolver, type ResolvedAddress } from './guard/guard.ts'
export { NetworkPolicy, type Verdict, type Refusal } from './guard/policy.ts'
export { embeddedIPv4, type EmbeddedIPv4, type EmbeddingForm } from './guard/embedded.ts'
export { METADATA_ENDPOINTS, METADATA_NAMES } from './guard/metadata.ts'
export { BAD_PORTS } from './guard/ports.ts'

/** dsh-web-fetch-http: registers the `http` fetch provider on `ctx.web`. */
export const name = 'web-fetch-http'
export const inject = ['web']

export const Config: (config: unknown) => FetchHttpConfig = configParser(FetchHttpConfig)

export function apply(ctx: Context, config: FetchHttpConfig): void {
  const provider = new HttpFetchProvider({ config: Config(config) })
  effectWithTeardown(ctx, () => {
    const unregister = ctx.web.registerFetchProvider(provider)
    return async () => {
      unregister()
      await provider.close()
    }
  })
}
