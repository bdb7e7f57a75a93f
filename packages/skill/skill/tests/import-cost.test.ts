import { describe, expect, it, vi } from 'vitest'

// Issue 27 item 5: `dsh tools` imports and registers the skill tool and never calls it. Its value
// schema (two dozen zod schemas: the loaded skill, its resource base, the listings) is built on
// first use, not at import or registration.

describe('importing and registering dsh-skill/tool', () => {
  it('builds no value schema until one is used; it validates as before', async () => {
    vi.resetModules()
    const { schemaBuilt } = await import('dsh-core')
    const toolSkill = await import('../src/tool/index.ts')
    const { consumerHost } = await import('./consumer.ts')
    const host = await consumerHost()
    try {
      expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['skill'])
      expect(schemaBuilt(toolSkill.SkillToolValue)).toBe(false)
      const value = toolSkill.SkillToolValue
      expect(value.safeParse({ name: 'pdf', provider: 'filesystem', resourceBase: { kind: 'directory', path: '/s/pdf' }, content: 'body' }).success).toBe(true)
      expect(schemaBuilt(toolSkill.SkillToolValue)).toBe(true)
      expect(value.safeParse({ name: 'pdf', provider: 'filesystem', content: 'body', path: '/s/pdf' }).success).toBe(false)
      expect(value.safeParse({ name: 'pdf', provider: 'filesystem', resourceBase: { kind: 'ftp', path: '/s' }, content: 'body' }).success).toBe(false)
      expect(value.safeParse({ listed: 'all', total: 1, groups: [{ label: 'project', names: ['pdf'] }] }).success).toBe(true)
      expect(value.safeParse({ listed: 'search', query: 'pdf', total: 1, matches: [{ name: 'pdf', description: 'Reads PDFs.' }] }).success).toBe(true)
      expect(value.safeParse({ listed: 'search', query: 'pdf', total: 1.5, matches: [] }).success).toBe(false)
    } finally {
      await host.stop()
      vi.resetModules()
    }
  })
})
