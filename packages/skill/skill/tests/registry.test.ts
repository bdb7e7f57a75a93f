import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isModelInvocable, isUserInvocable, SkillError, SkillRegistry, type SkillCandidate, type SkillSummary } from '../src/index.ts'
import { candidate, captureLogs, deferred, definitionOf, mount, registryApp, scripted } from './helpers.ts'

let app: Context

beforeEach(async () => {
  app = await registryApp()
})

afterEach(async () => {
  await app.stop()
})

const names = (skills: readonly SkillSummary[]) => skills.map((skill) => skill.name)
const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 10 })

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
  } catch (error) {
    return (error as SkillError).code
  }
  return undefined
}

function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return (error as SkillError).code
  }
  return undefined
}

describe('winners inside one layer', () => {
  it('lists winners sorted by name; the lower rank wins a name, and get() loads the winner', async () => {
    const near = scripted('near', [candidate('zeta', { provider: 'near', rank: 20 }), candidate('alpha', { provider: 'near', rank: 5, description: 'near alpha' })])
    const far = scripted('far', [candidate('alpha', { provider: 'far', rank: 20, description: 'far alpha' })])
    mount(app, far)
    mount(app, near)
    const skills = await app.skills.list()
    expect(names(skills)).toEqual(['alpha', 'zeta'])
    expect(skills[0]!.description).toBe('near alpha')
    expect((await app.skills.get('alpha'))?.content).toBe('body of alpha')
    expect(near.getCalls).toHaveLength(1)
    expect(far.getCalls).toHaveLength(0)
  })

  it('breaks rank ties by registration order, then by position in the provider answer', async () => {
    const first = scripted('first', [candidate('a', { provider: 'first', description: 'first a' }), candidate('b', { provider: 'first', description: 'first b1' }), candidate('b', { provider: 'first', description: 'first b2' })])
    const second = scripted('second', [candidate('a', { provider: 'second', description: 'second a' })])
    mount(app, first)
    mount(app, second)
    const skills = await app.skills.list()
    expect(skills.map((s) => s.description)).toEqual(['first a', 'first b1'])
  })

  it('sorts in code-point order, never locale order', async () => {
    mount(app, scripted('scripted', [candidate('b'), candidate('a-b'), candidate('a1'), candidate('a')]))
    expect(names(await app.skills.list())).toEqual(['a', 'a-b', 'a1', 'b'])
  })

  it('keeps all four invocation policies; the predicates filter, get() ignores policy', async () => {
    const policies = {
      both: { modelInvocable: true, userInvocable: true },
      model: { modelInvocable: true, userInvocable: false },
      user: { modelInvocable: false, userInvocable: true },
      none: { modelInvocable: false, userInvocable: false },
    }
    mount(app, scripted('scripted', Object.entries(policies).map(([name, invocation]) => candidate(name, { invocation }))))
    const skills = await app.skills.list()
    expect(names(skills)).toEqual(['both', 'model', 'none', 'user'])
    expect(names(skills.filter(isModelInvocable))).toEqual(['both', 'model'])
    expect(names(skills.filter(isUserInvocable))).toEqual(['both', 'user'])
    expect((await app.skills.get('none'))?.content).toBe('body of none')
  })

  it('keeps identity: summaries share the candidate objects, get() hands the exact candidate and options over and returns the provider object', async () => {
    const resourceBase = { kind: 'directory' as const, path: '/skills/a' }
    const invocation = { modelInvocable: true, userInvocable: false }
    const listed = candidate('a', { resourceBase, invocation })
    const provider = scripted('scripted', [listed])
    const definition = definitionOf(listed)
    provider.load = async () => definition
    mount(app, provider)
    const options = { cwd: '/w' }
    const [summary] = await app.skills.list(options)
    expect(summary!.resourceBase).toBe(resourceBase)
    expect(summary!.invocation).toBe(invocation)
    expect(summary).not.toHaveProperty('rank')
    expect(summary).not.toHaveProperty('locator')
    expect(summary).not.toHaveProperty('whenToUse')
    expect(await app.skills.get('a', options)).toBe(definition)
    expect(provider.listCalls[0]).toBe(options)
    expect(provider.getCalls[0]!.candidate).toBe(listed)
    expect(provider.getCalls[0]!.candidate.locator).toBe(listed.locator)
    expect(provider.getCalls[0]!.options).toBe(options)
    expect(provider.listCalls).toHaveLength(1)
  })

  it('lists nothing without providers, and refuses a bad cache size at load', async () => {
    expect(await app.skills.list()).toEqual([])
    expect(() => SkillRegistry.Config({ collectCacheMaxEntries: 1.5 })).toThrow(/collectCacheMaxEntries/)
    expect(() => SkillRegistry.Config({ collectCacheMaxEntries: 0 })).toThrow(/collectCacheMaxEntries/)
  })
})

