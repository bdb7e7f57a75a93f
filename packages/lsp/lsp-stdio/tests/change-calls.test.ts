// [PROC] Issue 27, diagnostics after a change on TypeScript 7: the system calls ctx.fs makes on the
// event loop for one change (the writer's notice, then the diagnostics request that reads the
// changed file), counted by name. A small file's read used to take a second `read` to see its end
// (0 bytes); its buffer is sized one past the stat's size, so the first read coming up short is the
// end. The file's URL was built twice per change (the notice, then the read): ctx.fs keeps the
// URLs it made lately. The read was proven by a stat and a realpath of the path before its open; it
// is proven by the name of what it opened. Its abort check was the call's signal, an
// AbortController made per change; it is the call's scope. A small changed file is read in the call,
// not through three async functions. The notice realpathed the path to find the kept document; it
// names the document's own path, and the read at the request makes the proof. The pull took the
// call's lifetime (a child Lifetime per call); it follows the call's scope, as a query does.
// Counted, not timed.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Lifetime } from 'dsh-core'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { fsSyncCallsBy } from '../../../../test-support/fs-sync-calls.ts'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

/** The calls' lifetimes, ended after each test (their budget's timer with them). */
const rigCalls: Lifetime[] = []

afterEach(async () => {
  for (const call of rigCalls.splice(0)) call.dispose()
  await cleanupRigs()
})

/** A server answering pulled diagnostics: dsh keeps its documents open, as on TypeScript 7. */
const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }

/** The event-loop system calls ctx.fs makes while `work` runs, by name (the service itself, not cordis's tracking proxy). */
const callsBy = fsSyncCallsBy

/** How many URL objects `work` read the `href` of (`pathToFileURL(path).href` is one). */
async function hrefsReadBy(work: () => Promise<unknown>): Promise<number> {
  const href = Object.getOwnPropertyDescriptor(URL.prototype, 'href')!
  let reads = 0
  Object.defineProperty(URL.prototype, 'href', {
    ...href,
    get(this: URL) {
      reads++
      return href.get!.call(this)
    },
  })
  try {
    await work()
  } finally {
    Object.defineProperty(URL.prototype, 'href', href)
  }
  return reads
}

/** How many AbortControllers `work` made (dsh-core's Lifetime makes one when its `signal` is first read). */
async function abortControllersMadeBy(work: () => Promise<unknown>): Promise<number> {
  const Original = globalThis.AbortController
  let made = 0
  globalThis.AbortController = class extends Original {
    constructor() {
      super()
      made++
    }
  }
  try {
    await work()
  } finally {
    globalThis.AbortController = Original
  }
  return made
}

/** How many Lifetimes `work` made (`child` and `following`: every Lifetime the provider or a server instance makes for a call). */
async function lifetimesMadeBy(work: () => Promise<unknown>): Promise<number> {
  const children = vi.spyOn(Lifetime.prototype, 'child')
  const following = vi.spyOn(Lifetime, 'following')
  try {
    await work()
    return children.mock.calls.length + following.mock.calls.length
  } finally {
    children.mockRestore()
    following.mockRestore()
  }
}

const N = 5

/**
 * A rig whose server keeps a.ts open, asked once; then N changes (the file written, the notice, the
 * diagnostics request), each measured by `measure` around the notice and the request (`noticeOnly`:
 * the notice alone). Checks that
 * every change was sent with its text; returns the measures.
 */
