// Issue 27 item 2: a warm query as the lsp tool asks it proved its source file by a walk of lstats
// (its call's proofs), then lstat'd the directories above it again for root markers and the file
// again to check its kept text. The proof's lstats stand for those when the query gets there in the
// same pass; a query that waited (for its turn behind another) looks again, so it sees a write made
// meanwhile. Counted, not timed.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Lifetime, untracked, type FileSystem } from 'dsh-core'
import { CallProofs, SETTLE_MS } from 'dsh-lsp'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/** A server answering pulled diagnostics: dsh keeps its documents open, as on TypeScript 7. */
const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }

/** The TypeScript row's root markers: none of them in the workspace, so every directory up to it is looked at. */
const LOCK_FILES = [['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb']]

/** The lstats ctx.fs makes on the event loop from now on, by path (its shared proven calls; the service itself, not cordis's tracking proxy). */
function lstatsOf(fs: FileSystem): { paths: () => string[]; restore: () => void } {
  // Read `paths()` before `restore()`: restoring clears the spy's calls.
  const calls = (untracked(fs) as unknown as { provenCalls: { lstat: (path: string) => unknown } }).provenCalls
  const spy = vi.spyOn(calls, 'lstat')
  return { paths: () => spy.mock.calls.map(([path]) => path), restore: () => spy.mockRestore() }
}

/**
 * A rig whose server keeps documents (with `rootMarkers` when given), its clock past the settle time
 * (kept texts and directories reusable), and `ask`: a query on `filePath` as the lsp tool asks it,
 * on a call lifetime and its own call's proofs.
 */
async function warmRig(filePath: string, rootMarkers?: string[][]) {
  const rig = await makeRig({ files: { [filePath]: 'export const a = 1\n' }, fake: KEEPING, server: rootMarkers ? { rootMarkers } : {} })
  const fs = rig.app.get('fs')!
  await clockPastSettle(SETTLE_MS)
  const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
  onTestFinished(() => tool.dispose())
  const ask = (operation: 'goToDefinition' | 'hover' = 'goToDefinition') => rig.query(operation, { filePath, proofs: new CallProofs(fs, rig.ws) }, tool.child())
  return { rig, fs, ask }
}

describe('the source of a warm query on its call\'s proofs', () => {
  it('is checked against its kept text, and its directories for root markers, by the lstats its proof took in the same pass: one lstat of each per call', async () => {
    const filePath = 'src/deep/a.ts'
    const { rig, fs, ask } = await warmRig(filePath, LOCK_FILES)
    for (let i = 0; i < 3; i++) await ask()
    const before = fakeMessages(rig.entries(), 'in').length
    const N = 5
    const lstats = lstatsOf(fs)
    let paths: string[]
    try {
      for (let i = 0; i < N; i++) await ask()
      paths = lstats.paths()
    } finally {
      lstats.restore()
    }
    const file = join(rig.ws, filePath)
    // 2 per call before (the proof's walk, then the kept text's own lstat).
    expect(paths.filter((path) => path === file).length / N).toBe(1)
    // src, src/deep and the file, by the proof's walk: 8 per call before (the root finder looked at
    // the three directories again, the kept text's check at the file), then 4 (the walk looked at the
    // workspace directory too; the call's own proof of the workspace, its realpath and stat, stands for that).
    expect(paths.length / N).toBe(3)
    // The kept text served: nothing sent but the requests.
    expect(fakeMessages(rig.entries(), 'in').slice(before).map((message) => message.method)).toEqual(Array.from({ length: N }, () => 'textDocument/definition'))
  })

  it('finds a root marker created in a directory the proof walks, from the next call on', async () => {
    const { rig, ask } = await warmRig('src/deep/a.ts', LOCK_FILES)
    for (let i = 0; i < 2; i++) await ask()
    writeFileSync(join(rig.ws, 'src', 'pnpm-lock.yaml'), '')
    await ask()
    const roots = fakeMessages(rig.entries(), 'in', 'initialize').map((message) => (message.params as { rootUri: unknown }).rootUri)
    expect(roots).toEqual([rig.wsUrl, `${rig.wsUrl}/src`])
  })

  it('is stat\'d again by a query that waited for its turn: a write made meanwhile is sent before its request', async () => {
    const filePath = 'src/a.ts'
    const { rig, ask } = await warmRig(filePath)
    for (let i = 0; i < 2; i++) await ask()
    const before = fakeMessages(rig.entries(), 'in').length
    // The first holds the workspace's turn until its answer; the second proves its file (an lstat of
    // the old text) in this pass and waits for its turn; the write comes while it waits.
    const first = ask('hover')
    const second = ask('goToDefinition')
    writeFileSync(join(rig.ws, filePath), 'export const a = 22\n')
    await Promise.all([first, second])
    const sent = fakeMessages(rig.entries(), 'in').slice(before)
    expect(sent.map((message) => message.method)).toEqual(['textDocument/hover', 'textDocument/didChange', 'textDocument/definition'])
    expect(sent[1]!.params).toMatchObject({ contentChanges: [{ text: 'export const a = 22\n' }] })
  })
})
