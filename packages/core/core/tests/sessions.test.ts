import { resolve } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createUserMessage, SessionService, type PreStepDecision, type Session, type SessionEvent, type UserMessage } from '../src/index.ts'
import { harnessThrow } from './helpers.ts'

let app: Context

beforeEach(async () => {
  app = new Context()
  app.plugin(SessionService)
  await app.start()
})

afterEach(async () => {
  await app.stop()
})

const user = (text: string) => createUserMessage(text, { kind: 'user' })
const texts = (decision: PreStepDecision) => (decision.kind === 'enter' ? decision.messages.map((m) => m.content.map((b) => b.text).join('')) : decision.reason)

describe('create', () => {
  it('creates a session with an absolute cwd and an id', () => {
    const session = app.sessions.create({ cwd: '/tmp/project' })
    expect(session.cwd).toBe('/tmp/project')
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(app.sessions.get(session.id)).toBe(session)
    expect(session.events).toEqual([])
  })

  it('resolves a relative cwd against the process directory and keeps a given id', () => {
    const session = app.sessions.create({ id: 'fixed', cwd: 'some/dir' })
    expect(session.id).toBe('fixed')
    expect(session.cwd).toBe(resolve(process.cwd(), 'some/dir'))
  })

  it('refuses a second session with the same id', () => {
    app.sessions.create({ id: 'twice', cwd: '/tmp' })
    expect(harnessThrow(() => app.sessions.create({ id: 'twice', cwd: '/tmp' })).code).toBe('SESSION_EXISTS')
  })

  it('gives distinct sessions distinct ids and logs', () => {
    const a = app.sessions.create({ cwd: '/a' })
    const b = app.sessions.create({ cwd: '/b' })
    a.append('note', 1)
    expect(a.id).not.toBe(b.id)
    expect(b.events).toEqual([])
    expect(app.sessions.get('unknown')).toBeUndefined()
  })
})

describe('the event log', () => {
  let session: Session
  beforeEach(() => {
    session = app.sessions.create({ cwd: '/tmp/log' })
  })

  it('appends with contiguous seq numbers and returns the logged event', () => {
    const first = session.append('a', { n: 1 })
    const second = session.append('b', [1, 'two', null, true])
    const third = session.append('c', 'text')
    expect([first.seq, second.seq, third.seq]).toEqual([0, 1, 2])
    expect(session.events.map((e) => [e.seq, e.type, e.data])).toEqual([
      [0, 'a', { n: 1 }],
      [1, 'b', [1, 'two', null, true]],
      [2, 'c', 'text'],
    ])
    expect(session.events[0]).toBe(first)
    expect(typeof first.time).toBe('number')
  })

  it('hands out frozen snapshots that later appends do not change', () => {
    session.append('a', { nested: { list: [1] } })
    const before = session.events
    session.append('b', null)
    expect(before).toHaveLength(1)
    expect(session.events).toHaveLength(2)
    expect(Object.isFrozen(before)).toBe(true)
    expect(Object.isFrozen(session.events)).toBe(true)
    expect(() => (before as SessionEvent[]).push(before[0]!)).toThrow(TypeError)
    const event = session.events[0]!
    expect(Object.isFrozen(event)).toBe(true)
    expect(Object.isFrozen((event.data as { nested: object }).nested)).toBe(true)
    expect(() => {
      ;(event as { seq: number }).seq = 99
    }).toThrow(TypeError)
  })

  it('copies data, so changing the appended object later does not change the log', () => {
    const data = { list: [1, 2] }
    session.append('a', data)
    data.list.push(3)
    expect(session.events[0]!.data).toEqual({ list: [1, 2] })
  })

  it.each([
    ['a function', { f: () => 1 }],
    ['undefined', undefined],
    ['a bigint', { n: 1n }],
    ['NaN', { n: NaN }],
    ['Infinity', Infinity],
    ['a Date', new Date(0)],
    ['a class instance', new (class Thing {})()],
    ['a symbol', Symbol('s')],
  ])('refuses %s with SESSION_INVALID_EVENT and leaves the log as it was', (_label, data) => {
    session.append('ok', 1)
    expect(harnessThrow(() => session.append('bad', data)).code).toBe('SESSION_INVALID_EVENT')
    expect(session.events.map((e) => e.type)).toEqual(['ok'])
    expect(session.append('next', 2).seq).toBe(1)
  })

  it('refuses a cycle and an empty type', () => {
    const cycle: Record<string, unknown> = {}
    cycle.me = cycle
    expect(harnessThrow(() => session.append('cyclic', cycle)).code).toBe('SESSION_INVALID_EVENT')
    expect(harnessThrow(() => session.append('', 1)).code).toBe('SESSION_INVALID_EVENT')
    expect(session.events).toEqual([])
  })

  it('emits session/event, and a throwing listener does not break appending', () => {
    const seen: [string, number][] = []
    app.on('session/event', (owner, event) => {
      seen.push([owner.id, event.seq])
    })
    app.on('session/event', () => {
      throw new Error('observer failed')
    })
    session.append('a', 1)
    session.append('b', 2)
    expect(seen).toEqual([
      [session.id, 0],
      [session.id, 1],
    ])
    expect(session.events).toHaveLength(2)
  })
})

