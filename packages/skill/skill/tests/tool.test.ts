import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SkillDefinition } from '../src/index.ts'
import { consumerHost, type ConsumerHost } from './consumer.ts'
import { candidate, definitionOf, mount, scripted, type ScriptedProvider } from './helpers.ts'

let host: ConsumerHost
let provider: ScriptedProvider

beforeEach(async () => {
  host = await consumerHost()
  provider = scripted('filesystem', [
    candidate('both', { provider: 'filesystem', resourceBase: { kind: 'directory', path: '/skills/both' } }),
    candidate('user-only', { provider: 'filesystem', invocation: { modelInvocable: false, userInvocable: true } }),
    candidate('model-only', { provider: 'filesystem', invocation: { modelInvocable: true, userInvocable: false } }),
  ])
  mount(host.app, provider)
})

afterEach(async () => {
  await host.stop()
})

describe('the skill tool', () => {
  it('is the one tool the plugin registers, with a single required name parameter, and goes away with the plugin', async () => {
    expect(host.app.tools.catalog().map((tool) => tool.name)).toEqual(['skill'])
    const [tool] = host.app.tools.catalog()
    expect(tool!.parameters).toMatchObject({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } })
    expect(host.app.tools.get('skill')?.surface).toBe('skill')
    host.fork.dispose()
    expect(host.app.tools.catalog()).toEqual([])
    expect(await host.step()).toHaveLength(1)
  })

  it('loads by the session workspace and answers {name, provider, resourceBase, content} rendered as one block', async () => {
    const result = await host.call('both')
    expect(result.isError).toBe(false)
    if (result.isError) return
    expect(result.value).toEqual({ name: 'both', provider: 'filesystem', resourceBase: { kind: 'directory', path: '/skills/both' }, content: 'body of both' })
    expect(result.content).toHaveLength(1)
    expect(result.content[0]!.text).toMatch(/^<skill_content name="both">\n<skill_resources>\nBase directory: \/skills\/both\n/)
    expect(provider.listCalls[0]).toMatchObject({ cwd: '/workspace', scope: host.session })
  })

  it('loads a skill that only the user may not start', async () => {
    expect((await host.call('model-only')).isError).toBe(false)
  })

  it('refuses an invalid name, an unknown name and a user-only skill with distinct codes naming the skill', async () => {
    const invalid = await host.call('Not_Valid')
    const unknown = await host.call('missing-skill')
    const userOnly = await host.call('user-only')
    expect([invalid, unknown, userOnly].map((r) => (r.isError ? r.error.code : 'ok'))).toEqual(['SKILL_INVALID_NAME', 'SKILL_UNKNOWN', 'SKILL_NOT_MODEL_INVOCABLE'])
    expect(unknown.content[0]!.text).toMatch(/^Error: .*"missing-skill"/)
    expect(userOnly.content[0]!.text).toMatch(/"user-only"/)
    // A skill denied by its summary never reaches the provider's get().
    expect(provider.getCalls.map((call) => call.candidate.name)).toEqual([])
  })

  it('refuses without leaking the body when the policy changed between list and load', async () => {
    provider.load = async (c): Promise<SkillDefinition> => ({ ...definitionOf(c, 'SECRET BODY'), invocation: { modelInvocable: false, userInvocable: true } })
    const result = await host.call('both')
    expect(result.isError && result.error.code).toBe('SKILL_NOT_MODEL_INVOCABLE')
    expect(JSON.stringify(result)).not.toContain('SECRET BODY')
  })

  it('answers SKILL_UNKNOWN when the load finds nothing any more', async () => {
    provider.load = async () => undefined
    const result = await host.call('both')
    expect(result.isError && result.error.code).toBe('SKILL_UNKNOWN')
  })

  it('passes a provider failure through as an error result', async () => {
    provider.load = async () => {
      throw new Error('disk unreadable')
    }
    const result = await host.call('both')
    expect(result.isError && result.error.message).toBe('disk unreadable')
  })

  it('refuses a non-string name as INVALID_ARGS', async () => {
    const result = await host.call(42)
    expect(result.isError && result.error.code).toBe('INVALID_ARGS')
  })

  it('renders opaque, URL and provider-managed resources', async () => {
    provider.candidates = [
      candidate('opaque', { provider: 'filesystem', resourceBase: { kind: 'opaque', description: 'in the <vault>' } }),
      candidate('url', { provider: 'filesystem', resourceBase: { kind: 'url', url: 'https://x.test/' } }),
      candidate('managed', { provider: 'filesystem' }),
    ]
    provider.control!.invalidate()
    const texts = await Promise.all(['opaque', 'url', 'managed'].map(async (name) => (await host.call(name)).content[0]!.text))
    expect(texts[0]).toContain('Resources: in the &lt;vault&gt;')
    expect(texts[1]).toContain('Base URL: https://x.test/')
    expect(texts[2]).toContain('managed by the "filesystem" skill provider')
  })

  it('sees skills of its own session scope only', async () => {
    const other = host.app.sessions.create({ cwd: '/workspace' })
    mount(host.app, scripted('mine', [candidate('private', { provider: 'mine' })]), host.session)
    expect((await host.call('private')).isError).toBe(false)
    const fromOther = await host.call('private', other)
    expect(fromOther.isError && fromOther.error.code).toBe('SKILL_UNKNOWN')
  })

  it('refuses its config: catalogDescriptionMaxLength below 3, a floor above the cap', async () => {
    const { Config } = await import('../src/tool/index.ts')
    expect(() => Config({ catalogDescriptionMaxLength: 2 })).toThrow(/catalogDescriptionMaxLength/)
    expect(() => Config({ catalogDescriptionMaxLength: 10, catalogMinDescriptionLength: 20 })).toThrow(/catalogMinDescriptionLength/)
    expect(() => Config({ surprise: 1 })).toThrow(/surprise/)
  })
})
