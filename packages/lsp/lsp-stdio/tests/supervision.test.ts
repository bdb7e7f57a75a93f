// [PROC] L3 supervision: the initialize deadline, the crash budget with backoff across queries,
// idle eviction, the cap on live servers, and the readiness probe.
import { afterEach, describe, expect, it } from 'vitest'
import { fakeEvents, fakeMessages, waitForFakeLog } from './fixtures/fake-config.ts'
import { cleanupRigs, isAlive, makeRig, makeWorkspace, rejection, waitFor } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('initialize deadline', () => {
  it('a server that never answers initialize fails LSP_SERVER_START_FAILED and is ended', async () => {
    // long enough for the fake to start and log itself even on a loaded machine
    const rig = await makeRig({ fake: { hang: ['initialize'] }, server: { initializeTimeoutMs: 1500 } })
    const error = await rejection(rig.query('goToDefinition'))
    expect(error).toMatchObject({ code: 'LSP_SERVER_START_FAILED', message: expect.stringContaining('1500 ms') })
    expect(rig.pids()).toHaveLength(1) // a start failure is not replayed
    expect(isAlive(rig.pids()[0]!)).toBe(false)
    expect(rig.provider.status().state).toBe('crashed')
  })
})

describe('crash budget', () => {
  const blocking = { maxCrashes: 2, windowMs: 600_000, backoffMs: 600_000, maxBackoffMs: 600_000 }

  it('once the budget is spent the next query fails LSP_SERVER_CRASHED without spawning, and status says crashed', async () => {
    const rig = await makeRig({ fake: { crashOnOpen: true, stderrBeforeExit: 'FATAL: boom\n' }, server: { crashes: blocking } })
    const first = await rejection(rig.query('goToDefinition'))
    expect(first.code).toBe('LSP_SERVER_EXITED')
    expect(fakeEvents(rig.entries(), 'started')).toHaveLength(2) // the query and its one replay

    const second = await rejection(rig.query('goToDefinition'))
    expect(second.code).toBe('LSP_SERVER_CRASHED')
    expect(second.message).toContain('crashed 2 times')
    expect(second.message).toContain('FATAL: boom')
    expect(second.cause).toMatchObject({ code: 'LSP_SERVER_EXITED' })
    const third = await rejection(rig.query('hover'))
    expect(third.code).toBe('LSP_SERVER_CRASHED')
    expect(fakeEvents(rig.entries(), 'started')).toHaveLength(2)

    const status = rig.provider.status()
    expect(status.state).toBe('crashed')
    expect(status.detail).toContain('restart allowed in')
  })

  it('with the default budget a crashing server fails every query without hanging (145)', async () => {
    const rig = await makeRig({ fake: { crashOnOpen: true } })
    expect((await rejection(rig.query('goToDefinition'))).code).toBe('LSP_SERVER_EXITED')
    // the third crash in the window trips the budget during this query's replay
    expect((await rejection(rig.query('goToDefinition'))).code).toBe('LSP_SERVER_CRASHED')
    expect(rig.pids()).toHaveLength(3)
    expect(rig.pids().filter(isAlive)).toEqual([])
  })

  it('after the backoff a server may start again, and a success clears the crashed state', async () => {
    const rig = await makeRig({
      sequence: [{ crashOnOpen: true }, { crashOnOpen: true }, { results: { 'textDocument/hover': { contents: 'back' } } }],
      server: { crashes: { maxCrashes: 2, windowMs: 600_000, backoffMs: 300, maxBackoffMs: 300 } },
    })
    expect((await rejection(rig.query('hover'))).code).toBe('LSP_SERVER_EXITED')
    expect((await rejection(rig.query('hover'))).code).toBe('LSP_SERVER_CRASHED')
    expect(rig.pids()).toHaveLength(2)
    await sleep(400)
    expect(await rig.query('hover')).toMatchObject({ hover: { contents: 'back' } })
    expect(rig.pids()).toHaveLength(3)
    expect(rig.provider.status().state).toBe('ready')
  })

  it('errors that are not crashes (server error answers, unsupported operations) do not spend the budget', async () => {
    const rig = await makeRig({
      fake: { errorReply: { 'textDocument/definition': { code: -32603, message: 'nope' } }, capabilities: { hoverProvider: false } },
      server: { crashes: { maxCrashes: 1, windowMs: 600_000, backoffMs: 600_000, maxBackoffMs: 600_000 } },
    })
    for (let i = 0; i < 3; i++) {
      expect((await rejection(rig.query('goToDefinition'))).code).toBe('LSP_SERVER_ERROR')
      expect((await rejection(rig.query('hover'))).code).toBe('LSP_UNSUPPORTED_OPERATION')
    }
    expect(await rig.query('findReferences')).toMatchObject({ kind: 'locations' })
    expect(rig.pids()).toHaveLength(1)
  })

  it('an aborted query does not count as a crash', async () => {
    const rig = await makeRig({ fake: { hang: ['textDocument/definition'] }, server: { crashes: { maxCrashes: 1, windowMs: 600_000, backoffMs: 600_000, maxBackoffMs: 600_000 } } })
    const controller = new AbortController()
    const pending = rig.query('goToDefinition', {}, controller.signal)
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    controller.abort(new Error('stop'))
    await rejection(pending)
    expect(await rig.query('hover')).toMatchObject({ kind: 'hover' })
  })
})

