import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'

// Issue 27 item 5: a boot handed each row's config to three parses — dsh-core's check before
// anything applies, cordis's when it adds the plugin, and the plugin's own in apply or its
// constructor (given the value cordis parsed). A one-shot `dsh` parses every schema there and
// nowhere else, so each row's config is parsed once now.

const BASE = fileURLToPath(new URL('../../../../presets/base.yml', import.meta.url))

afterEach(() => {
  vi.restoreAllMocks()
})

describe('booting the base preset', () => {
  it("parses each row's config once", async () => {
    // Fresh modules: a parser keeps what it parsed, and this worker may have booted these plugins before.
    vi.resetModules()
    const core = await import('dsh-core')
    const schemas = {
      CredentialsConfig: (await import('../../../core/core/src/credentials/service.ts')).CredentialsConfig,
      FsConfig: core.FsConfig,
      ReadinessConfig: core.ReadinessConfig,
      SessionsConfig: core.SessionsConfig,
      SubprocessConfig: core.SubprocessConfig,
      ToolsConfig: core.ToolsConfig,
      TrustConfig: core.TrustConfig,
      WebConfig: (await import('dsh-web')).WebConfig,
      BraveSearchConfig: (await import('dsh-web-search-brave')).BraveSearchConfig,
      TavilySearchConfig: (await import('dsh-web-search-tavily')).TavilySearchConfig,
      DeepSeekSearchConfig: (await import('dsh-web-search-deepseek')).DeepSeekSearchConfig,
      FetchHttpConfig: (await import('dsh-web-fetch-http')).FetchHttpConfig,
      ToolWebConfig: (await import('../../../web/tool-web/src/config.ts')).ToolWebConfig,
      SkillsConfig: (await import('dsh-skill')).SkillsConfig,
      SkillFsConfig: (await import('dsh-skill-fs')).SkillFsConfig,
      ToolSkillConfig: (await import('../../../skill/skill/src/tool/config.ts')).ToolSkillConfig,
    }
    const spies = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, vi.spyOn(schema, 'parse')]))
    const host = await core.bootPreset({ preset: BASE, lifetime: 'one-shot' })
    try {
      expect(host.app.get('tools')?.catalog().map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_search', 'web_fetch', 'skill']))
      expect(Object.fromEntries(Object.entries(spies).map(([name, spy]) => [name, spy.mock.calls.length]))).toEqual(Object.fromEntries(Object.keys(schemas).map((name) => [name, 1])))
    } finally {
      await host.stop()
      vi.resetModules()
    }
  })
})
