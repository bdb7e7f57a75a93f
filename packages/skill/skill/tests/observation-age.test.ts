import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { candidate, mount, registryApp, scripted } from './helpers.ts'

// A provider that cannot watch what it read (an unwatched root, a watcher that failed) says how long
// its observation stays true; the registry re-lists it once the cached observation is older.

let app: Context

beforeEach(async () => {
  app = await registryApp()
})

afterEach(async () => {
  vi.useRealTimers()
  await app.stop()
})

describe('an observation with maxAgeMs', () => {
  it('maxAgeMs 0 is listed again on every read, yet counts as complete', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.answer = async () => ({ candidates: provider.candidates, complete: true, maxAgeMs: 0 })
    mount(app, provider)
    expect(await app.skills.snapshot()).toMatchObject({ complete: true, skills: [expect.objectContaining({ name: 'a' })] })
    provider.candidates = [candidate('a'), candidate('b')]
    expect((await app.skills.list()).map((skill) => skill.name)).toEqual(['a', 'b'])
    await app.skills.get('a')
    expect(provider.listCalls).toHaveLength(3)
  })

  it('is answered from the cache until it is older than maxAgeMs, the shortest age of the merged providers counting', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const slow = scripted('slow', [candidate('a', { provider: 'slow' })])
    slow.answer = async () => ({ candidates: slow.candidates, complete: true, maxAgeMs: 5000 })
    const watched = scripted('watched', [candidate('w', { provider: 'watched' })])
    mount(app, slow)
    mount(app, watched)
    await app.skills.list()
    vi.advanceTimersByTime(4999)
    await app.skills.list()
    expect([slow.listCalls.length, watched.listCalls.length]).toEqual([1, 1])
    vi.advanceTimersByTime(1)
    await app.skills.list()
    expect([slow.listCalls.length, watched.listCalls.length]).toEqual([2, 2])
  })

  it('a malformed maxAgeMs is an invalid observation', async () => {
    const provider = scripted('scripted', [candidate('a')])
    provider.answer = async () => ({ candidates: provider.candidates, complete: true, maxAgeMs: -1 })
    mount(app, provider)
    await expect(app.skills.list()).rejects.toMatchObject({ code: 'SKILL_INVALID_OBSERVATION', message: expect.stringMatching(/maxAgeMs/) })
  })
})
