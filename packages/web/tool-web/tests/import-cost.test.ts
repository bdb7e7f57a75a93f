import { describe, expect, it, vi } from 'vitest'

// Issue 27 item 5: `dsh tools` imports and registers web_search and web_fetch and never runs them.
// Their value schemas (and the meta readers') are built on first use, not at import or registration.

describe('importing and registering dsh-tool-web', () => {
  it('builds no value or meta schema until one is used; the value schemas validate as before', async () => {
    vi.resetModules()
    const { schemaBuilt } = await import('dsh-core')
    const toolWeb = await import('../src/index.ts')
    const { boot } = await import('./harness.ts')
    const host = await boot()
    try {
      expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['web_fetch', 'web_search'])
      expect([schemaBuilt(toolWeb.SearchValue), schemaBuilt(toolWeb.FetchValue)]).toEqual([false, false])
      expect(host.app.tools.outputSchema('web_search')).toMatchObject({ type: 'object', required: ['sources', 'truncated'], additionalProperties: false })
      expect(schemaBuilt(toolWeb.SearchValue)).toBe(true)
      expect(toolWeb.FetchValue.safeParse({ url: 'u', statusCode: 200, body: { kind: 'text', content: '' }, truncated: false }).success).toBe(true)
      expect(toolWeb.FetchValue.safeParse({ url: 'u', statusCode: 200, body: { kind: 'xml', content: '' }, truncated: false }).success).toBe(false)
      expect(toolWeb.SearchValue.safeParse({ sources: [{ url: 'https://a.example' }], truncated: false }).success).toBe(true)
      expect(toolWeb.SearchValue.safeParse({ sources: [], truncated: false, extra: 1 }).success).toBe(false)
      expect(toolWeb.readFetchMeta({ url: 'u', statusCode: 200, truncated: false })).toEqual({ url: 'u', statusCode: 200, truncated: false })
      expect(toolWeb.readFetchMeta({ url: 'u' })).toBeUndefined()
    } finally {
      await host.stop()
      vi.resetModules()
    }
  })
})