describe('provider registration', () => {
  it('refuses a second provider of the same name in one layer', () => {
    mount(app, scripted('dup'))
    expect(thrownCode(() => mount(app, scripted('dup')))).toBe('SKILL_DUPLICATE_PROVIDER')
  })

  it('reserves the name runtime and aborts the control signal', () => {
    let signal: AbortSignal | undefined
    const code = thrownCode(() =>
      app.skills.registerProvider((control) => {
        signal = control.signal
        return scripted('runtime')
      }),
    )
    expect(code).toBe('SKILL_INVALID_PROVIDER')
    expect(signal?.aborted).toBe(true)
  })

  it('rethrows a failing factory and aborts the control signal with that error', () => {
    const failure = new Error('factory broke')
    let signal: AbortSignal | undefined
    expect(() =>
      app.skills.registerProvider((control) => {
        signal = control.signal
        throw failure
      }),
    ).toThrow(failure)
    expect(signal?.reason).toBe(failure)
  })

  it('aborts the signal with the failure when registration fails after the factory ran', () => {
    mount(app, scripted('taken'))
    let signal: AbortSignal | undefined
    expect(() =>
      app.skills.registerProvider((control) => {
        signal = control.signal
        return scripted('taken')
      }),
    ).toThrow(/already registered/)
    expect((signal?.reason as SkillError).code).toBe('SKILL_DUPLICATE_PROVIDER')
  })

  it('removes the skills of a disposed provider and aborts its signal', async () => {
    const provider = scripted('scripted', [candidate('a')])
    const dispose = mount(app, provider)
    expect(names(await app.skills.list())).toEqual(['a'])
    dispose()
    expect(await app.skills.list()).toEqual([])
    expect((provider.control!.signal.reason as SkillError).code).toBe('SKILL_PROVIDER_DISPOSED')
  })

  it('a disposed provider contributes nothing even when its list() was in flight', async () => {
    const provider = scripted('scripted', [candidate('a')])
    const gate = deferred()
    provider.answer = async () => {
      await gate.promise
      return provider.candidates
    }
    const dispose = mount(app, provider)
    const pending = app.skills.snapshot()
    await Promise.resolve()
    dispose()
    gate.resolve()
    expect((await pending).skills).toEqual([])
  })
})

