import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { FileSystem } from 'dsh-core'
import { SETTLE_MS } from 'dsh-lsp'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { placesOf, realSuite } from './harness.ts'

// Real typescript-language-server through the coding preset: what one lsp call proves (issue 27 item 2).

/** Failure guards for a busy machine, never pass conditions: the first query waits for the project to load. */
const OVERLAY = `
- id: lsp-stdio
  config:
    servers:
      typescript: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`

afterEach(() => {
  vi.restoreAllMocks()
})

/** The file proofs `ctx.fs` makes from now on: resolved (`contained`), or by lstats below the call's workspace (`containedBelowNow`, CallProofs'). */
function fileProofs(): { readonly mock: { readonly calls: [{ path: string }, string][] } } {
  const resolved = vi.spyOn(FileSystem.prototype, 'contained')
  const walked = vi.spyOn(FileSystem.prototype, 'containedBelowNow')
  const calls = () => [...resolved.mock.calls, ...walked.mock.calls].map(([workspace, path]): [{ path: string }, string] => [workspace, path])
  return { mock: { get calls() { return calls() } } }
}

/** The workspace proofs `ctx.fs` makes from now on, awaited (`workspace`) or in the call (`workspaceNow`): each ends in one check of the directory. */
function workspaceProofs(): { readonly mock: { readonly calls: unknown[][] } } {
  return vi.spyOn(FileSystem.prototype as unknown as { checkedWorkspace(dir: string): unknown }, 'checkedWorkspace')
}

describe('one lsp call proves its workspace once and each file once', () => {
  const suite = realSuite('ts-symbols', { overlay: OVERLAY, prepare: (dir) => writeFileSync(join(dir, 'src/broken.ts'), "export const count: number = 'one'\n") })
  // Only this suite's host: the suite runs unisolated, and another file's host may still be winding down.
  const inSuite = (calls: readonly (readonly unknown[])[]) => calls.filter(([dir]) => dir === suite.dir)
  const proofsIn = (calls: readonly (readonly [{ path: string }, string, ...unknown[]])[]) =>
    calls.filter(([workspace]) => workspace.path === suite.dir).map(([, path]) => path.replace(`${suite.dir}/`, ''))

  // A file changed less than SETTLE_MS before it is read is read again at every call (each read
  // proving it once more inside ctx.fs): the counted calls are about a repository's settled files.
  beforeAll(() => sleep(SETTLE_MS + 100))

  it('findReferences: the provider and the line text share the workspace and the source file’s proof', async () => {
    const references = { operation: 'findReferences', filePath: 'src/geometry.ts', line: 5, character: 14 }
    // The first call starts the server; the one counted finds it ready.
    expect(placesOf(await suite.call(references))).toContain('src/main.ts:4:18')
    const workspaces = workspaceProofs()
    const proofs = fileProofs()
    const places = placesOf(await suite.call(references))
    const files = new Set(places.map((place) => place.split(':')[0]))
    expect(files).toEqual(new Set(['src/geometry.ts', 'src/main.ts']))
    expect(inSuite(workspaces.mock.calls)).toHaveLength(1)
    // The source (also a location's file) and main.ts: one proof each.
    expect(proofsIn(proofs.mock.calls).sort()).toEqual(['src/geometry.ts', 'src/main.ts'])
  })

  it('lsp_diagnostics: the provider and the line text share the workspace and the file’s proof', async () => {
    const diagnose = () => suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/broken.ts' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    expect((await diagnose()).isError).toBe(false)
    const workspaces = workspaceProofs()
    const proofs = fileProofs()
    const result = await diagnose()
    expect(result.isError).toBe(false)
    // An error, so its line text is read.
    expect(result.isError ? undefined : (result.value as any).items[0].lineText).toBe("export const count: number = 'one'")
    expect(inSuite(workspaces.mock.calls)).toHaveLength(1)
    expect(proofsIn(proofs.mock.calls)).toEqual(['src/broken.ts'])
  })
})

describe('one lsp_diagnostics call reads its file once', () => {
  const suite = realSuite('ts-symbols', { overlay: OVERLAY, prepare: (dir) => writeFileSync(join(dir, 'src/broken.ts'), "export const count: number = 'one'\n") })

  it('just after a write: the line text of its diagnostics comes from the text the provider read and the server checked', async () => {
    const diagnose = () => suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/broken.ts' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    expect((await diagnose()).isError).toBe(false)
    // Changed a moment ago: no read of it is reused across calls.
    writeFileSync(join(suite.dir, 'src/broken.ts'), "export const total: number = 'two'\n")
    suite.host.app.lsp.fileChanged(join(suite.dir, 'src/broken.ts'))
    const whole = vi.spyOn(FileSystem.prototype, 'readContainedText')
    // A small changed source is read in the call (readContainedTextNow), the others awaited.
    const inCall = vi.spyOn(FileSystem.prototype, 'readContainedTextNow')
    const streamed = vi.spyOn(FileSystem.prototype, 'streamContainedText')
    const result = await diagnose()
    expect(result.isError ? undefined : (result.value as any).items[0].lineText).toBe("export const total: number = 'two'")
    expect([...whole.mock.calls, ...inCall.mock.calls, ...streamed.mock.calls].filter(([workspace]) => workspace.path === suite.dir)).toHaveLength(1)
  })
})
