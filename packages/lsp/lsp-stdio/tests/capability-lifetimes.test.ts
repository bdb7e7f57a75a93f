// Issue 27 item 1: a warm outline, rename or call-hierarchy call made a provider Lifetime per call
// (the provider's child following the caller's signal), where the four query operations follow
// the caller's Lifetime itself. documentSymbols, rename and callHierarchy on a caller's Lifetime
// do the same. Lifetimes and AbortControllers counted, never timed.
import { Lifetime } from 'dsh-core'
import { SETTLE_MS, type LspProviderCallHierarchyRequest, type LspProviderDocumentSymbolsRequest, type LspProviderRenameRequest } from 'dsh-lsp'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { abortControllersMadeBy } from '../../../../test-support/abort-controllers.ts'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { fakeMessages, waitForFakeLog } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig, range, type Rig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

const ITEM = { name: 'a', kind: 13, uri: 'file:///w/a.ts', range: range(0, 0, 18), selectionRange: range(0, 13, 14) }
const FAKE = {
  capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false }, documentSymbolProvider: true, renameProvider: true, callHierarchyProvider: true },
  results: {
    'textDocument/diagnostic': { kind: 'full', items: [] },
    'textDocument/documentSymbol': [{ name: 'a', kind: 13, range: range(0, 0, 18), selectionRange: range(0, 13, 14) }],
    'textDocument/rename': { changes: { 'file:///w/a.ts': [{ range: range(0, 13, 14), newText: 'b' }] } },
    'textDocument/prepareCallHierarchy': [ITEM],
    'callHierarchy/incomingCalls': [],
  },
}

/** As the seam asks a provider: the capability on the caller's Lifetime itself. */
function asks(rig: Rig) {
  const base = { filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' }
  const { provider } = rig
  return {
    documentSymbols: (lifetime: Lifetime) => provider.documentSymbols(base satisfies LspProviderDocumentSymbolsRequest, lifetime),
    rename: (lifetime: Lifetime) => provider.rename({ ...base, position: { line: 0, character: 13 }, newName: 'b' } satisfies LspProviderRenameRequest, lifetime),
    callHierarchy: (lifetime: Lifetime) => provider.callHierarchy({ ...base, position: { line: 0, character: 13 }, direction: 'incoming', depth: 1, maxCalls: 10 } satisfies LspProviderCallHierarchyRequest, lifetime),
  }
}

describe('a warm outline, rename and call hierarchy on the caller\'s Lifetime', () => {
  it('make no Lifetime and no AbortController of the provider\'s per call, and send only their requests', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'export const a = 1\n' }, fake: FAKE })
    // Old enough for its read to be kept (SETTLE_MS): a warm call reads no bytes (a read asks for a signal).
    await clockPastSettle(SETTLE_MS)
    const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    const calls = asks(rig)
    for (const ask of Object.values(calls)) await ask(tool.child())
    const N = 5
    const lifetimes = Array.from({ length: 3 * N }, () => tool.child())
    const children = vi.spyOn(Lifetime.prototype, 'child')
    const following = vi.spyOn(Lifetime, 'following')
    const before = fakeMessages(rig.entries(), 'in').length
    let made: number
    try {
      ;({ made } = await abortControllersMadeBy(async () => {
        for (let i = 0; i < N; i++) {
          expect(await calls.documentSymbols(lifetimes[3 * i]!)).toMatchObject({ kind: 'documentSymbols', symbols: [{ name: 'a' }] })
          expect(await calls.rename(lifetimes[3 * i + 1]!)).toMatchObject({ kind: 'rename', oldName: 'a' })
          expect(await calls.callHierarchy(lifetimes[3 * i + 2]!)).toMatchObject({ kind: 'callHierarchy', roots: [{ item: { name: 'a' }, calls: [] }] })
        }
      }))
      // Was 35 Lifetimes and 15 AbortControllers for these 15 calls: the provider's child following each call's signal (the signal itself an AbortController), and the lifetimes its steps made below it.
      expect({ lifetimes: children.mock.calls.length + following.mock.calls.length, controllers: made }).toEqual({ lifetimes: 0, controllers: 0 })
    } finally {
      children.mockRestore()
      following.mockRestore()
    }
    // The caller's lifetimes stay the caller's: none ended by the provider.
    expect(lifetimes.every((lifetime) => lifetime.active)).toBe(true)
    tool.dispose()
    const sent = fakeMessages(rig.entries(), 'in').slice(before).map((message) => message.method)
    expect(sent).toEqual(Array.from({ length: N }, () => ['textDocument/documentSymbol', 'textDocument/rename', 'textDocument/prepareCallHierarchy', 'callHierarchy/incomingCalls']).flat())
  })

  it('still end with the caller\'s lifetime: an abort mid-request rejects with its reason and cancels the request', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'export const a = 1\n' }, fake: { ...FAKE, hang: ['textDocument/documentSymbol'], answerCancel: true } })
    const call = new Lifetime()
    const asking = asks(rig).documentSymbols(call)
    asking.catch(() => {})
    await waitForFakeLog(rig.log, (entries) => fakeMessages(entries, 'in', 'textDocument/documentSymbol').length === 1)
    call.abort(new Error('stop'))
    await expect(asking).rejects.toThrow('stop')
    await waitForFakeLog(rig.log, (entries) => fakeMessages(entries, 'in', '$/cancelRequest').length === 1)
  })
})
