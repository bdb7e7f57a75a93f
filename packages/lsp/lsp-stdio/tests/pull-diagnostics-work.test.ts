// Issue 27 item 2, diagnostics after a change: a server that answers pulls (TypeScript 7's)
// publishes nothing a diagnostics call waits for, yet each call made a PublishedDiagnostics watch
// (a URI decoded, a Set entry, a closure) and an async layer to dispose it; and a call on the
// caller's Lifetime (diagnostics on it) needs no AbortSignal. Counted, not timed.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { HarnessError, Lifetime } from 'dsh-core'
import { SETTLE_MS } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { abortControllersMadeBy } from '../../../../test-support/abort-controllers.ts'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { PublishedDiagnostics } from '../src/published-diagnostics.ts'
import { fakeMessages, waitForFakeLog } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig, range } from './fixtures/rig.ts'

afterEach(() => {
  vi.restoreAllMocks()
  return cleanupRigs()
})

const PULL = { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }
const ITEMS = [{ range: range(0, 0, 3), severity: 1, message: 'bad' }]

describe('diagnostics of a server that answers pulls', () => {
  it('watch no publications, and make fewer promises per changed file', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items: ITEMS } } } })
    const diagnostics = () => rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    expect((await diagnostics()).items).toHaveLength(1)
    const watches = vi.spyOn(PublishedDiagnostics.prototype, 'watch')
    const N = 10
    let promises = 0
    for (let i = 0; i < N; i++) {
      writeFileSync(join(rig.ws, 'a.ts'), `v${i}\n`)
      promises += await asyncInitsOf(async () => {
        const result = await diagnostics()
        expect(result.items.map((item) => item.message)).toEqual(['bad'])
      })
    }
    expect(watches).toHaveBeenCalledTimes(0)
    // The change (read, didChange + didSave, pull) counted whole through the provider: 74 per
    // call with the watch and its async layer (sources through tsx), 72 without.
    expect(promises / N).toBeLessThanOrEqual(72)
  })

  it('on the caller\'s Lifetime (diagnostics on it): no AbortController for an unchanged file, and its abort ends the call', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: { capabilities: PULL, results: { 'textDocument/diagnostic': { kind: 'full', items: ITEMS } } } })
    // The clock moved past the file's settling time: the provider's kept text serves it, no read of bytes.
    await clockPastSettle(SETTLE_MS)
    const request = { filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' }
    const lifetime = new Lifetime()
    expect((await rig.provider.diagnostics(request, lifetime)).items).toHaveLength(1)
    // A signal-bound call makes the provider's child follow the signal; the lifetime itself needs no signal.
    const { result, made } = await abortControllersMadeBy(() => rig.provider.diagnostics(request, lifetime))
    expect(result.items.map((item) => item.message)).toEqual(['bad'])
    expect(made).toBe(0)
    const ended = new Lifetime()
    ended.abort(new HarnessError('the caller gave up', 'GAVE_UP'))
    await expect(rig.provider.diagnostics(request, ended)).rejects.toMatchObject({ code: 'GAVE_UP' })
  })

  it('on the caller\'s Lifetime, followed without a Lifetime of the call\'s: an abort mid-pull rejects with its reason and cancels the pull', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: { capabilities: PULL, hang: ['textDocument/diagnostic'], answerCancel: true } })
    const call = new Lifetime()
    const asking = rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' }, call)
    asking.catch(() => {})
    await waitForFakeLog(rig.log, (entries) => fakeMessages(entries, 'in', 'textDocument/diagnostic').length === 1)
    call.abort(new HarnessError('the caller gave up', 'GAVE_UP'))
    await expect(asking).rejects.toMatchObject({ code: 'GAVE_UP' })
    await waitForFakeLog(rig.log, (entries) => fakeMessages(entries, 'in', '$/cancelRequest').length === 1)
  })

  it('a server that publishes is still watched before the open', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: { publishOnOpen: [{ diagnostics: ITEMS }] } })
    const watches = vi.spyOn(PublishedDiagnostics.prototype, 'watch')
    const result = await rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    expect(result.items.map((item) => item.message)).toEqual(['bad'])
    expect(watches).toHaveBeenCalledTimes(1)
  })
})
