import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, dsh, dshIn, json, killRunning, removeTempDirs, ROOT, serveIn, tempDir } from '../../../cli/cli/tests/helpers.ts'
import { processesLeftIn } from '../../../../test-support/processes.ts'
import { fakeServerPath } from '../../lsp-stdio/tests/fixtures/fake-config.ts'

// The `dsh` command with the LSP capability tools (issue 22): listed only when a provider with the
// capability is loaded, and served over MCP by `dsh serve`.

const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

const TS_WORKSPACE = join(ROOT, 'packages', 'lsp', 'tool-lsp', 'tests', 'real', 'workspaces', 'ts-capabilities')
// A cold language server on a loaded machine can take longer than the SDK client's 60 s default.
const SLOW_CALL = { timeout: 240_000 }

/** A third-party provider plugin: navigation only, or with diagnostics too. */
function providerPlugin(withDiagnostics: boolean): string {
  return `export const name = 'third-party-lsp'
export const inject = ['lsp']
export function apply(ctx) {
  ctx.lsp.registerProvider({
    id: 'third-party',
    extensionToLanguage: { '.rs': 'rust' },
    query: async () => ({ kind: 'hover', hover: null, complete: true }),
    ${withDiagnostics ? "diagnostics: async () => ({ kind: 'diagnostics', uri: 'file:///x.rs', resolvedWorkspaceUri: 'file:///', items: [], complete: true })," : ''}
  })
}
`
}

/**
 * `dsh tools --json --preset <preset>`'s tool names: in the worker (dshIn: the same boot and listing)
 * unless `process`, which the coding preset's case keeps as the file's run of the real `dsh`.
 */
async function toolNames(preset: string, how: 'process' | 'worker' = 'worker'): Promise<string[]> {
  const run = await (how === 'process' ? dsh : dshIn)(['tools', '--json', '--preset', preset])
  expect(run.code, run.stderr).toBe(0)
  return json<{ tools: { name: string }[] }>(run).tools.map((tool) => tool.name)
}

describe('dsh tools', () => {
  it('lists lsp_diagnostics and lsp_symbols with the coding preset (its servers offer both)', async () => {
    const names = await toolNames('coding', 'process')
    expect(names).toEqual(expect.arrayContaining(['lsp', 'lsp_diagnostics', 'lsp_symbols']))
  })

  it('lists only lsp without a provider, or with one that offers navigation only; a provider with diagnostics adds lsp_diagnostics alone', async () => {
    const dir = await tempDir()
    const seamAndTool = `${CORE_ROWS}- id: lsp\n  name: dsh-lsp\n- id: tool-lsp\n  name: dsh-tool-lsp\n`
    await writeFile(join(dir, 'bare.yml'), seamAndTool)
    await writeFile(join(dir, 'navigation.mjs'), providerPlugin(false))
    await writeFile(join(dir, 'navigation.yml'), `${seamAndTool}- id: third-party\n  name: ./navigation.mjs\n`)
    await writeFile(join(dir, 'diagnostics.mjs'), providerPlugin(true))
    await writeFile(join(dir, 'diagnostics.yml'), `${seamAndTool}- id: third-party\n  name: ./diagnostics.mjs\n`)
    expect(await toolNames(join(dir, 'bare.yml'))).toEqual(['lsp'])
    expect(await toolNames(join(dir, 'navigation.yml'))).toEqual(['lsp'])
    expect(await toolNames(join(dir, 'diagnostics.yml'))).toEqual(['lsp', 'lsp_diagnostics'])
  })
})

