import { describe, expect, it, vi } from 'vitest'
import { providerHost } from './provider-host.ts'

// Issue 27 item 5: `dsh tools` loads and registers the three search providers and never searches.
// Their answer and error shapes (about 65 zod objects) are built when the first answer is read.

const providers = [
  {
    name: 'brave',
    load: async () => ({ plugin: await import('dsh-web-search-brave'), wire: (await import('../../web-search-brave/src/wire.ts')).braveWire }),
    answer: { web: { results: [{ url: 'https://a.example/', title: 'A' }] } },
  },
  {
    name: 'tavily',
    load: async () => ({ plugin: await import('dsh-web-search-tavily'), wire: (await import('../../web-search-tavily/src/wire.ts')).tavilyWire }),
    answer: { results: [{ url: 'https://a.example/', title: 'A' }] },
  },
  {
    name: 'deepseek-official',
    load: async () => ({ plugin: await import('dsh-web-search-deepseek'), wire: (await import('../../web-search-deepseek/src/wire.ts')).deepSeekWire }),
    answer: { content: [{ type: 'web_search_tool_result', content: [{ type: 'web_search_result', url: 'https://a.example/', title: 'A' }] }] },
  },
]

describe('loading and registering a search provider', () => {
  it.each(providers)('$name builds no answer shape until an answer is read; then maps as before', async ({ name, load, answer }) => {
    vi.resetModules()
    const { plugin, wire } = await load()
    const host = await providerHost(plugin, { apiKeyEnv: 'DSH_TEST_UNSET_KEY' }, { searchProvider: name })
    try {
      expect(host.app.tools.catalog().map((tool) => tool.name)).toContain('web_search')
      expect(wire?.built).toBe(false)
      expect(plugin.mapResponse(answer)).toMatchObject({ sources: [{ url: 'https://a.example/', title: 'A' }], truncated: false })
      expect(wire?.built).toBe(true)
      expect(() => plugin.mapResponse('not an answer')).toThrow(/not a search response|unprocessable/)
    } finally {
      await host.stop()
      vi.resetModules()
    }
  })
})