describe('ending and eviction', () => {
  it('end() frees the log, forgets the session, refuses later appends and pre-steps, and tells listeners once', async () => {
    const ended: [string, string][] = []
    app.on('session/end', (session, reason) => ended.push([session.id, reason]))
    const session = app.sessions.create({ cwd: '/tmp', id: 'done' })
    session.append('a', 1)
    app.sessions.end('done')
    app.sessions.end(session)
    expect(ended).toEqual([['done', 'ended']])
    expect(session.ended).toBe(true)
    expect(session.events).toEqual([])
    expect(app.sessions.get('done')).toBeUndefined()
    expect(harnessThrow(() => session.append('b', 2)).code).toBe('SESSION_ENDED')
    await expect(app.sessions.runPreStep(session, [user('hi')])).rejects.toMatchObject({ code: 'SESSION_ENDED' })
    // The id is free again.
    expect(app.sessions.create({ cwd: '/tmp', id: 'done' }).ended).toBe(false)
  })

  it('past maxSessions the least recently active session is evicted', async () => {
    const small = new Context()
    small.plugin(SessionService, { maxSessions: 2 })
    await small.start()
    const evicted: string[] = []
    small.on('session/end', (session, reason) => evicted.push(`${session.id}:${reason}`))
    const a = small.sessions.create({ cwd: '/tmp', id: 'a' })
    small.sessions.create({ cwd: '/tmp', id: 'b' })
    a.append('activity', null)
    small.sessions.create({ cwd: '/tmp', id: 'c' })
    expect(evicted).toEqual(['b:evicted'])
    expect(small.sessions.size).toBe(2)
    expect(small.sessions.get('a')).toBe(a)
    await small.stop()
  })

  it('appending does not copy the log (a long session stays linear)', () => {
    const session = app.sessions.create({ cwd: '/tmp' })
    const before = session.events
    for (let i = 0; i < 20_000; i++) session.append('tick', i)
    // No snapshot was built while appending: the one handed out before is still the empty one.
    expect(before).toHaveLength(0)
    // The default cap (maxEvents, 10000) keeps the newest.
    expect(session.events).toHaveLength(10_000)
    expect(session.events[0]!.seq).toBe(10_000)
    expect(session.events).toBe(session.events)
  })
})

