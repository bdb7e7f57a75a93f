// [PROC] Every request the client gives up on is cancelled on the wire (issue 27 item 2): the
// handshake's `initialize`, its `$/dsh/settle` round trip, the diagnostics barrier and `shutdown`
// all go through LspConnection.request, which sends `$/cancelRequest` whenever it stops waiting —
// on a timeout as on an abort. The fake server records what it receives.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fakeMessages, waitForFakeLog, type FakeLogEntry } from './fixtures/fake-config.ts'
import { caseRigs, rejection } from './fixtures/rig.ts'

/** The JSON-RPC messages in raw LSP framing (`Content-Length: n` headers, then n bytes of JSON). */
function framesIn(bytes: Buffer): { id?: unknown; method?: string; params?: { id?: unknown } }[] {
  const messages = []
  for (let at = 0; at < bytes.length; ) {
    const headerEnd = bytes.indexOf('\r\n\r\n', at)
    if (headerEnd < 0) break
    const length = Number(/Content-Length: (\d+)/i.exec(bytes.subarray(at, headerEnd).toString('latin1'))?.[1])
    const start = headerEnd + 4
    messages.push(JSON.parse(bytes.subarray(start, start + length).toString('utf8')))
    at = start + length
  }
  return messages
}

/** The `$/cancelRequest` ids the fake received for requests of `method`. */
function cancelledIds(entries: FakeLogEntry[], method: string): unknown[] {
  const ids = new Set(fakeMessages(entries, 'in', method).map((message) => message.id))
  return fakeMessages(entries, 'in', '$/cancelRequest')
    .map((message) => (message.params as { id?: unknown } | undefined)?.id)
    .filter((id) => ids.has(id as never))
}

// The cases run side by side (each its own fake and rig, torn down when it finishes): two of them
// wait out a kill grace on purpose (2 s and 3 s), so that the cancel is on record before the kill.
describe.concurrent('a request the client gives up on is cancelled', () => {
  it('an initialize timeout sends $/cancelRequest for initialize and fails LSP_SERVER_START_FAILED', async (context) => {
    const { makeRig, tempDir } = caseRigs(context)
    // The trapped SIGTERM keeps the fake reading until the kill grace ends, so the cancel is seen.
    // The server is `cat` recording what it is sent (fd 3 keeps our end of its stdout open), started
    // by a shell that makes it ignore SIGTERM:
    // it is reading within moments of the spawn, whatever the load, and keeps reading until the kill
    // after the grace, so the cancel written after the timeout is on record. (A node fake may not
    // even have started reading when a short initialize timeout fires on a loaded machine.)
    const raw = join(tempDir('lsp-give-up-'), 'stdin.raw')
    const rig = await makeRig({
      executable: '/bin/sh',
      server: { args: ['-c', 'trap "" TERM; exec 3>&1; exec cat > "$RAW_STDIN_FILE"'], initializeTimeoutMs: 300, killGraceMs: 2000 },
      env: { RAW_STDIN_FILE: raw },
    })
    const error = await rejection(rig.query('hover'))
    expect(error.code).toBe('LSP_SERVER_START_FAILED')
    expect(error.message).toContain('300 ms')
    await rig.provider.disposeAll()
    const sent = framesIn(readFileSync(raw))
    const initialize = sent.find((message) => message.method === 'initialize')
    expect(initialize).toBeDefined()
    expect(sent.filter((message) => message.method === '$/cancelRequest' && message.params?.id === initialize!.id)).toHaveLength(1)
  })

  it('the handshake round trip that gets no answer within handshakeSettleMs is cancelled; the query still succeeds', async (context) => {
    const { makeRig } = caseRigs(context)
    const rig = await makeRig({ fake: { hang: ['$/dsh/settle'] }, server: { handshakeSettleMs: 200 } })
    expect(await rig.query('hover')).toMatchObject({ kind: 'hover', hover: null })
    const entries = await waitForFakeLog(rig.log, (logged) => fakeMessages(logged, 'in', '$/cancelRequest').length > 0)
    expect(cancelledIds(entries, '$/dsh/settle')).toHaveLength(1)
  })

  it('a diagnostics barrier that gets no answer within handshakeSettleMs is cancelled', async (context) => {
    const { makeRig } = caseRigs(context)
    const rig = await makeRig({ fake: { hang: ['$/dsh/barrier'], publishOnOpen: [{ diagnostics: [] }] }, server: { handshakeSettleMs: 200 } })
    await rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    const entries = await waitForFakeLog(rig.log, (logged) => cancelledIds(logged, '$/dsh/barrier').length > 0)
    expect(cancelledIds(entries, '$/dsh/barrier')).toHaveLength(1)
  })

  it('a shutdown that gets no answer within shutdownTimeoutMs is cancelled before the process group is ended', async (context) => {
    const { makeRig } = caseRigs(context)
    const rig = await makeRig({ fake: { ignoreShutdown: true, trapSigterm: true, ignoreStdinEnd: true }, server: { shutdownTimeoutMs: 300, killGraceMs: 3000 } })
    await rig.query('hover')
    await rig.provider.disposeAll()
    expect(cancelledIds(rig.entries(), 'shutdown')).toHaveLength(1)
  })

  it('a query request that times out is cancelled once (as before)', async (context) => {
    const { makeRig } = caseRigs(context)
    const rig = await makeRig({ fake: { hang: ['textDocument/hover'], answerCancel: true }, server: { requestTimeoutMs: 300 } })
    expect((await rejection(rig.query('hover'))).code).toBe('LSP_TIMEOUT')
    expect(cancelledIds(rig.entries(), 'textDocument/hover')).toHaveLength(1)
  })
})