describe('idle eviction and the server cap', () => {
  it('a server idle for idleTimeoutMs is shut down gracefully; the next query starts a new one', async () => {
    const rig = await makeRig({ server: { idleTimeoutMs: 300 } })
    await rig.query('hover')
    const [pid] = rig.pids()
    await waitFor(() => !isAlive(pid!), 'the idle server to exit')
    expect(fakeEvents(rig.entries(), 'exit-clean')).toHaveLength(1)
    expect(rig.provider.status().state).toBe('idle')
    await rig.query('hover')
    expect(rig.pids()).toHaveLength(2)
  })

  it('a server in use is not evicted while its query runs', async () => {
    const rig = await makeRig({ fake: { delayMs: { 'textDocument/definition': 500 } }, server: { idleTimeoutMs: 200 } })
    await rig.query('hover')
    // the idle timer of the first query is still pending when this one starts; it must not kill the server mid-request
    await rig.query('goToDefinition')
    expect(rig.pids()).toHaveLength(1)
  })

  it('maxServers: 1 — starting a server for a second workspace shuts the first one down', async () => {
    const rig = await makeRig({ server: { maxServers: 1 } })
    const other = makeWorkspace()
    await rig.query('hover')
    const [first] = rig.pids()
    await rig.query('hover', { workspaceRoot: other })
    const [, second] = rig.pids()
    await waitFor(() => !isAlive(first!), 'the first workspace’s server to be retired')
    expect(isAlive(second!)).toBe(true)
    expect(fakeEvents(rig.entries(), 'exit-clean')).toHaveLength(1)
    // and back: the first workspace gets a fresh server, the second one's is retired
    await rig.query('hover')
    await waitFor(() => !isAlive(second!), 'the second workspace’s server to be retired')
    expect(rig.pids()).toHaveLength(3)
  })

  it('maxServers: 1 with the only server busy → LSP_CAPACITY for another workspace', async () => {
    const rig = await makeRig({ fake: { hang: ['textDocument/definition'], answerCancel: true }, server: { maxServers: 1 } })
    const controller = new AbortController()
    const busy = rig.query('goToDefinition', {}, controller.signal)
    busy.catch(() => {})
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    const error = await rejection(rig.query('hover', { workspaceRoot: makeWorkspace() }))
    expect(error.code).toBe('LSP_CAPACITY')
    expect(rig.pids()).toHaveLength(1)
    controller.abort(new Error('done'))
    await rejection(busy)
    // The failed call no longer counts as running there: the idle server makes room for another workspace's.
    expect((await rig.query('hover', { workspaceRoot: makeWorkspace() })).kind).toBe('hover')
    expect(rig.pids()).toHaveLength(2)
  })
})

describe('probe', () => {
  it('starts the server for the probed workspace and reports ready', async () => {
    const rig = await makeRig({ fake: { serverInfo: { name: 'fake-ls', version: '0.1' } } })
    const status = await rig.provider.probe({ cwd: rig.ws, signal: new AbortController().signal })
    expect(status.state).toBe('ready')
    expect(status.detail).toContain('fake-ls 0.1')
    expect(rig.pids()).toHaveLength(1)
    // the probed server is the one queries use
    await rig.query('hover')
    expect(rig.pids()).toHaveLength(1)
  })

  it('a probe queued behind a query while the provider unloads starts no server', async () => {
    const rig = await makeRig({ fake: { hang: ['textDocument/definition'] } })
    const query = rig.query('goToDefinition')
    query.catch(() => {})
    await waitForFakeLog(rig.log, (e) => fakeMessages(e, 'in', 'textDocument/definition').length === 1)
    const probe = rig.provider.probe({ cwd: rig.ws, signal: new AbortController().signal })
    await rig.provider.disposeAll()
    expect(await probe).toMatchObject({ state: 'unavailable', detail: expect.stringContaining('provider is disposed') })
    expect((await rejection(query)).code).toBe('LSP_DISPOSED')
    expect(rig.pids()).toHaveLength(1)
    expect(rig.pids().filter(isAlive)).toEqual([])
  })

  it('never throws: a server that cannot start is crashed, a bad workspace is unavailable', async () => {
    const rig = await makeRig({ fake: { hang: ['initialize'] }, server: { initializeTimeoutMs: 200 } })
    const hung = await rig.provider.probe({ cwd: rig.ws, signal: new AbortController().signal })
    expect(hung.state).toBe('crashed')
    expect(hung.detail).toContain('initialize')
    const missing = await rig.provider.probe({ cwd: `${rig.ws}/missing`, signal: new AbortController().signal })
    expect(missing.state).toBe('unavailable')
    expect(missing.detail).toContain('does not exist')
    expect(rig.pids().filter(isAlive)).toEqual([])
  })
})
