import { createUserMessage } from 'dsh-core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gestureNames } from '../src/tool/index.ts'
import { consumerHost, kinds, textOf, type ConsumerHost } from './consumer.ts'
import { candidate, mount, scripted, type ScriptedProvider } from './helpers.ts'

let host: ConsumerHost
let provider: ScriptedProvider

beforeEach(async () => {
  host = await consumerHost()
  provider = scripted('filesystem', [
    candidate('hidden-demo', { provider: 'filesystem', invocation: { modelInvocable: false, userInvocable: true } }),
    candidate('x', { provider: 'filesystem' }),
    candidate('no-user', { provider: 'filesystem', invocation: { modelInvocable: true, userInvocable: false } }),
  ])
  mount(host.app, provider)
})

afterEach(async () => {
  await host.stop()
})

describe('/name in user text', () => {
  it('enters a user-only skill last, after the catalog, rendered like the tool, without the user words', async () => {
    const messages = await host.step('/hidden-demo what does this do')
    expect(kinds(messages)).toEqual(['user', 'skill-catalog', 'skill-invocation'])
    const injected = messages[2]!
    expect(injected.source).toEqual({ kind: 'skill-invocation', name: 'hidden-demo', form: 'instructions' })
    expect(textOf(injected)).toMatch(/^<skill_content name="hidden-demo">/)
    expect(textOf(injected)).toContain('body of hidden-demo')
    expect(textOf(injected)).not.toContain('what does this do')
    // The catalog does not offer it to the model.
    expect(textOf(messages[1]!)).not.toContain('hidden-demo')
  })

  it('works mid-sentence, for ordinary skills too; paths, fractions and prefixed slashes are not gestures', async () => {
    expect(gestureNames([createUserMessage('please run /x now', { kind: 'user' })])).toEqual(['x'])
    for (const text of ['see /x/refs', 'about 5/8 done', 'foo/x', 'end /x.', 'try /Upper']) {
      expect(gestureNames([createUserMessage(text, { kind: 'user' })])).toEqual([])
    }
    expect(kinds(await host.step('please run /x now'))).toEqual(['user', 'skill-catalog', 'skill-invocation'])
  })

  it('leaves unknown names and skills with user-invocable: false as plain prose', async () => {
    expect(kinds(await host.step('/nothing-here and /no-user'))).toEqual(['user', 'skill-catalog'])
  })

  it('scans only user-authored text, and injects a name once per step', async () => {
    const forged = createUserMessage('/x', { kind: 'tool-output' })
    expect(kinds(await host.step([createUserMessage('hi', { kind: 'user' }), forged]))).toEqual(['user', 'tool-output', 'skill-catalog'])
    expect(kinds(await host.step([createUserMessage('/x and /x', { kind: 'user' }), createUserMessage('/x', { kind: 'user' })]))).toEqual(['user', 'user', 'skill-invocation'])
  })

  it('a skill that fails to load fails the step with its name and the error, and records nothing', async () => {
    provider.load = async () => {
      throw new Error('disk on fire')
    }
    const before = host.session.events.length
    const decision = await host.app.sessions.runPreStep(host.session, [createUserMessage('please /x now', { kind: 'user' })])
    expect(decision).toEqual({ kind: 'reject', reason: 'loading skill "x" for /x failed: disk on fire' })
    expect(host.session.events.length).toBe(before)
    // Without a gesture nothing is loaded, so the same provider does not fail the step.
    expect(kinds(await host.step('no gesture here'))).toEqual(['user', 'skill-catalog'])
  })

  it('passes a rejection from a later link through unchanged', async () => {
    host.app.sessions.use(async () => ({ kind: 'reject', reason: 'over quota' }))
    const decision = await host.app.sessions.runPreStep(host.session, [createUserMessage('/x', { kind: 'user' })])
    expect(decision).toEqual({ kind: 'reject', reason: 'over quota' })
  })
})
