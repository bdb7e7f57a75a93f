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

  // The converter (the DOM walk, cleaning, turndown's rules, the depth scan) is its own module
  // behind dsh-tool-web/convert: the root and the registered tools load it with their first page.
  it('loads no converter module until the first page is converted, and that one loads each once', async () => {
    vi.resetModules()
    const evaluated: string[] = []
    for (const [path, name] of [['../src/markdown.ts', 'markdown'], ['../src/depth.ts', 'depth'], ['../src/convert/run-job.ts', 'run-job']] as const) {
      vi.doMock(path, async (original) => {
        evaluated.push(name)
        return original()
      })
    }
    try {
      await import('../src/index.ts')
      const { boot, fetchProvider, page, textOf } = await import('./harness.ts')
      const host = await boot()
      try {
        expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['web_fetch', 'web_search'])
        expect(evaluated).toEqual([])
        host.app.web.registerFetchProvider(fetchProvider(page('<h1>Title</h1>')).provider)
        expect(textOf(await host.fetch({ url: 'https://a.test' }))).toContain('# Title')
        expect(textOf(await host.fetch({ url: 'https://b.test' }))).toContain('# Title')
        expect(evaluated.sort()).toEqual(['depth', 'markdown', 'run-job'])
      } finally {
        await host.stop()
      }
    } finally {
      for (const path of ['../src/markdown.ts', '../src/depth.ts', '../src/convert/run-job.ts']) vi.doUnmock(path)
      vi.resetModules()
    }
  })
})