async function changesMeasured<T>(measure: (fs: object, work: () => Promise<unknown>) => Promise<T>, options: { onLifetime?: boolean; noticeOnly?: boolean } = {}): Promise<T[]> {
  const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: KEEPING })
  const fs = rig.app.get('fs')!
  const file = join(rig.ws, 'a.ts')
  const request = { filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' }
  // On a lifetime as the lsp_diagnostics tool asks (the call's, with the tool's 60 s budget, which
  // nobody aborts: its request's own deadline comes later, so no timer of its own), else on no signal.
  const call = Lifetime.following(undefined, { timeoutMs: 60_000, code: 'TOOL_TIMEOUT' })
  rigCalls.push(call)
  const diagnostics = () => (options.onLifetime ? rig.provider.diagnostics(request, call) : rig.provider.diagnostics(request))
  // Twice: the second proves the workspace on the event loop and holds its directory (dsh-core's workspaceNow).
  await diagnostics()
  await diagnostics()
  const measured: T[] = []
  for (let i = 0; i < N; i++) {
    writeFileSync(file, `export const v = ${i}\n`)
    const notice = async () => rig.provider.fileChanged({ path: file, kind: 'changed' })
    if (options.noticeOnly) {
      measured.push(await measure(fs, notice))
      await diagnostics()
      continue
    }
    measured.push(
      await measure(fs, async () => {
        await notice()
        await diagnostics()
      }),
    )
  }
  const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => (message.params as { contentChanges: { text: string }[] }).contentChanges[0]!.text)
  expect(changes).toEqual(Array.from({ length: N }, (_, i) => `export const v = ${i}\n`))
  return measured
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0)

describe('a change to a kept document, told and then asked about', () => {
  it('reads the changed file under the call without an AbortController: the read checks the call itself', async () => {
    const made = await changesMeasured((_fs, work) => abortControllersMadeBy(work), { onLifetime: true })
    // 1 per change before: the read of the changed file took the call's signal (a child lifetime's AbortController).
    expect(sum(made) / N).toBe(0)
  })

  it('pulls the diagnostics on the call\'s scope: no Lifetime made for the call', async () => {
    const made = await changesMeasured((_fs, work) => lifetimesMadeBy(work), { onLifetime: true })
    // 1 per change before: the pull took the call's lifetime, a child of the caller's made per call.
    expect(sum(made) / N).toBe(0)
  })

  it('reads the small changed file in one read: the short read is its end', async () => {
    const counted = await changesMeasured(callsBy)
    const perChange = (name: string) => sum(counted.map((calls) => calls.get(name) ?? 0)) / N
    // 2 before: the bytes, then a read of 0 to see the end.
    expect(perChange('read')).toBe(1)
    expect(perChange('open')).toBe(1)
    expect(perChange('close')).toBe(1)
    // The read is proven by what it opened (the descriptor's own name, one readlink), not by a stat and
    // a realpath of the path before the open: 4 realpaths and 2 stats before. The notice's realpath
    // went next (3 → 2): it names a kept document's own path. Then the workspace's realpath and stat
    // (2 → 1, 1 → 0): its directory is held open and proven by its name and fstat. The source
    // proof's realpath is left.
    if (process.platform === 'linux') {
      expect(perChange('realpath')).toBe(1)
      expect(perChange('stat')).toBe(0)
      expect(perChange('openedPath')).toBe(2)
      expect(perChange('fstat')).toBe(2)
    }
  })

  it('the notice resolves nothing: it names the path the kept document was opened under, and the read at the request proves it', async () => {
    const counted = await changesMeasured(callsBy, { noticeOnly: true })
    // 1 realpath per notice before (a readlink per component of the path), after every edit a writer makes.
    expect(counted.map((calls) => sum([...calls.values()]))).toEqual(Array(N).fill(0))
  })

  it('reads the small changed file in the call: no promise of its own for the read', async () => {
    const promises = await changesMeasured((_fs, work) => asyncInitsOf(work), { onLifetime: true })
    // Per change, the notice and the request with its answer (sources through tsx, the counted
    // function's own promises included): 47 with the read awaited through readChanged, the kept
    // text's fill and ctx.fs's readContainedText (each an async function); 38 read in the call.
    expect(sum(promises) / N).toBeLessThanOrEqual(40)
  })

  it('builds no file URL once its path was named before: the notice and the read take the one made then', async () => {
    const hrefs = await changesMeasured((_fs, work) => hrefsReadBy(work))
    // 2 per change before: the notice's and the read's pathToFileURL of the same path.
    expect(sum(hrefs) / N).toBe(0)
  })
})