describe('runtime skills', () => {
  it('default to both invocation flags and provider runtime, and keep nested identity, path and metadata', async () => {
    const resourceBase = { kind: 'url' as const, url: 'https://example.test/skills/' }
    const metadata = { owner: 'team' }
    app.skills.register({ name: 'in-code', description: 'Made in code.', content: 'do it', resourceBase, metadata, path: '/virtual/in-code.md' })
    const [summary] = await app.skills.list()
    expect(summary).toMatchObject({ name: 'in-code', provider: 'runtime', source: 'runtime', invocation: { modelInvocable: true, userInvocable: true } })
    expect(summary!.resourceBase).toBe(resourceBase)
    const loaded = await app.skills.get('in-code')
    expect(loaded?.metadata).toBe(metadata)
    expect(loaded?.path).toBe('/virtual/in-code.md')
    expect(loaded?.content).toBe('do it')
  })

  it('refuses an invalid name, an empty description and an array invocation', () => {
    expect(thrownCode(() => app.skills.register({ name: 'Bad_Name', description: 'x', content: '' }))).toBe('SKILL_INVALID_SKILL')
    expect(thrownCode(() => app.skills.register({ name: 'ok', description: '', content: '' }))).toBe('SKILL_INVALID_SKILL')
    expect(thrownCode(() => app.skills.register({ name: 'ok', description: 'x', content: '', invocation: [] as never }))).toBe('SKILL_INVALID_SKILL')
  })

  it('first registration of a name in a layer wins; the duplicate is logged and its disposer does nothing', async () => {
    const logs = captureLogs()
    try {
      const first = app.skills.register({ name: 'same', description: 'first', content: '1' })
      const second = app.skills.register({ name: 'same', description: 'second', content: '2' })
      expect(logs.lines.join('\n')).toMatch(/"same" is already registered/)
      second()
      expect((await app.skills.list())[0]!.description).toBe('first')
      first()
      expect(await app.skills.list()).toEqual([])
    } finally {
      logs.stop()
    }
  })

  it('rank 250: a project-ranked candidate beats a runtime skill, which beats a custom-ranked one', async () => {
    app.skills.register({ name: 'a', description: 'runtime a', content: '' })
    app.skills.register({ name: 'b', description: 'runtime b', content: '' })
    mount(app, scripted('scripted', [candidate('a', { rank: 100, description: 'project a' }), candidate('b', { rank: 300, description: 'custom b' })]))
    expect((await app.skills.list()).map((s) => s.description)).toEqual(['project a', 'runtime b'])
  })

  it('unknown and invalid names load undefined without any discovery', async () => {
    const provider = scripted('scripted', [candidate('a')])
    mount(app, provider)
    expect(await app.skills.get('Not A Name')).toBeUndefined()
    expect(provider.listCalls).toHaveLength(0)
    expect(await app.skills.get('missing')).toBeUndefined()
  })
})

describe('skills left out of an untrusted workspace', () => {
  it('the snapshot sums the providers\' untrusted counts, and has none when they have none', async () => {
    mount(app, scripted('one', { candidates: [candidate('a', { provider: 'one' })], complete: true, untrusted: 2 }))
    mount(app, scripted('two', { candidates: [], complete: true, untrusted: 1 }))
    expect(await app.skills.snapshot()).toMatchObject({ complete: true, untrusted: 3 })
    await app.stop()
    app = await registryApp()
    mount(app, scripted('plain', [candidate('a', { provider: 'plain' })]))
    expect(await app.skills.snapshot()).not.toHaveProperty('untrusted')
  })
})

