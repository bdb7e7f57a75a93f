// [PROC] L2 readiness: the client follows the server's work-done progress, waits (bounded) for
// project loading before answering, re-asks when loading began while it asked, and says
// `complete: false` when it could not wait long enough. Status shows idle / indexing / ready.
import { afterEach, describe, expect, it } from 'vitest'
import { fakeMessages, waitForFakeLog } from './fixtures/fake-config.ts'
import { caseRigs, cleanupRigs, makeRig, range, waitFor } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const early = [{ uri: 'file:///w/half-loaded.ts', range: range(0, 0) }]
const full = [
  { uri: 'file:///w/a.ts', range: range(1, 2) },
  { uri: 'file:///w/b.ts', range: range(3, 4) },
]

// Side by side, each case its own fake and rig (torn down when it finishes): each waits for a fake's
// loading to end. The status cases below read a state that lasts a moment, so they run in turn.
describe.concurrent('waiting for indexing', () => {
  it.for([
    ['with a create request', true],
    ['server-initiated (no create request)', false],
  ] as const)('a cold server that is indexing answers with the ready result, complete (%s)', async ([, createRequest], context) => {
    const rig = await caseRigs(context).makeRig({
      fake: {
        progress: { onInitialized: true, createRequest, durationMs: 600, title: 'Loading fake project' },
        resultsBeforeReady: { 'textDocument/references': early },
        results: { 'textDocument/references': full },
      },
    })
    expect(await rig.query('findReferences')).toEqual({ kind: 'locations', locations: full, resolvedWorkspaceUri: rig.wsUrl, complete: true })
    expect(rig.reports).toContain('Loading fake project')
    // starting → initialized → the progress title(s) → ready once the last progress ended
    expect(rig.reports[0]).toBe('starting')
    expect(rig.reports.at(-1)).toBe('ready')
    expect(rig.reports.indexOf('initialized')).toBeLessThan(rig.reports.lastIndexOf('ready'))
  })

  it('progress that begins while the request runs makes the provider wait and ask again', async (context) => {
    const rig = await caseRigs(context).makeRig({
      fake: {
        // progress starts on the first didOpen, i.e. while the (delayed) request is being answered
        progress: { durationMs: 600 },
        delayMs: { 'textDocument/definition': 200 },
        resultsBeforeReady: { 'textDocument/definition': early },
        results: { 'textDocument/definition': full },
      },
    })
    expect(await rig.query('goToDefinition')).toEqual({ kind: 'locations', locations: full, resolvedWorkspaceUri: rig.wsUrl, complete: true })
    const entries = rig.entries()
    const asked = fakeMessages(entries, 'in', 'textDocument/definition')
    expect(asked).toHaveLength(2)
    // the first answer was the half-loaded one; only the second, after `end`, was returned
    const answers = fakeMessages(entries, 'out').filter((m) => asked.some((a) => a.id === m.id))
    expect(answers.map((m) => m.result)).toEqual([early, full])
    // the client acknowledged the server's create request
    expect(fakeMessages(entries, 'in').find((m) => m.responseTo === 'window/workDoneProgress/create')).toMatchObject({ result: null })
  })

  it('an indexing budget shorter than the loading gives the early answer marked complete: false', async (context) => {
    const rig = await caseRigs(context).makeRig({
      fake: {
        // Loading ends when the test asks for an implementation (60 s at most): not on a timer a
        // loaded machine could outrun between the two early queries.
        progress: { onInitialized: true, durationMs: 60_000, endOnRequest: 'textDocument/implementation' },
        resultsBeforeReady: { 'textDocument/definition': early, 'textDocument/hover': { contents: 'loading…' } },
        results: { 'textDocument/definition': full, 'textDocument/hover': { contents: 'ready' } },
      },
      server: { indexingTimeoutMs: 150 },
    })
    expect(await rig.query('goToDefinition')).toEqual({ kind: 'locations', locations: early, resolvedWorkspaceUri: rig.wsUrl, complete: false })
    expect(await rig.query('hover')).toEqual({ kind: 'hover', hover: { contents: 'loading…' }, complete: false })
    // once loading ends, answers are complete again (same server)
    await rig.query('goToImplementation')
    await waitForFakeLog(rig.log, (e) => e.some((entry) => 'event' in entry && entry.event === 'progress-end'))
    await waitFor(() => rig.provider.status().state === 'ready', 'status ready')
    expect(await rig.query('goToDefinition')).toEqual({ kind: 'locations', locations: full, resolvedWorkspaceUri: rig.wsUrl, complete: true })
    expect(rig.pids()).toHaveLength(1)
  })

  it('a server without progress answers complete: true at once', async (context) => {
    const rig = await caseRigs(context).makeRig({ fake: { results: { 'textDocument/definition': full } } })
    expect(await rig.query('goToDefinition')).toMatchObject({ locations: full, complete: true })
    expect(fakeMessages(rig.entries(), 'in', 'textDocument/definition')).toHaveLength(1)
  })
})

