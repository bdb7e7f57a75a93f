// Issue 32 item 4 on the real server: tsserver killed under typescript-language-server while it
// loads the project. typescript-language-server lives on, ends its progress as if the project had
// loaded and answers references with []; the provider must see the crash (the server's own log
// line, matched by the catalog's fatalLogPatterns), replace the server, and answer from the new one.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Context } from 'cordis'
import FileSystem from 'dsh-core/fs'
import Subprocess from 'dsh-core/subprocess'
import { afterAll, describe, expect, it } from 'vitest'
import { SERVER_CATALOG } from '../../src/catalog.ts'
import { ServerConfig } from '../../src/config.ts'
import { fixedLauncher } from '../../src/launch.ts'
import { StdioLspProvider } from '../../src/provider.ts'
import { copyWorkspace, serversFor } from './harness.ts'
import { waitFor } from '../fixtures/rig.ts'

const SERVER = fileURLToPath(new URL('../../../../../node_modules/.bin/typescript-language-server', import.meta.url))

/** The tsserver processes running in `dir`, found synchronously (inside the progress report, before the next message is read). */
function tsserversIn(dir: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (/tsserver\.js/.test(readFileSync(`/proc/${entry}/cmdline`, 'utf8')) && readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry))
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids
}

describe('tsserver killed while typescript-language-server loads the project (real server)', () => {
  const workspace = copyWorkspace('ts-project')
  const app = new Context()
  let provider: StdioLspProvider | undefined

  afterAll(async () => {
    await provider?.disposeAll()
    await app.stop()
    expect(await serversFor(workspace.dir)).toEqual([])
    workspace.remove()
  })

  it('the query is answered by a new server, with the references, not the empty answer of the broken one', async () => {
    app.plugin(FileSystem)
    app.plugin(Subprocess)
    await app.start()
    const fs = app.get('fs')!
    const subprocess = app.get('subprocess')!
    const config = ServerConfig.parse({ ...SERVER_CATALOG.typescript!.server, typescript: undefined, indexingTimeoutMs: 240_000 })
    let killed: number[] | undefined
    const report = (message: string) => {
      // The first project load only: the replacement must be left to load in peace.
      if (killed || !message.startsWith('Initializing JS/TS')) return
      killed = tsserversIn(workspace.dir)
      for (const pid of killed) process.kill(pid, 'SIGKILL')
    }
    provider = new StdioLspProvider({ id: 'typescript', config, launcher: fixedLauncher(SERVER, config), fs, subprocess, report })
    const request = { operation: 'findReferences' as const, filePath: 'src/shapes.ts', position: { line: 11, character: 16 }, workspaceRoot: workspace.dir, languageId: 'typescript' }
    const result = await provider.query(request)
    expect(killed?.length).toBeGreaterThan(0)
    if (result.kind !== 'locations') throw new Error(`expected locations, got ${result.kind}`)
    const main = pathToFileURL(join(workspace.dir, 'src/main.ts')).href
    expect(result.locations.filter((location) => location.uri === main).map((location) => location.range.start.line)).toEqual([0, 4])
    expect(result.complete).toBe(true)
    // the broken server is gone, and the new one is a different process
    await waitFor(() => provider!.status().state === 'ready', 'the replacement to be the ready server')
  })
})