describe('pre-step chain', () => {
  it('with no links, enters the messages as given and logs them as user/message events', async () => {
    const session = app.sessions.create({ cwd: '/tmp' })
    const message = user('hello')
    const decision = await app.sessions.runPreStep(session, [message])
    expect(decision).toEqual({ kind: 'enter', messages: [message] })
    expect(session.events.map((e) => [e.type, e.data])).toEqual([['user/message', message]])
  })

  it('runs links in registration order, around next()', async () => {
    const order: string[] = []
    for (const name of ['a', 'b', 'c']) {
      app.sessions.use(async (_input, next) => {
        order.push(`${name}:before`)
        const decision = await next()
        order.push(`${name}:after`)
        return decision
      })
    }
    const session = app.sessions.create({ cwd: '/tmp' })
    await app.sessions.runPreStep(session, [user('hi')])
    expect(order).toEqual(['a:before', 'b:before', 'c:before', 'c:after', 'b:after', 'a:after'])
  })

  it('lets a link add a message, by returning a decision or by passing messages to next()', async () => {
    app.sessions.use(async (input, next) => {
      const decision = await next()
      if (decision.kind !== 'enter') return decision
      return { kind: 'enter', messages: [...decision.messages, createUserMessage('catalog', { kind: 'skill-catalog', entries: ['a'] })] }
    })
    app.sessions.use(async (input, next) => next([...input.messages, createUserMessage('expanded', { kind: 'skill-gesture' })]))
    const seenByLast: string[] = []
    app.sessions.use(async (input, next) => {
      seenByLast.push(...input.messages.map((m) => m.source.kind))
      return next()
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    const decision = await app.sessions.runPreStep(session, [user('question')])
    expect(texts(decision)).toEqual(['question', 'expanded', 'catalog'])
    expect(seenByLast).toEqual(['user', 'skill-gesture'])
    expect(session.events.map((e) => [e.type, ((e.data as unknown as UserMessage).source as { kind: string }).kind])).toEqual([
      ['user/message', 'user'],
      ['user/message', 'skill-gesture'],
      ['user/message', 'skill-catalog'],
    ])
    const catalog = session.events[2]!.data as unknown as UserMessage
    expect(catalog.role).toBe('user')
    expect(catalog.source).toEqual({ kind: 'skill-catalog', entries: ['a'] })
  })

  it('returns a reject decision and logs nothing', async () => {
    const after: string[] = []
    app.sessions.use(async () => ({ kind: 'reject', reason: 'not now' }))
    app.sessions.use(async (_input, next) => {
      after.push('ran')
      return next()
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    const decision = await app.sessions.runPreStep(session, [user('hi')])
    expect(decision).toEqual({ kind: 'reject', reason: 'not now' })
    expect(after).toEqual([])
    expect(session.events).toEqual([])
  })

  it('skips a link that throws before next() and continues the chain', async () => {
    const seen: string[] = []
    app.sessions.use(async () => {
      throw new Error('broken link')
    })
    app.sessions.use(async (input, next) => {
      seen.push('second')
      return next([...input.messages, user('added')])
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    const decision = await app.sessions.runPreStep(session, [user('hi')])
    expect(seen).toEqual(['second'])
    expect(texts(decision)).toEqual(['hi', 'added'])
    expect(session.events).toHaveLength(2)
  })

  it('skips a link that throws after next() without running the rest twice', async () => {
    let downstreamRuns = 0
    app.sessions.use(async (_input, next) => {
      await next()
      throw new Error('fails late')
    })
    app.sessions.use(async (input, next) => {
      downstreamRuns++
      return next([...input.messages, user('from downstream')])
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    const decision = await app.sessions.runPreStep(session, [user('hi')])
    expect(downstreamRuns).toBe(1)
    expect(texts(decision)).toEqual(['hi', 'from downstream'])
  })

  it('skips a link that forgets to return a decision, keeping what downstream decided', async () => {
    let downstreamRuns = 0
    app.sessions.use((async (_input: unknown, next: () => Promise<PreStepDecision>) => {
      await next() // forgot `return`
    }) as never)
    app.sessions.use(async (input, next) => {
      downstreamRuns++
      return next([...input.messages, user('from downstream')])
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    const decision = await app.sessions.runPreStep(session, [user('hi')])
    expect(downstreamRuns).toBe(1)
    expect(texts(decision)).toEqual(['hi', 'from downstream'])
    expect(session.events).toHaveLength(2)
  })

  it('passes the session and signal to links and makes the session current', async () => {
    const controller = new AbortController()
    let seen: { session?: Session; signal?: AbortSignal; current?: Session | undefined } = {}
    app.sessions.use(async (input, next) => {
      seen = { session: input.session, signal: input.signal, current: app.sessions.current() }
      return next()
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    await app.sessions.runPreStep(session, [user('hi')], controller.signal)
    expect(seen).toEqual({ session, signal: controller.signal, current: session })
    expect(app.sessions.current()).toBeUndefined()
  })

  it('use() returns a disposer that removes the link', async () => {
    const dispose = app.sessions.use(async (input, next) => next([...input.messages, user('extra')]))
    const session = app.sessions.create({ cwd: '/tmp' })
    expect(texts(await app.sessions.runPreStep(session, [user('one')]))).toEqual(['one', 'extra'])
    dispose()
    expect(texts(await app.sessions.runPreStep(session, [user('two')]))).toEqual(['two'])
  })

  it('disposing the plugin that registered a link removes it', async () => {
    const fork = app.plugin({
      name: 'adds-reminder',
      inject: ['sessions'],
      apply(ctx: Context) {
        ctx.sessions.use(async (input, next) => next([...input.messages, createUserMessage('reminder', { kind: 'reminder' })]))
      },
    })
    const session = app.sessions.create({ cwd: '/tmp' })
    expect(texts(await app.sessions.runPreStep(session, [user('one')]))).toEqual(['one', 'reminder'])
    fork.dispose()
    expect(texts(await app.sessions.runPreStep(session, [user('two')]))).toEqual(['two'])
    expect(session.events.map((e) => e.seq)).toEqual([0, 1, 2])
  })
})

describe('createUserMessage', () => {
  it('makes a frozen user message with a fresh id', () => {
    const a = createUserMessage('text', { kind: 'user' })
    const b = createUserMessage([{ type: 'text', text: 'x' }], { kind: 'user' })
    expect(a.role).toBe('user')
    expect(a.content).toEqual([{ type: 'text', text: 'text' }])
    expect(a.id).not.toBe(b.id)
    expect(Object.isFrozen(a)).toBe(true)
    expect(Object.isFrozen(a.content[0])).toBe(true)
  })
})