describe('malformed provider answers', () => {
  it.each([
    ['null', null],
    ['a number', 1],
    ['an empty object', {}],
    ['a non-boolean complete', { candidates: [], complete: 'yes' }],
    ['a negative untrusted count', { candidates: [], complete: true, untrusted: -1 }],
    ['a fractional untrusted count', { candidates: [], complete: true, untrusted: 1.5 }],
  ])('%s rejects the read with SKILL_INVALID_OBSERVATION', async (_label, answer) => {
    mount(app, scripted('scripted', answer))
    expect(await codeOf(app.skills.list())).toBe('SKILL_INVALID_OBSERVATION')
  })

  it.each<[string, Partial<Record<keyof SkillCandidate, unknown>>]>([
    ['a non-string name', { name: 5 }],
    ['an invalid name', { name: 'Bad_Name' }],
    ['a name over 64 characters', { name: 'a'.repeat(65) }],
    ['a non-string description', { description: 5 }],
    ['an empty description', { description: '' }],
    ['a string modelInvocable', { invocation: { modelInvocable: 'yes', userInvocable: true } }],
    ['a missing invocation', { invocation: undefined }],
    ['a non-string whenToUse', { whenToUse: 1 }],
    ['a non-string source', { source: 1 }],
    ['a non-number rank', { rank: '1' }],
    ['a NaN rank', { rank: Number.NaN }],
    ['a non-string provider', { provider: 1 }],
    ['a provider label that is not the provider', { provider: 'someone-else' }],
    ['a non-string path', { path: 1 }],
    ['an unknown resource base', { resourceBase: { kind: 'ftp', host: 'x' } }],
  ])('a candidate with %s rejects the read', async (_label, overrides) => {
    mount(app, scripted('scripted', [candidate('fine'), { ...candidate('x'), ...overrides }]))
    const code = await codeOf(app.skills.list())
    expect(code).toBe('SKILL_INVALID_OBSERVATION')
  })

  it.each<[string, Record<string, unknown>]>([
    ['a non-string name', { name: 1 }],
    ['an empty description', { description: '' }],
    ['a null invocation', { invocation: null }],
    ['a non-boolean userInvocable', { invocation: { modelInvocable: true, userInvocable: 1 } }],
    ['a non-string whenToUse', { whenToUse: 1 }],
    ['a non-string source', { source: 1 }],
    ['a non-string provider', { provider: 1 }],
    ['a non-string content', { content: 1 }],
    ['a non-string path', { path: 1 }],
  ])('a loaded definition with %s rejects get()', async (_label, overrides) => {
    const provider = scripted('scripted', [candidate('a')])
    provider.load = async (c) => ({ ...definitionOf(c), ...overrides })
    mount(app, provider)
    expect(await codeOf(app.skills.get('a'))).toBe('SKILL_INVALID_DEFINITION')
  })

  it('a failing provider is skipped (incomplete, logged, asked again each read) and cached once it recovers', async () => {
    const logs = captureLogs()
    try {
      const healthy = scripted('healthy', [candidate('ok', { provider: 'healthy' })])
      const failing = scripted('failing', [candidate('later', { provider: 'failing' })])
      let broken = true
      failing.answer = async () => {
        if (broken) throw { toString: () => { throw new Error('hostile') } }
        return failing.candidates
      }
      mount(app, healthy)
      mount(app, failing)
      const first = await app.skills.snapshot()
      expect(first).toEqual({ skills: [expect.objectContaining({ name: 'ok' })], complete: false })
      expect(logs.lines.join('\n')).toMatch(/skill provider "failing" skipped/)
      await app.skills.snapshot()
      expect(failing.listCalls).toHaveLength(2)
      broken = false
      expect(names((await app.skills.snapshot()).skills)).toEqual(['later', 'ok'])
      await app.skills.snapshot()
      expect(failing.listCalls).toHaveLength(3)
    } finally {
      logs.stop()
    }
  })

  it('an incomplete observation lists and loads its candidates but is never cached', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.complete = false
    mount(app, provider)
    expect(await app.skills.snapshot()).toEqual({ skills: [expect.objectContaining({ name: 'a' })], complete: false })
    expect((await app.skills.get('a'))?.content).toBe('body of a')
    await app.skills.snapshot()
    expect(provider.listCalls).toHaveLength(3)
  })
})

