// Issue 27 item 2, the lsp query path's fixed cost: a warm query (the server up, its document kept
// open, the file unchanged since it was read) went through a dozen async layers in the provider and
// the instance (the workspace's turn, the root finder, the pool, the open document, the quiet
// server), each a few promises paying the host's async hooks, where the work is one request.
// Counted with async_hooks in this process (the fake server is another), not timed.
import { Lifetime } from 'dsh-core'
import { CallProofs, SETTLE_MS } from 'dsh-lsp'
import { CancellationTokenSource } from 'vscode-jsonrpc/node'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { abortControllersMadeBy } from '../../../../test-support/abort-controllers.ts'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { clockPastSettle } from '../../../../test-support/settled-clock.ts'
import { fakeMessages } from './fixtures/fake-config.ts'
import { LspConnection } from '../src/connection.ts'
import { ServerInstance } from '../src/instance.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/** A server answering pulled diagnostics: dsh keeps its documents open, as on TypeScript 7. */
const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }
/** The TypeScript row's root markers: none of them in the workspace, so every directory up to it is looked at. */
const LOCK_FILES = [['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb']]

describe('a warm query on a kept document', () => {
  it('makes a bounded number of promises in this process, and sends nothing but its request', async () => {
    const rig = await makeRig({ files: { 'src/deep/a.ts': 'export const a = 1\n' }, fake: KEEPING, server: { rootMarkers: LOCK_FILES } })
    const filePath = 'src/deep/a.ts'
    // Old enough for its read and its directories' markers to be reused (SETTLE_MS): a repository's files.
    await clockPastSettle(SETTLE_MS)
    const signal = new AbortController().signal
    for (let i = 0; i < 3; i++) await rig.query('hover', { filePath }, signal)
    const before = fakeMessages(rig.entries(), 'in').length
    const N = 20
    const promises = await asyncInitsOf(async () => {
      for (let i = 0; i < N; i++) await rig.query('hover', { filePath }, signal)
    })
    const sent = fakeMessages(rig.entries(), 'in').slice(before).map((message) => message.method)
    expect(sent).toEqual(Array.from({ length: N }, () => 'textDocument/hover'))
    // 111 per query (sources through tsx, in the test worker) before the provider's and the
    // instance's layers were collapsed, 85 after; the request itself (vscode-jsonrpc's writer and
    // reader, the connection's wait) and ctx.fs's proofs are most of what is left.
    expect(promises / N).toBeLessThanOrEqual(95)
  })
})

describe('a warm query on the caller\'s Lifetime (as the lsp tool asks)', () => {
  it('makes no AbortController: the call\'s lifetime reaches the request without a signal unless someone aborts', async () => {
    const rig = await makeRig({ files: { 'src/deep/a.ts': 'export const a = 1\n' }, fake: KEEPING, server: { rootMarkers: LOCK_FILES } })
    const filePath = 'src/deep/a.ts'
    await clockPastSettle(SETTLE_MS)
    // The tool's call lifetime: a root with the tool's deadline, a child of it per call.
    const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    for (let i = 0; i < 3; i++) await rig.query('hover', { filePath }, tool.child())
    const calls: Lifetime[] = []
    const { made } = await abortControllersMadeBy(async () => {
      for (let i = 0; i < 10; i++) {
        const call = tool.child()
        calls.push(call)
        await rig.query('hover', { filePath }, call)
      }
    })
    // The provider releases its own child of each call's lifetime, never the caller's.
    expect(calls.every((call) => call.active)).toBe(true)
    tool.dispose()
    // 10 (one per call) when the provider is asked query(request, lifetime.signal), as the seam once
    // did for a provider without a lifetime form; before that, two per call (that one and the provider's
    // scope.signal, which its file steps, queue and request listened on).
    expect(made).toBe(0)
  })
})

describe('a warm query as the lsp tool asks it (its call\'s Lifetime and proofs)', () => {
  it('runs from query to the pipe write in one pass: a bounded number of promises, no Lifetime or CancellationTokenSource of its own', async () => {
    const rig = await makeRig({ files: { 'src/deep/a.ts': 'export const a = 1\n' }, fake: KEEPING, server: { rootMarkers: LOCK_FILES } })
    const filePath = 'src/deep/a.ts'
    const fs = rig.app.get('fs')!
    await clockPastSettle(SETTLE_MS)
    const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    const ask = (call: Lifetime) => rig.query('goToDefinition', { filePath, proofs: new CallProofs(fs, rig.ws) }, call)
    for (let i = 0; i < 3; i++) await ask(tool.child())
    const N = 20
    // The calls' own lifetimes are the tool runtime's, made before the count.
    const calls = Array.from({ length: N }, () => tool.child())
    const lifetimes = vi.spyOn(Lifetime.prototype, 'child')
    const following = vi.spyOn(Lifetime, 'following')
    const tokens = vi.spyOn(CancellationTokenSource.prototype, 'token', 'get')
    let promises: number
    try {
      promises = await asyncInitsOf(async () => {
        for (const call of calls) await ask(call)
      })
      expect({ lifetimes: lifetimes.mock.calls.length + following.mock.calls.length, tokens: tokens.mock.calls.length }).toEqual({ lifetimes: 0, tokens: 0 })
    } finally {
      lifetimes.mockRestore()
      following.mockRestore()
      tokens.mockRestore()
    }
    expect(calls.every((call) => call.active)).toBe(true)
    tool.dispose()
    // 52 per call before the pipeline answered with values (main at 711ec3e; sources through tsx, in
    // the test worker, the fake's answer read by vscode-jsonrpc included), with two Lifetimes (the
    // call's scope, the request's) and a CancellationTokenSource; 34 after, 26 with the workspace
    // proven in the call (ctx.fs.workspaceNow), 25 with no hook on the call's end when its scope made
    // no lifetime; 24.2 (from 25.2) with the instance's busy count kept by the provider's attempt,
    // whose own handlers end it, instead of a hook of its own on the instance's work. What is left:
    // vscode-jsonrpc's sendRequest, writer and reader, the connection's wait, the queue turn's end,
    // one promise per layer that acts on the answer, and the call's own. 23.2 (from 24.2) with the
    // queue turn ended by the provider's attempt where it releases the server (TurnEnd), instead of
    // a settlement hook of the queue's on every turn.
    expect(promises / N).toBeLessThanOrEqual(23.5)
  })
})