describe('status while indexing', () => {
  it('idle before any query, indexing while progress is outstanding, ready after it ends', async () => {
    const rig = await makeRig({
      // `begin` without a `create` first: the title arrives with the token (see 'a progress token that never ends').
      fake: { progress: { onInitialized: true, createRequest: false, durationMs: 1200, title: 'Loading fake project' } },
      server: { indexingTimeoutMs: 100 },
    })
    expect(rig.provider.status().state).toBe('idle')
    expect(await rig.query('hover')).toMatchObject({ complete: false })
    const indexing = rig.provider.status()
    expect(indexing.state).toBe('indexing')
    expect(indexing.detail).toContain('Loading fake project')
    await waitFor(() => rig.provider.status().state === 'ready', 'status ready')
    expect(rig.provider.status().detail).toContain(`pid ${rig.pids()[0]}`)
  })
})

describe('a progress token that never ends', () => {
  it('is treated as ended after progressTimeoutMs: the server is ready again, status says why, answers are complete', async () => {
    // `begin` alone, right after `initialized` (before the handshake's settle reply): the token and its
    // title arrive together, ahead of the first query. With a `create` first, a fake descheduled
    // between our reply to `create` and its `begin` (load 30) left the token untitled past the
    // first query's 100 ms, or past the 600 ms, and status named "fake-indexing".
    const rig = await makeRig({
      fake: { progress: { onInitialized: true, createRequest: false, durationMs: 3_600_000, title: 'Loading forever' } },
      server: { indexingTimeoutMs: 100, progressTimeoutMs: 600 },
    })
    const first = await rig.query('hover')
    // A loaded machine may reach this line after the 600 ms have passed; what is checked is the
    // pairing: while the token still counts, answers are incomplete and status names it.
    const status = rig.provider.status()
    if (status.state === 'indexing') {
      expect(first).toMatchObject({ complete: false })
      expect(status.detail).toContain('Loading forever')
    }
    await waitFor(() => rig.provider.status().state === 'ready', 'the stuck token to be treated as ended')
    expect(rig.provider.status().detail).toContain('progress "Loading forever" never ended and was treated as ended after 600 ms (progressTimeoutMs)')
    expect(await rig.query('hover')).toMatchObject({ complete: true })
    expect(rig.pids()).toHaveLength(1)
  })
})

describe('work announced only in the log (logProgress)', () => {
  const logProgress = { title: 'background analysis', begin: 'Analysis: begin', end: 'Analysis: done', fromInitialized: true }

  it('counts from initialized: a query waits for the end line, then answers complete', async () => {
    const rig = await makeRig({
      fake: { serverNotifications: [{ method: 'window/logMessage', params: { type: 3, message: '10:00 INFO Analysis: done after 1 s' } }], results: { 'textDocument/references': full } },
      server: { logProgress },
    })
    expect(await rig.query('findReferences')).toEqual({ kind: 'locations', locations: full, resolvedWorkspaceUri: rig.wsUrl, complete: true })
    expect(rig.reports).toContain('background analysis')
    expect(rig.reports.at(-1)).toBe('ready')
  })

  it('without the end line the answer is complete: false once indexingTimeoutMs ran out, and status says indexing', async () => {
    const rig = await makeRig({ fake: { results: { 'textDocument/references': full } }, server: { logProgress, indexingTimeoutMs: 300 } })
    expect(await rig.query('findReferences')).toMatchObject({ locations: full, complete: false })
    expect(rig.provider.status()).toMatchObject({ state: 'indexing' })
  })
})
