import type { Context } from 'cordis'
import type {} from 'dsh-web'
import { SearxngConfig } from './config.ts'
import { searxngProvider } from './provider.ts'

export { SearxngConfig } from './config.ts'
export { searxngProvider, PROVIDER_ID } from './provider.ts'
export { mapResponse, searchUrl } from './wire.ts'

/** dsh-example-searxng: registers the `searxng` search provider on `ctx.web`. */
export const name = 'web-search-searxng'
export const inject = ['web']

export const Config = (config: unknown): SearxngConfig => SearxngConfig.parse(config ?? {})

export function apply(ctx: Context, config: SearxngConfig): void {
  const lifetime = new AbortController()
  // Unloading the plugin removes the provider (the seam ties it to this scope) and ends its searches.
  ctx.effect(() => () => lifetime.abort())
  ctx.web.registerSearchProvider(searxngProvider(Config(config), lifetime.signal))
}
