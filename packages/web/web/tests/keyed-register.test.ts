import type { Context } from 'cordis'
import { httpFault } from 'dsh-web'
import { registerKeyedSearch, type KeyedSearchOptions } from 'dsh-web/keyed-search'
import { afterEach, expect, it } from 'vitest'
import { providerHost } from './provider-host.ts'

// House rule: every registration is an effect on the caller's scope and `register()` returns its
// disposer. registerKeyedSearch's disposer removes the provider while its plugin stays loaded.

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('registerKeyedSearch returns the disposer of the provider it registers', async () => {
  let dispose: unknown
  const plugin = {
    name: 'web-search-keyed',
    inject: ['web'],
    apply(ctx: Context) {
      const options: KeyedSearchOptions = { apiKeyEnv: 'DSH_TEST_KEYED_REGISTER_KEY', timeoutMs: 5_000, maxResponseBytes: 100_000 }
      dispose = registerKeyedSearch(ctx, {
        id: 'keyed',
        name: 'Keyed',
        row: 'web-search-keyed',
        event: 'web/keyed-search-request',
        options: () => options,
        endpoint: () => 'http://127.0.0.1:9/search',
        request: () => ({ url: new URL('http://127.0.0.1:9/search'), method: 'GET', headers: {}, record: {} }),
        refusal: (status, headers) => ({ detail: undefined, fault: httpFault(status, headers) }),
        map: () => ({ sources: [], truncated: false }),
      })
    },
  }
  const { app, stop } = await providerHost(plugin, {}, {})
  cleanups.push(stop)
  const ids = async () => (await app.readiness.report({ probe: false })).map((row) => row.id)
  expect(await ids()).toContain('search:keyed')
  expect(dispose).toBeTypeOf('function')
  ;(dispose as () => void)()
  expect(await ids()).not.toContain('search:keyed')
})
