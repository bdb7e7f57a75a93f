// [PROC] Issue 32 item 4: a server that dies, or says in its log that its backend died, while it
// indexes must not end readiness as if the indexing had finished. The crash is detected, the
// server replaced, and the query is answered by the replacement (never by the broken one).
import { afterEach, describe, expect, it } from 'vitest'
import { fakeEvents, fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, isAlive, makeRig, range, waitFor } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const full = [
  { uri: 'file:///w/a.ts', range: range(1, 2) },
  { uri: 'file:///w/b.ts', range: range(3, 4) },
]
/** What typescript-language-server logs when its tsserver is killed (seen with 5.3.0 over TypeScript 5.9). */
const TSSERVER_EXITED = '[lspserver] [tsclient] [tsserver] Exited. Code: null. Signal: SIGKILL'

describe('a crash while indexing', () => {
  it('a fatal error in the log, then a progress end that looks normal: the server is replaced and the answer comes from the new one', async () => {
    const rig = await makeRig({
      sequence: [
        { progress: { onInitialized: true, durationMs: 0, crash: { afterMs: 300, log: TSSERVER_EXITED } }, results: { 'textDocument/references': full }, resultsAfterCrash: { 'textDocument/references': [] } },
        { results: { 'textDocument/references': full } },
      ],
      server: { fatalLogPatterns: ['\\[tsserver\\] Exited'] },
    })
    const result = await rig.query('findReferences')
    expect(result).toEqual({ kind: 'locations', locations: full, resolvedWorkspaceUri: rig.wsUrl, complete: true })
    const [broken, replacement] = rig.pids()
    expect(replacement).toBeDefined()
    await waitFor(() => !isAlive(broken!), 'the broken server to be ended')
    expect(rig.provider.status().state).toBe('ready')
  })

  it('a fatal log line after indexing also retires the server: the next query starts a new one', async () => {
    const rig = await makeRig({
      sequence: [
        { serverNotifications: [{ method: 'window/logMessage', params: { type: 1, message: TSSERVER_EXITED } }], results: { 'textDocument/hover': { contents: 'first' } } },
        { results: { 'textDocument/hover': { contents: 'second' } } },
      ],
      server: { fatalLogPatterns: ['\\[tsserver\\] Exited'] },
    })
    // The notification is sent on the open; whether the first answer comes before it is read is a race, so look at the second query.
    await rig.query('hover').catch(() => {})
    await waitFor(() => rig.pids().length > 0 && !isAlive(rig.pids()[0]!), 'the broken server to be ended')
    expect(await rig.query('hover')).toMatchObject({ hover: { contents: 'second' } })
  })

  it('a log line of another type, or one that matches no pattern, is not a crash', async () => {
    const rig = await makeRig({
      fake: {
        serverNotifications: [
          { method: 'window/logMessage', params: { type: 2, message: TSSERVER_EXITED } },
          { method: 'window/logMessage', params: { type: 1, message: 'could not read tsconfig.json' } },
          { method: 'window/showMessage', params: { type: 3, message: TSSERVER_EXITED } },
        ],
        results: { 'textDocument/hover': { contents: 'fine' } },
      },
      server: { fatalLogPatterns: ['\\[tsserver\\] Exited'] },
    })
    expect(await rig.query('hover')).toMatchObject({ hover: { contents: 'fine' } })
    expect(await rig.query('hover')).toMatchObject({ hover: { contents: 'fine' } })
    expect(rig.pids()).toHaveLength(1)
  })

  it('a server that exits while indexing wakes the waiting query at once: it is replayed on a new server, not held for indexingTimeoutMs', async () => {
    const rig = await makeRig({
      sequence: [{ progress: { onInitialized: true, durationMs: 0, crash: { afterMs: 300 } } }, { results: { 'textDocument/references': full } }],
      // An hour's patience: the test times out long before if the query waits for the dead server's progress.
      server: { indexingTimeoutMs: 3_600_000, progressTimeoutMs: 3_600_000 },
    })
    const result = await rig.query('findReferences')
    expect(result).toEqual({ kind: 'locations', locations: full, resolvedWorkspaceUri: rig.wsUrl, complete: true })
    expect(fakeEvents(rig.entries(), 'started')).toHaveLength(2)
    // the dead server was never asked: it died before its indexing ended
    expect(fakeMessages(rig.entries(), 'in', 'textDocument/references')).toHaveLength(1)
  }, 120_000)

  it('fatalLogPatterns must be regular expressions (checked at load)', async () => {
    await expect(makeRig({ server: { fatalLogPatterns: ['(unclosed'] } })).rejects.toThrow(/fatalLogPatterns/)
  })
})
