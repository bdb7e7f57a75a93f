import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FileSystem } from 'dsh-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
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

describe('one lsp call proves its workspace once and each file once', () => {
  const suite = realSuite('ts-symbols', { overlay: OVERLAY, prepare: (dir) => writeFileSync(join(dir, 'src/broken.ts'), "export const count: number = 'one'\n") })

  it('findReferences: the provider and the line text share the workspace and the source file’s proof', async () => {
    const references = { operation: 'findReferences', filePath: 'src/geometry.ts', line: 5, character: 14 }
    // The first call starts the server; the one counted finds it ready.
    expect(placesOf(await suite.call(references))).toContain('src/main.ts:4:18')
    const workspaces = vi.spyOn(FileSystem.prototype, 'workspace')
    const proofs = vi.spyOn(FileSystem.prototype, 'contained')
    const places = placesOf(await suite.call(references))
    const files = new Set(places.map((place) => place.split(':')[0]))
    expect(files).toEqual(new Set(['src/geometry.ts', 'src/main.ts']))
    expect(workspaces).toHaveBeenCalledTimes(1)
    // The source (also a location's file) and main.ts: one proof each.
    expect(proofs.mock.calls.map(([, path]) => path.replace(`${suite.dir}/`, '')).sort()).toEqual(['src/geometry.ts', 'src/main.ts'])
  })

  it('lsp_diagnostics: the provider and the line text share the workspace and the file’s proof', async () => {
    const diagnose = () => suite.host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: 'src/broken.ts' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })
    expect((await diagnose()).isError).toBe(false)
    const workspaces = vi.spyOn(FileSystem.prototype, 'workspace')
    const proofs = vi.spyOn(FileSystem.prototype, 'contained')
    const result = await diagnose()
    expect(result.isError).toBe(false)
    // An error, so its line text is read.
    expect(result.isError ? undefined : (result.value as any).items[0].lineText).toBe("export const count: number = 'one'")
    expect(workspaces).toHaveBeenCalledTimes(1)
    expect(proofs).toHaveBeenCalledTimes(1)
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
    const streamed = vi.spyOn(FileSystem.prototype, 'streamContainedText')
    const result = await diagnose()
    expect(result.isError ? undefined : (result.value as any).items[0].lineText).toBe("export const total: number = 'two'")
    expect(whole.mock.calls.length + streamed.mock.calls.length).toBe(1)
  })
})
