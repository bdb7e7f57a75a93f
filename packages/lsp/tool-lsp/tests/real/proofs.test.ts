import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { FileSystem } from 'dsh-core'
import { SETTLE_MS } from 'dsh-lsp'
import { beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest'
import { placesOf, realSuite, PATIENT_TYPESCRIPT as OVERLAY } from './harness.ts'

// Real typescript-language-server through the coding preset: what one lsp call proves (issue 27 item 2).


// The two describes run side by side (each its own workspace copy, host and server; most of their
// time is a TypeScript server starting and answering its first diagnostics), their cases in order.
// Each spy is restored when its own case finishes: no case spies on a method the other describe's
// cases spy on, and every count is filtered to the case's own workspace.

/** What a case registers to run when it finishes (its context's `onTestFinished`). */
type Finished = (fn: () => void) => void

/** `vi.spyOn`, restored when the case finishes. */
function spyUntilFinished<T extends object, K extends keyof T & string>(onTestFinished: Finished, target: T, method: K): MockInstance {
  const spy = vi.spyOn(target, method as never) as MockInstance
  onTestFinished(() => spy.mockRestore())
  return spy
}

/** The file proofs `ctx.fs` makes from now on: resolved (`contained`), or by lstats below the call's workspace (`containedBelowNow`, CallProofs'). */
function fileProofs(onTestFinished: Finished): { readonly mock: { readonly calls: [{ path: string }, string][] } } {
  const resolved = spyUntilFinished(onTestFinished, FileSystem.prototype, 'contained')
  const walked = spyUntilFinished(onTestFinished, FileSystem.prototype, 'containedBelowNow')
  const calls = () => [...resolved.mock.calls, ...walked.mock.calls].map(([workspace, path]): [{ path: string }, string] => [workspace, path])
  return { mock: { get calls() { return calls() } } }
}

/** The workspace proofs `ctx.fs` makes from now on, awaited (`workspace`) or in the call (`workspaceNow`): each ends in one check of the directory. */
function workspaceProofs(onTestFinished: Finished): { readonly mock: { readonly calls: unknown[][] } } {
  return spyUntilFinished(onTestFinished, FileSystem.prototype as unknown as { checkedWorkspace(dir: string): unknown }, 'checkedWorkspace')
}

describe.concurrent('one lsp call proves its workspace once and each file once', () => {
  const suite = realSuite('ts-symbols', { overlay: OVERLAY, prepare: (dir) => writeFileSync(join(dir, 'src/broken.ts'), "export const count: number = 'one'\n") })
  // Taken after the copy and the write above: the last change to the workspace's files.
  const copied = Date.now()
  // Only this suite's host: the suite runs unisolated, and another file's host may still be winding down.
  const inSuite = (calls: readonly (readonly unknown[])[]) => calls.filter(([dir]) => dir === suite.dir)
  const proofsIn = (calls: readonly (readonly [{ path: string }, string, ...unknown[]])[]) =>
    calls.filter(([workspace]) => workspace.path === suite.dir).map(([, path]) => path.replace(`${suite.dir}/`, ''))

  // A file changed less than SETTLE_MS before it is read is read again at every call (each read
  // proving it once more inside ctx.fs): the counted calls are about a repository's settled files.
  // The boot (beforeAll above) counts towards the wait.
  beforeAll(() => sleep(Math.max(0, copied + SETTLE_MS + 100 - Date.now())))

  it.sequential('findReferences: the provider and the line text share the workspace and the source file’s proof', async ({ onTestFinished }) => {
    const references = { operation: 'findReferences', filePath: 'src/geometry.ts', line: 5, character: 14 }
    // The first call starts the server; the one counted finds it ready.
    expect(placesOf(await suite.call(references))).toContain('src/main.ts:4:18')
    const workspaces = workspaceProofs(onTestFinished)
    const proofs = fileProofs(onTestFinished)
    const places = placesOf(await suite.call(references))
    const files = new Set(places.map((place) => place.split(':')[0]))
    expect(files).toEqual(new Set(['src/geometry.ts', 'src/main.ts']))
    expect(inSuite(workspaces.mock.calls)).toHaveLength(1)
    // The source (also a location's file) and main.ts: one proof each.
    expect(proofsIn(proofs.mock.calls).sort()).toEqual(['src/geometry.ts', 'src/main.ts'])
  })

  it.sequential('lsp_diagnostics: the provider and the line text share the workspace and the file’s proof', async ({ onTestFinished }) => {
    const diagnose = () => suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/broken.ts' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    expect((await diagnose()).isError).toBe(false)
    const workspaces = workspaceProofs(onTestFinished)
    const proofs = fileProofs(onTestFinished)
    const result = await diagnose()
    expect(result.isError).toBe(false)
    // An error, so its line text is read.
    expect(result.isError ? undefined : (result.value as any).items[0].lineText).toBe("export const count: number = 'one'")
    expect(inSuite(workspaces.mock.calls)).toHaveLength(1)
    expect(proofsIn(proofs.mock.calls)).toEqual(['src/broken.ts'])
  })
  it.sequential('lsp_calls: the provider and the line text share the workspace and the source file’s proof, and the source is not resolved from / again', async ({ onTestFinished }) => {
    const calls = () => suite.host.app.tools.execute({ name: 'lsp_calls', arguments: { filePath: 'src/geometry.ts', line: 20, character: 17, direction: 'incoming' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    const first = await calls()
    expect(first.isError ? first.error : undefined).toBeUndefined()
    const workspaces = workspaceProofs(onTestFinished)
    const proofs = fileProofs(onTestFinished)
    // A full resolution of a path from / (a readlink per component): what a call without the tool's proofs makes for its source.
    const resolved = spyUntilFinished(onTestFinished, FileSystem.prototype, 'containedNow')
    const result = await calls()
    expect(result.isError).toBe(false)
    const root = (result as any).value.roots[0]
    expect(root.name).toBe('areaSum')
    expect(root.lineText).toContain('export function areaSum')
    const sites = root.calls.flatMap((edge: any) => edge.sites.map((site: any) => `${site.path}:${site.range.start.line + 1}`))
    expect(sites.sort()).toEqual(['src/main.ts:7', 'src/main.ts:9'])
    expect(inSuite(workspaces.mock.calls)).toHaveLength(1)
    expect(proofsIn(proofs.mock.calls).sort()).toEqual(['src/geometry.ts', 'src/main.ts'])
    expect(resolved.mock.calls.filter(([workspace]) => (workspace as { path: string }).path === suite.dir)).toHaveLength(0)
  })
  // A call that names a symbol reads the source around its line to find it: through the call's proofs,
  // so the source is proven once for the read, the provider and the line text, and nothing is resolved from /.
  const symbolCalls = {
    lsp: { name: 'lsp', arguments: { operation: 'findReferences', filePath: 'src/geometry.ts', line: 5, symbol: 'Rect' }, check: (value: any) => expect(value.resolved).toEqual({ filePath: 'src/geometry.ts', symbol: 'Rect', line: 5, character: 14, occurrence: 1 }) },
    lsp_calls: { name: 'lsp_calls', arguments: { filePath: 'src/geometry.ts', line: 20, symbol: 'areaSum', direction: 'incoming' }, check: (value: any) => expect([value.roots[0].name, value.at.symbol]).toEqual(['areaSum', 'areaSum']) },
    // A preview (nothing written): the edit's files are proven and read through the same proofs.
    lsp_rename: {
      name: 'lsp_rename',
      arguments: { filePath: 'src/geometry.ts', line: 5, symbol: 'Rect', newName: 'Box' },
      check: (value: any) => expect([value.applied, value.at, value.files.map((file: any) => file.path).sort()]).toEqual([false, { filePath: 'src/geometry.ts', line: 5, character: 14, symbol: 'Rect' }, ['src/geometry.ts', 'src/main.ts']]),
    },
  }
  for (const [tool, { name, arguments: args, check }] of Object.entries(symbolCalls)) {
    it.sequential(`${tool} naming a symbol: the symbol's read, the provider and the line text share the workspace and the source file's proof`, async ({ onTestFinished }) => {
      const call = () => suite.host.app.tools.execute({ name, arguments: args, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
      const first = await call()
      expect(first.isError ? first.error : undefined).toBeUndefined()
      const workspaces = workspaceProofs(onTestFinished)
      const proofs = fileProofs(onTestFinished)
      const resolved = spyUntilFinished(onTestFinished, FileSystem.prototype, 'containedNow')
      const result = await call()
      expect(result.isError ? result.error : undefined).toBeUndefined()
      check((result as any).value)
      expect(inSuite(workspaces.mock.calls)).toHaveLength(1)
      expect(proofsIn(proofs.mock.calls).sort()).toEqual(['src/geometry.ts', 'src/main.ts'])
      expect(resolved.mock.calls.filter(([workspace]) => (workspace as { path: string }).path === suite.dir)).toHaveLength(0)
    })
  }
})

describe.concurrent('one lsp_diagnostics call reads its file once', () => {
  const suite = realSuite('ts-symbols', { overlay: OVERLAY, prepare: (dir) => writeFileSync(join(dir, 'src/broken.ts'), "export const count: number = 'one'\n") })

  it.sequential('just after a write: the line text of its diagnostics comes from the text the provider read and the server checked', async ({ onTestFinished }) => {
    const diagnose = () => suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/broken.ts' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    expect((await diagnose()).isError).toBe(false)
    // Changed a moment ago: no read of it is reused across calls.
    writeFileSync(join(suite.dir, 'src/broken.ts'), "export const total: number = 'two'\n")
    suite.host.app.lsp.fileChanged(join(suite.dir, 'src/broken.ts'))
    const whole = spyUntilFinished(onTestFinished, FileSystem.prototype, 'readContainedText')
    // A small changed source is read in the call (readContainedTextNow), the others awaited.
    const inCall = spyUntilFinished(onTestFinished, FileSystem.prototype, 'readContainedTextNow')
    const streamed = spyUntilFinished(onTestFinished, FileSystem.prototype, 'streamContainedText')
    const result = await diagnose()
    expect(result.isError ? undefined : (result.value as any).items[0].lineText).toBe("export const total: number = 'two'")
    expect([...whole.mock.calls, ...inCall.mock.calls, ...streamed.mock.calls].filter(([workspace]) => workspace.path === suite.dir)).toHaveLength(1)
  })
})
