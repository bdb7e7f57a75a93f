import { join } from 'node:path'
import type { Host } from 'dsh-core'
import { BareLspClient } from './bare-lsp-client.ts'
import { micros, ms, percentile, ratio, timed } from './stats.ts'
import { bootCoding, fixtureCopy, NATIVE, REPO, TSSERVER, untilSettled, type BenchServer } from './lsp-servers.ts'
import { LSP_PACKAGES, onTheBuild } from './built.ts'

// Rename preview and call hierarchy (issue 32). Ours: the lsp_rename tool without apply (the
// provider's didOpen → prepareRename → rename → didClose, then every file of the edit read through
// ctx.fs, the edit checked against it and the preview built and rendered) and the lsp_calls tool,
// incoming, depth 1 (prepareCallHierarchy → incomingCalls, the call sites' line text, rendering).
// Baseline: a bare vscode-jsonrpc client on its own instance of the same server doing the same
// protocol work (read the file, didOpen, the requests, didClose), interleaved call by call.

const FIXTURE = join(REPO, 'packages/lsp/tool-lsp/tests/real/workspaces/ts-rename')
const ROUNDS = Number(process.env.BENCH_LSP_REFACTOR_ROUNDS ?? 100)

type Server = BenchServer

const SERVERS: readonly Server[] = [TSSERVER, NATIVE]

/** describeShape's declaration (src/shapes.ts 12:17, one-based) and report's (src/report.ts 3:17). */
const RENAME = { file: 'src/shapes.ts', line: 12, character: 17, newName: 'describeForm' }
const CALLS = { file: 'src/report.ts', line: 3, character: 17 }

function workspaceCopy(server: Server): ReturnType<typeof fixtureCopy> {
  return fixtureCopy(FIXTURE, server, 'dsh-bench-refactor-')
}

async function measure(server: Server): Promise<string[]> {
  const mine = workspaceCopy(server)
  const theirs = workspaceCopy(server)
  const host = await bootCoding()
  const client = new BareLspClient(server.executable, server.args, theirs.dir, { refactor: true, initializationOptions: server.initializationOptions })
  const session = host.app.sessions.create({ cwd: mine.dir })
  const tools = host.app.tools
  const ours = {
    rename: async () => {
      const result = await tools.execute({ name: 'lsp_rename', arguments: { filePath: RENAME.file, line: RENAME.line, character: RENAME.character, newName: RENAME.newName }, session })
      if (result.isError || (result.value as { files: unknown[] }).files.length !== 3) throw new Error(`lsp_rename: ${JSON.stringify(result).slice(0, 300)}`)
    },
    calls: async () => {
      const result = await tools.execute({ name: 'lsp_calls', arguments: { filePath: CALLS.file, line: CALLS.line, character: CALLS.character, direction: 'incoming' }, session })
      if (result.isError) throw new Error(`lsp_calls: ${result.error.code} ${result.error.message}`)
    },
  }
  const bare = {
    rename: async (check = true) => {
      const edit = (await client.rename(RENAME.file, 'typescript', RENAME.line - 1, RENAME.character - 1, RENAME.newName, true)) as { changes?: object; documentChanges?: unknown[] }
      if (check && Object.keys(edit.changes ?? {}).length + (edit.documentChanges?.length ?? 0) !== 3) throw new Error('bare rename: not three files')
    },
    calls: async () => {
      await client.calls(CALLS.file, 'typescript', CALLS.line - 1, CALLS.character - 1, 'incoming')
    },
  }
  try {
    await client.initialize()
    // A cold server answers from a half-loaded project: the first answer is not checked.
    await bare.rename(false)
    await client.waitQuiet(120_000)
    await bare.rename(false)
    for (let i = 0; i < 10; i++) for (const kind of ['rename', 'calls'] as const) await Promise.all([ours[kind](), bare[kind]()])
    await untilSettled(mine)
    const lines: string[] = []
    for (const kind of ['rename', 'calls'] as const) {
      const oursMs: number[] = []
      const bareMs: number[] = []
      for (let i = 0; i < ROUNDS; i++) {
        // Alternate who goes first so neither side always gets the warmer cache.
        if (i % 2) {
          oursMs.push((await timed(() => ours[kind]()))[0])
          bareMs.push((await timed(() => bare[kind]()))[0])
        } else {
          bareMs.push((await timed(() => bare[kind]()))[0])
          oursMs.push((await timed(() => ours[kind]()))[0])
        }
      }
      const [o50, b50, o95, b95] = [percentile(oursMs, 50), percentile(bareMs, 50), percentile(oursMs, 95), percentile(bareMs, 95)]
      const label = kind === 'rename' ? 'rename preview (3 files)' : 'incoming calls (depth 1)'
      lines.push(`${server.name.padEnd(46)} ${label.padEnd(26)} ${ms(o50).padStart(10)}  ${ms(b50).padStart(10)}  ${ratio(o50, b50).padStart(6)}  ${micros(o50 - b50).padStart(9)}  ${ms(o95).padStart(10)}  ${ms(b95).padStart(10)}  ${ratio(o95, b95).padStart(6)}`)
    }
    return lines
  } finally {
    await client.close()
    await host.stop()
    mine.remove()
    theirs.remove()
  }
}

/** `pnpm bench lsp-refactor`, ours on the built packages (bench/built.ts). */
export function benchLspRefactor(): Promise<string[]> {
  return onTheBuild('lsp-refactor', LSP_PACKAGES, measureLspRefactor)
}

export async function measureLspRefactor(): Promise<string[]> {
  const lines = [
    `rename preview and call hierarchy, ${ROUNDS} calls per side and kind, interleaved; ours: lsp_rename (no apply) / lsp_calls; bare: didOpen, the requests, didClose`,
    `${'server'.padEnd(46)} ${'call'.padEnd(26)} ${'ours p50'.padStart(10)}  ${'bare p50'.padStart(10)}  ${'ratio'.padStart(6)}  ${'ours-bare'.padStart(9)}  ${'ours p95'.padStart(10)}  ${'bare p95'.padStart(10)}  ${'ratio'.padStart(6)}`,
  ]
  for (const server of SERVERS) lines.push(...(await measure(server)))
  return lines
}