describe('the cache, invalidation and change events', () => {
  it('caches discovery until an invalidation; a runtime registration is one', async () => {
    const provider = scripted('scripted', [candidate('a')])
    mount(app, provider)
    await app.skills.list()
    provider.candidates = [candidate('b')]
    expect(names(await app.skills.list())).toEqual(['a'])
    app.skills.register({ name: 'r', description: 'r', content: '' })
    expect(names(await app.skills.list())).toEqual(['b', 'r'])
    provider.candidates = [candidate('c')]
    provider.control!.invalidate()
    expect(names(await app.skills.list())).toEqual(['c', 'r'])
  })

  it('keeps one cache entry per workspace, up to collectCacheMaxEntries (oldest evicted first)', async () => {
    const small = await registryApp({ collectCacheMaxEntries: 1 })
    try {
      const provider = scripted('scripted', [candidate('a')])
      mount(small, provider)
      await small.skills.list({ cwd: '/one' })
      await small.skills.list({ cwd: '/one' })
      expect(provider.listCalls).toHaveLength(1)
      await small.skills.list({ cwd: '/two' })
      await small.skills.list({ cwd: '/one' })
      expect(provider.listCalls).toHaveLength(3)
    } finally {
      await small.stop()
    }
  })

  it('scopes without a layer share the global observation; a scope with one gets its own', async () => {
    const provider = scripted('scripted', [candidate('a')])
    mount(app, provider)
    await app.skills.list({ cwd: '/w', scope: {} })
    await app.skills.list({ cwd: '/w', scope: {} })
    await app.skills.list({ cwd: '/w' })
    expect(provider.listCalls).toHaveLength(1)
    const agent = {}
    app.skills.register({ name: 'mine', description: 'm', content: '' }, { scope: agent })
    expect((await app.skills.list({ cwd: '/w', scope: agent })).map((s) => s.name)).toEqual(['a', 'mine'])
    expect((await app.skills.list({ cwd: '/w' })).map((s) => s.name)).toEqual(['a'])
  })

  it('an old control cannot invalidate a same-named replacement', async () => {
    const old = scripted('same', [candidate('a', { provider: 'same' })])
    mount(app, old)()
    const replacement = scripted('same', [candidate('a', { provider: 'same' })])
    mount(app, replacement)
    await app.skills.list()
    old.control!.invalidate()
    await app.skills.list()
    expect(replacement.listCalls).toHaveLength(1)
  })

  it('counts one change per registration, invalidation and disposal; a stale invalidate adds none', async () => {
    let changes = 0
    app.skills.onChange(() => {
      changes++
    })
    const provider = scripted('scripted')
    const dispose = mount(app, provider)
    expect(changes).toBe(1)
    provider.control!.invalidate()
    expect(changes).toBe(2)
    const runtime = app.skills.register({ name: 'r', description: 'r', content: '' })
    expect(changes).toBe(3)
    runtime()
    expect(changes).toBe(4)
    dispose()
    expect(changes).toBe(5)
    provider.control!.invalidate()
    expect(changes).toBe(5)
  })

  it('a throwing and a rejecting listener are logged; later listeners still run and registration does not throw', async () => {
    const logs = captureLogs()
    try {
      let third = 0
      app.skills.onChange(() => {
        throw new Error('sync listener broke')
      })
      app.skills.onChange(async () => {
        throw new Error('async listener broke')
      })
      app.skills.onChange(() => {
        third++
      })
      expect(() => mount(app, scripted('scripted'))).not.toThrow()
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(third).toBe(1)
      expect(logs.lines.join('\n')).toMatch(/sync listener broke/)
      expect(logs.lines.join('\n')).toMatch(/async listener broke/)
    } finally {
      logs.stop()
    }
  })

  it('an invalidation during a list retries once and answers the fresh data', async () => {
    const provider = scripted('scripted', [candidate('old')])
    let first = true
    provider.answer = async () => {
      if (first) {
        first = false
        provider.candidates = [candidate('new')]
        provider.control!.invalidate()
        return [candidate('old')]
      }
      return provider.candidates
    }
    mount(app, provider)
    expect(await app.skills.snapshot()).toEqual({ skills: [expect.objectContaining({ name: 'new' })], complete: true })
    expect(provider.listCalls).toHaveLength(2)
  })

  it('a provider that invalidates in every list costs two calls per read, incomplete and uncached', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.answer = async () => {
      provider.control!.invalidate()
      return provider.candidates
    }
    mount(app, provider)
    expect((await app.skills.snapshot()).complete).toBe(false)
    expect(provider.listCalls).toHaveLength(2)
    await app.skills.snapshot()
    expect(provider.listCalls).toHaveLength(4)
  })

  it('a loaded definition whose name changed loads undefined and makes the next read re-list', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.load = async (c) => ({ ...definitionOf(c), name: 'renamed' })
    mount(app, provider)
    expect(await app.skills.get('a')).toBeUndefined()
    await app.skills.list()
    expect(provider.listCalls).toHaveLength(2)
  })

  it('get() resolves undefined when the provider does, and passes a provider rejection through unchanged', async () => {
    const provider = scripted('scripted', [candidate('gone'), candidate('boom')])
    const failure = new Error('disk on fire')
    provider.load = async (c) => {
      if (c.name === 'boom') throw failure
      return undefined
    }
    mount(app, provider)
    expect(await app.skills.get('gone')).toBeUndefined()
    await expect(app.skills.get('boom', { signal: new AbortController().signal })).rejects.toBe(failure)
  })
})

