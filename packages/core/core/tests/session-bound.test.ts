import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionService, SessionsConfig } from '../src/index.ts'

// Issue 16, item 10: a long-lived session (dsh serve's one session, where every search appends a
// record) keeps at most `maxEvents` events; older ones are dropped, seqs keep counting.

let app: Context | undefined

afterEach(async () => {
  await app?.stop()
  app = undefined
})

async function sessions(config: Record<string, unknown>): Promise<SessionService> {
  app = new Context()
  app.plugin(SessionService, SessionsConfig.parse(config))
  await app.start()
  return app.sessions
}

describe('a session log', () => {
  it('keeps the newest maxEvents events; seqs keep counting and dropped ones are not visible', async () => {
    const session = (await sessions({ maxEvents: 5 })).create({ cwd: '/tmp' })
    for (let n = 0; n < 12; n++) expect(session.append('note', { n }).seq).toBe(n)
    expect(session.events.map((event) => event.seq)).toEqual([7, 8, 9, 10, 11])
    expect(session.events.map((event) => (event.data as { n: number }).n)).toEqual([7, 8, 9, 10, 11])
    expect(session.visible(6)).toBe(false)
    expect(session.visible(7)).toBe(true)
    expect(Object.isFrozen(session.events)).toBe(true)
  })

  it('compaction ranges follow the window: a replaced event stays hidden, and replaces may only name kept events', async () => {
    const session = (await sessions({ maxEvents: 4 })).create({ cwd: '/tmp' })
    for (let n = 0; n < 4; n++) session.append('note', { n })
    session.append('summary', { of: [1, 2] }, { replaces: { start: 1, end: 2 } })
    expect(session.visible(2)).toBe(false)
    expect(session.visible(3)).toBe(true)
    expect(() => session.append('summary', {}, { replaces: { start: 0, end: 1 } })).toThrow(/replaces must be a range of logged seqs/)
    for (let n = 0; n < 10; n++) session.append('note', { n })
    expect(session.events).toHaveLength(4)
    expect(session.events[0]!.seq).toBe(11)
  })

  it('a long session stays bounded: 20,000 appends keep the newest 1,000', async () => {
    const session = (await sessions({ maxEvents: 1000 })).create({ cwd: '/tmp' })
    for (let n = 0; n < 20_000; n++) session.append('search', { n })
    expect(session.events).toHaveLength(1000)
    expect(session.events[0]!.seq).toBe(19_000)
    expect(session.events.at(-1)!.seq).toBe(19_999)
  })

  it('maxEvents defaults to 10000 and is checked', () => {
    expect(SessionsConfig.parse({}).maxEvents).toBe(10_000)
    expect(() => SessionsConfig.parse({ maxEvents: 0 })).toThrow()
    expect(() => SessionsConfig.parse({ maxEvents: 1.5 })).toThrow()
  })
})