describe('dsh serve', () => {
  it('exposes lsp_diagnostics and lsp_symbols, and answers them from the real server', async () => {
    // In this worker (serveIn): what is checked is the served composition, not the process.
    const client = new Client({ name: 'dsh-serve-lsp-test', version: '0' })
    await client.connect(serveIn(['--cwd', TS_WORKSPACE]).transport)
    clients.push(client)
    const listed = (await client.listTools()).tools.map((tool) => tool.name)
    expect(listed).toEqual(expect.arrayContaining(['lsp', 'lsp_diagnostics', 'lsp_symbols']))

    const outline = await client.callTool({ name: 'lsp_symbols', arguments: { filePath: 'src/shapes.ts' } }, undefined, SLOW_CALL)
    expect(outline.isError ?? false).toBe(false)
    expect(JSON.stringify(outline.content)).toContain('class Circle')
    const diagnostics = await client.callTool({ name: 'lsp_diagnostics', arguments: { filePath: 'src/main.ts' } }, undefined, SLOW_CALL)
    expect(diagnostics.isError ?? false).toBe(false)
    expect(diagnostics.structuredContent).toMatchObject({ kind: 'diagnostics', path: 'src/main.ts' })
  })

  // The crash budget driven through `dsh serve` (it was only driven through the provider): a server
  // that crashes on every open fails the call, is given up on for its backoff without a spawn, is
  // started again after it, and the serve's log says when it was given up on (it said nothing: a
  // long-running serve showed no sign of a server crashing on every start). The server is the fake:
  // no real server crashes on cue.
  it('a server that keeps crashing: coded errors, given up on for its backoff with a line in the log, started again after it', async () => {
    const dir = await tempDir()
    const workspace = join(dir, 'ws')
    await mkdir(workspace)
    await writeFile(join(workspace, 'a.fake'), 'hello\n')
    const log = join(dir, 'fake.log')
    const server = {
      command: process.execPath,
      args: [fakeServerPath],
      extensionToLanguage: { '.fake': 'fake' },
      env: { FAKE_LSP: JSON.stringify({ crashOnOpen: true, stderrBeforeExit: 'FATAL: boom\nsecond line\n' }), FAKE_LSP_LOG: log },
      crashes: { maxCrashes: 2, windowMs: 600_000, backoffMs: 300, maxBackoffMs: 300 },
    }
    const preset = join(dir, 'crashing.yml')
    await writeFile(preset, `${CORE_ROWS}- id: lsp\n  name: dsh-lsp\n- id: lsp-stdio\n  name: dsh-lsp-stdio\n  config: ${JSON.stringify({ catalog: [], servers: { fake: server } })}\n- id: tool-lsp\n  name: dsh-tool-lsp\n`)
    const served = serveIn(['--preset', preset, '--cwd', workspace])
    const client = new Client({ name: 'dsh-serve-crash-test', version: '0' })
    await client.connect(served.transport)
    clients.push(client)
    const hover = async () => {
      const result = await client.callTool({ name: 'lsp', arguments: { operation: 'hover', filePath: 'a.fake', line: 1, character: 1 } }, undefined, SLOW_CALL)
      expect(result.isError).toBe(true)
      return (result.content as { text: string }[])[0]!.text
    }
    const starts = () => readFileSync(log, 'utf8').split('\n').filter((line) => line.includes('"event":"started"')).length
    const givenUp = () => served.stderr().split('\n').filter((line) => line.includes('fake: not restarted for workspace'))

    expect(await hover()).toMatch(/\[LSP_SERVER_EXITED\]$/)
    expect(starts()).toBe(2) // the call and its one replay
    const blocked = await hover()
    expect(blocked).toMatch(/^Error: fake: crashed 2 times within 600000 ms; restart allowed in 1 s; last error: .*FATAL: boom/)
    expect(blocked).toMatch(/\[LSP_SERVER_CRASHED\]$/)
    expect(starts()).toBe(2)
    expect(givenUp()).toHaveLength(1)
    expect(givenUp()[0]).toContain(`not restarted for workspace ${workspace}: crashed 2 times within 600000 ms; restart allowed in 1 s; last error: fake: the language server exited with code 1; stderr: FATAL: boom second line`)

    // After the backoff the server is started again (and given up on again, logged again).
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await hover()).toMatch(/\[LSP_SERVER_EXITED\]$/)
    expect(starts()).toBe(4)
    expect(givenUp()).toHaveLength(2)
    await client.close()
    expect(await served.exited).toBe(0)
    expect(await processesLeftIn(workspace)).toEqual([])
  })
})