describe('aborts', () => {
  it('after a cached discovery, an abort before loading rejects with the reason and never calls get()', async () => {
    const provider = scripted('scripted', [candidate('a')])
    mount(app, provider)
    await app.skills.list()
    const reason = new Error('stop now')
    await expect(app.skills.get('a', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
    expect(provider.getCalls).toHaveLength(0)
  })

  it('an abort during a hung get() settles at once; a reason whose coercion throws gets a placeholder', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.load = () => new Promise(() => {})
    mount(app, provider)
    const controller = new AbortController()
    const pending = app.skills.get('a', { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort({ toString: () => { throw new Error('no') } })
    const error = await pending.catch((e: unknown) => e)
    expect((error as SkillError).code).toBe('SKILL_ABORTED')
    expect((error as Error).message).toMatch(/unprintable/)
  })

  it('an abort during a hung list() rejects promptly with the reason; the provider saw the caller signal', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.answer = () => new Promise(() => {})
    mount(app, provider)
    const controller = new AbortController()
    const pending = app.skills.list({ signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort(new Error('user cancelled'))
    await expect(pending).rejects.toThrow('user cancelled')
    expect(provider.listCalls[0]!.signal).toBe(controller.signal)
  })
})

describe('layers and scopes', () => {
  it('a scoped provider is seen only by views of that scope', async () => {
    const agent = {}
    mount(app, scripted('scoped', [candidate('mine', { provider: 'scoped' })]), agent)
    expect(await app.skills.list()).toEqual([])
    expect(await app.skills.get('mine')).toBeUndefined()
    expect(names(await app.skills.list({ scope: agent }))).toEqual(['mine'])
    expect((await app.skills.get('mine', { scope: agent }))?.content).toBe('body of mine')
    expect(await app.skills.list({ scope: {} })).toEqual([])
  })

  it('the nearest layer wins a name whatever the ranks; the global view keeps the global entry', async () => {
    const agent = {}
    mount(app, scripted('global', [candidate('a', { provider: 'global', rank: 10, description: 'global' })]))
    mount(app, scripted('scoped', [candidate('a', { provider: 'scoped', rank: 900, description: 'scoped' })]), agent)
    expect((await app.skills.list({ scope: agent }))[0]!.description).toBe('scoped')
    expect((await app.skills.list())[0]!.description).toBe('global')
  })

  it('follows scope parents, and re-binding a scope changes its view without any registration', async () => {
    const presetA = {}
    const presetB = {}
    const agent = {}
    mount(app, scripted('a', [candidate('from-a', { provider: 'a' })]), presetA)
    mount(app, scripted('b', [candidate('from-b', { provider: 'b' })]), presetB)
    app.skills.bindScope(agent, presetA)
    expect(names(await app.skills.list({ scope: agent }))).toEqual(['from-a'])
    app.skills.bindScope(agent, presetB)
    expect(names(await app.skills.list({ scope: agent }))).toEqual(['from-b'])
    app.skills.bindScope(agent, undefined)
    expect(await app.skills.list({ scope: agent })).toEqual([])
  })

  it('survives a parent cycle', async () => {
    const a = {}
    const b = {}
    app.skills.bindScope(a, b)
    app.skills.bindScope(b, a)
    mount(app, scripted('scoped', [candidate('x', { provider: 'scoped' })]), b)
    expect(names(await app.skills.list({ scope: a }))).toEqual(['x'])
  })

  it('follows at most scopeChainMaxLength scopes up the parents (default 64), and refuses a bad cap at load', async () => {
    // A chain of 66 scopes: the view's own scope, then 65 ancestors; the farthest holds a skill.
    const chain: object[] = Array.from({ length: 66 }, () => ({}))
    chain.slice(1).forEach((parent, index) => app.skills.bindScope(chain[index]!, parent))
    mount(app, scripted('far', [candidate('far-away', { provider: 'far' })]), chain[65])
    mount(app, scripted('near', [candidate('near-by', { provider: 'near' })]), chain[63])
    expect(names(await app.skills.list({ scope: chain[0]! }))).toEqual(['near-by'])
    const short = await registryApp({ scopeChainMaxLength: 2 })
    try {
      const [agent, preset, grand] = [{}, {}, {}]
      short.skills.bindScope(agent, preset)
      short.skills.bindScope(preset, grand)
      mount(short, scripted('p', [candidate('from-preset', { provider: 'p' })]), preset)
      mount(short, scripted('g', [candidate('from-grand', { provider: 'g' })]), grand)
      expect(names(await short.skills.list({ scope: agent }))).toEqual(['from-preset'])
      expect(names(await short.skills.list({ scope: preset }))).toEqual(['from-grand', 'from-preset'])
    } finally {
      await short.stop()
    }
    expect(() => SkillRegistry.Config({ scopeChainMaxLength: 0 })).toThrow(/scopeChainMaxLength/)
    expect(SkillRegistry.Config({}).scopeChainMaxLength).toBe(64)
  })

  it('provider names are unique per layer', () => {
    const one = {}
    const two = {}
    mount(app, scripted('same'), one)
    mount(app, scripted('same'), two)
    mount(app, scripted('same'))
    expect(() => mount(app, scripted('same'), one)).toThrow(/already registered in this scope/)
  })

  it('runtime first-wins holds per layer; a scoped runtime skill shadows the global one until disposed', async () => {
    const agent = {}
    app.skills.register({ name: 'r', description: 'global', content: 'g' })
    const shadow = app.skills.register({ name: 'r', description: 'scoped', content: 's' }, { scope: agent })
    expect((await app.skills.list({ scope: agent }))[0]!.description).toBe('scoped')
    shadow()
    expect((await app.skills.list({ scope: agent }))[0]!.description).toBe('global')
  })

  it('unloading the plugin that registered removes its registrations and announces it', async () => {
    let changes = 0
    app.skills.onChange(() => {
      changes++
    })
    const agent = {}
    const fork = app.plugin({
      name: 'registers',
      inject: ['skills'],
      apply: (ctx: Context) => {
        ctx.skills.registerProvider(() => scripted('in-plugin', [candidate('p', { provider: 'in-plugin' })]), { scope: agent })
        ctx.skills.register({ name: 'q', description: 'q', content: '' }, { scope: agent })
      },
    })
    await app.events.flush()
    expect(names(await app.skills.list({ scope: agent }))).toEqual(['p', 'q'])
    const before = changes
    fork.dispose()
    expect(await app.skills.list({ scope: agent })).toEqual([])
    expect(changes).toBeGreaterThan(before)
  })
})

describe('an observation that expires (a provider that cannot watch)', () => {
  it('is listed again when it expires while something listens, and a different answer is a change', async () => {
    await app.stop()
    app = await registryApp({ recheckMinMs: 1 })
    const provider = scripted('unwatched', [candidate('a', { provider: 'unwatched' })])
    provider.answer = async () => ({ candidates: provider.candidates, complete: true, maxAgeMs: 20 })
    mount(app, provider)
    let changes = 0
    app.skills.onChange(() => {
      changes++
    })
    expect(names(await app.skills.list())).toEqual(['a'])
    // Listed again with nothing changed: no change is told.
    await waitFor(() => expect(provider.listCalls.length).toBeGreaterThanOrEqual(3))
    expect(changes).toBe(0)
    provider.candidates = [candidate('a', { provider: 'unwatched' }), candidate('b', { provider: 'unwatched' })]
    await waitFor(() => expect(changes).toBe(1))
    expect(names(await app.skills.list())).toEqual(['a', 'b'])
  })

  it('is not listed again while nobody listens', async () => {
    await app.stop()
    app = await registryApp({ recheckMinMs: 1 })
    const provider = scripted('unwatched', [candidate('a', { provider: 'unwatched' })])
    provider.answer = async () => ({ candidates: provider.candidates, complete: true, maxAgeMs: 1 })
    mount(app, provider)
    await app.skills.list()
    // A recheck would be due after 1 ms; fifty times that passes without one (nothing listens).
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(provider.listCalls).toHaveLength(1)
  })
})
