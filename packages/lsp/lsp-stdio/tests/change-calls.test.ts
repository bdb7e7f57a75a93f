// [PROC] Issue 27, diagnostics after a change on TypeScript 7: the system calls ctx.fs makes on the
// event loop for one change (the writer's notice, then the diagnostics request that reads the
// changed file), counted by name. A small file's read used to take a second `read` to see its end
// (0 bytes); its buffer is sized one past the stat's size, so the first read coming up short is the
// end. The file's URL was built twice per change (the notice, then the read): ctx.fs keeps the
// URLs it made lately. Counted, not timed.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { untracked } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { fakeMessages } from './fixtures/fake-config.ts'
import { cleanupRigs, makeRig } from './fixtures/rig.ts'

afterEach(cleanupRigs)

/** A server answering pulled diagnostics: dsh keeps its documents open, as on TypeScript 7. */
const KEEPING = { capabilities: { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }, results: { 'textDocument/diagnostic': { kind: 'full', items: [] } } }

/** ctx.fs's event-loop system calls (`SyncCalls` in dsh-core's fs/io.ts), by name. */
type SyncCalls = Record<'realpath' | 'stat' | 'lstat' | 'open' | 'fstat' | 'read' | 'close', (...args: never[]) => unknown>

/** The event-loop system calls ctx.fs makes while `work` runs, by name (the service itself, not cordis's tracking proxy). */
async function callsBy(fs: object, work: () => Promise<unknown>): Promise<Map<string, number>> {
  const calls = (untracked(fs) as unknown as { provenCalls: SyncCalls }).provenCalls
  const saved = { ...calls }
  const counted = new Map<string, number>()
  for (const name of Object.keys(saved) as (keyof SyncCalls)[]) {
    const call = saved[name] as (...args: unknown[]) => unknown
    Object.assign(calls, {
      [name]: (...args: unknown[]) => {
        counted.set(name, (counted.get(name) ?? 0) + 1)
        return call(...args)
      },
    })
  }
  try {
    await work()
  } finally {
    Object.assign(calls, saved)
  }
  return counted
}

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

describe('a change to a kept document, told and then asked about', () => {
  it('reads the small changed file in one read: the short read is its end', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: KEEPING })
    const fs = rig.app.get('fs')!
    const file = join(rig.ws, 'a.ts')
    const diagnostics = () => rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    await diagnostics()
    const N = 5
    const totals = new Map<string, number>()
    for (let i = 0; i < N; i++) {
      writeFileSync(file, `export const v = ${i}\n`)
      const counted = await callsBy(fs, async () => {
        rig.provider.fileChanged({ path: file, kind: 'changed' })
        await diagnostics()
      })
      for (const [name, n] of counted) totals.set(name, (totals.get(name) ?? 0) + n)
    }
    const perChange = (name: string) => (totals.get(name) ?? 0) / N
    // 2 before: the bytes, then a read of 0 to see the end.
    expect(perChange('read')).toBe(1)
    expect(perChange('open')).toBe(1)
    expect(perChange('close')).toBe(1)
    // Every change was sent, with its text.
    const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => (message.params as { contentChanges: { text: string }[] }).contentChanges[0]!.text)
    expect(changes).toEqual(Array.from({ length: N }, (_, i) => `export const v = ${i}\n`))
  })

  it('builds no file URL once its path was named before: the notice and the read take the one made then', async () => {
    const rig = await makeRig({ files: { 'a.ts': 'one\n' }, fake: KEEPING })
    const file = join(rig.ws, 'a.ts')
    const diagnostics = () => rig.provider.diagnostics({ filePath: 'a.ts', workspaceRoot: rig.ws, languageId: 'typescript' })
    await diagnostics()
    const N = 5
    let hrefs = 0
    for (let i = 0; i < N; i++) {
      writeFileSync(file, `export const v = ${i}\n`)
      hrefs += await hrefsReadBy(async () => {
        rig.provider.fileChanged({ path: file, kind: 'changed' })
        await diagnostics()
      })
    }
    // 2 per change before: the notice's and the read's pathToFileURL of the same path.
    expect(hrefs / N).toBe(0)
    const changes = fakeMessages(rig.entries(), 'in', 'textDocument/didChange').map((message) => (message.params as { contentChanges: { text: string }[] }).contentChanges[0]!.text)
    expect(changes).toEqual(Array.from({ length: N }, (_, i) => `export const v = ${i}\n`))
  })
})