describe('a warm query\'s request options', () => {
  it('share one ignored-cancel policy per server: no object or closure of it made per request', async () => {
    const rig = await makeRig({ files: { 'src/deep/a.ts': 'export const a = 1\n' }, fake: KEEPING, server: { rootMarkers: LOCK_FILES } })
    const filePath = 'src/deep/a.ts'
    await clockPastSettle(SETTLE_MS)
    const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    for (let i = 0; i < 3; i++) await rig.query('hover', { filePath }, tool.child())
    const requests = vi.spyOn(LspConnection.prototype, 'request')
    const N = 10
    try {
      for (let i = 0; i < N; i++) await rig.query('hover', { filePath }, tool.child())
      const policies = new Set(requests.mock.calls.map(([, , options]) => options?.ignoredCancel))
      expect(requests).toHaveBeenCalledTimes(N)
      // N (an object and a closure per request) before.
      expect(policies.size).toBe(1)
      expect([...policies][0]).toMatchObject({ graceMs: rig.config.killGraceMs })
    } finally {
      requests.mockRestore()
      tool.dispose()
    }
  })
})

describe('a warm query\'s check for kept documents changed on disk', () => {
  it('builds no list of them when none changed (one per query before), and still sends one that did before the request', async () => {
    const rig = await makeRig({ files: { 'src/deep/a.ts': 'export const a = 1\n', 'src/b.ts': 'export const b = 1\n' }, fake: KEEPING, server: { rootMarkers: LOCK_FILES } })
    const filePath = 'src/deep/a.ts'
    await clockPastSettle(SETTLE_MS)
    const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    await rig.query('hover', { filePath: 'src/b.ts' }, tool.child())
    for (let i = 0; i < 3; i++) await rig.query('hover', { filePath }, tool.child())
    const lists = vi.spyOn(ServerInstance.prototype, 'changedDocuments')
    try {
      for (let i = 0; i < 10; i++) await rig.query('hover', { filePath }, tool.child())
      // 10 before: `changedDocuments(file)` spread the map and filtered it (two arrays) on every attempt.
      expect(lists).toHaveBeenCalledTimes(0)
      // The request's own file marked changed: read at the request anyway, so still no list.
      rig.provider.fileChanged({ path: join(rig.ws, filePath), kind: 'changed' })
      await rig.query('hover', { filePath }, tool.child())
      expect(lists).toHaveBeenCalledTimes(0)
      // Another kept document changed on disk: listed, and its didChange goes before the request.
      writeFileSync(join(rig.ws, 'src/b.ts'), 'export const b = 2\n')
      rig.provider.fileChanged({ path: join(rig.ws, 'src/b.ts'), kind: 'changed' })
      const before = fakeMessages(rig.entries(), 'in').length
      await rig.query('hover', { filePath }, tool.child())
      expect(lists).toHaveBeenCalled()
      const sent = fakeMessages(rig.entries(), 'in').slice(before).map((message) => message.method)
      expect(sent).toEqual(['textDocument/didChange', 'textDocument/hover'])
    } finally {
      lists.mockRestore()
      tool.dispose()
    }
  })
})

describe('a warm query\'s capability check', () => {
  it('is one object per operation: no object or closure of it made per query', async () => {
    const rig = await makeRig({ files: { 'src/deep/a.ts': 'export const a = 1\n' }, fake: KEEPING, server: { rootMarkers: LOCK_FILES } })
    const filePath = 'src/deep/a.ts'
    await clockPastSettle(SETTLE_MS)
    const tool = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
    await rig.query('hover', { filePath }, tool.child())
    const opened = vi.spyOn(ServerInstance.prototype as any, 'opened')
    try {
      for (let i = 0; i < 5; i++) for (const operation of ['hover', 'goToDefinition'] as const) await rig.query(operation, { filePath }, tool.child())
      const checks = new Set(opened.mock.calls.map((args) => args[3]))
      expect(opened).toHaveBeenCalledTimes(10)
      // 10 before (`{ supported: (capabilities) => … }` made in every query).
      expect(checks.size).toBe(2)
    } finally {
      opened.mockRestore()
      tool.dispose()
    }
  })
})
