import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootPreset, type Host } from 'dsh-core'
import { BareLspClient } from './bare-lsp-client.ts'
import { ms, percentile, ratio, timed } from './stats.ts'

// Warm latency of the lsp tool (ctx.tools.execute → ctx.lsp → dsh-lsp-stdio → typescript-language-server)
// against a bare vscode-jsonrpc client doing the same didOpen/request/didClose on its own instance of
// the same server, interleaved query by query. Also cold first-query time and 4 workspaces at once.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const SERVER = join(REPO, 'node_modules/.bin/typescript-language-server')
const QUERIES = Number(process.env.BENCH_LSP_QUERIES ?? 200)

type Operation = 'goToDefinition' | 'findReferences' | 'goToImplementation' | 'hover'
const CASES: { operation: Operation; method: string; file: string; line: number; character: number }[] = [
  { operation: 'goToDefinition', method: 'textDocument/definition', file: 'src/main.ts', line: 4, character: 20 },
  { operation: 'findReferences', method: 'textDocument/references', file: 'src/shapes.ts', line: 12, character: 17 },
  { operation: 'goToImplementation', method: 'textDocument/implementation', file: 'src/shapes.ts', line: 1, character: 18 },
  { operation: 'hover', method: 'textDocument/hover', file: 'src/main.ts', line: 4, character: 20 },
]

function workspaceCopy(): { dir: string; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-')))
  const dir = join(root, 'ts-project')
  cpSync(FIXTURE, dir, { recursive: true })
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) }
}

async function ours(host: Host, cwd: string, c: (typeof CASES)[number]): Promise<void> {
  // A harness holds its services; each `app.<service>` lookup costs cordis a proxy and an Error.
  const { tools, sessions } = servicesOf(host)
  const session = sessions.create({ cwd })
  const result = await tools.execute({ name: 'lsp', arguments: { operation: c.operation, filePath: c.file, line: c.line, character: c.character }, session })
  if (result.isError) throw new Error(`${c.operation}: ${result.error.code} ${result.error.message}`)
}

const held = new WeakMap<Host, { tools: Host['app']['tools']; sessions: Host['app']['sessions'] }>()
function servicesOf(host: Host) {
  let services = held.get(host)
  if (!services) held.set(host, (services = { tools: host.app.tools, sessions: host.app.sessions }))
  return services
}

async function bare(client: BareLspClient, c: (typeof CASES)[number]): Promise<void> {
  await client.query(c.method, c.file, 'typescript', c.line - 1, c.character - 1)
}

async function startBare(dir: string): Promise<BareLspClient> {
  const client = new BareLspClient(SERVER, ['--stdio'], dir)
  await client.initialize()
  return client
}

async function warmLatency(): Promise<string[]> {
  const workspace = workspaceCopy()
  const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
  const client = await startBare(workspace.dir)
  const lines: string[] = []
  try {
    // Warm both: load the project, then a few rounds of every case.
    await bare(client, CASES[0]!)
    await client.waitQuiet(60_000)
    await ours(host, workspace.dir, CASES[0]!)
    for (let i = 0; i < 5; i++) for (const c of CASES) await Promise.all([ours(host, workspace.dir, c), bare(client, c)])
    lines.push(`warm latency, ${QUERIES} queries per operation and side, interleaved`)
    lines.push('operation            ours p50    bare p50    ratio   ours p95    bare p95    ratio')
    for (const c of CASES) {
      const mine: number[] = []
      const theirs: number[] = []
      for (let i = 0; i < QUERIES; i++) {
        // Alternate who goes first so neither side always gets the warmer cache.
        if (i % 2) {
          mine.push((await timed(() => ours(host, workspace.dir, c)))[0])
          theirs.push((await timed(() => bare(client, c)))[0])
        } else {
          theirs.push((await timed(() => bare(client, c)))[0])
          mine.push((await timed(() => ours(host, workspace.dir, c)))[0])
        }
      }
      const [o50, b50, o95, b95] = [percentile(mine, 50), percentile(theirs, 50), percentile(mine, 95), percentile(theirs, 95)]
      lines.push(`${c.operation.padEnd(20)} ${ms(o50).padStart(10)}  ${ms(b50).padStart(10)}  ${ratio(o50, b50).padStart(6)}  ${ms(o95).padStart(10)}  ${ms(b95).padStart(10)}  ${ratio(o95, b95).padStart(6)}`)
    }
  } finally {
    await client.close()
    await host.stop()
    workspace.remove()
  }
  return lines
}

async function coldStart(): Promise<string[]> {
  const workspace = workspaceCopy()
  try {
    const [oursMs] = await timed(async () => {
      const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
      try {
        await ours(host, workspace.dir, CASES[0]!)
      } finally {
        await host.stop()
      }
    })
    // The bare baseline must also wait for the project to load, or its first answer is wrong.
    let client: BareLspClient | undefined
    const [bareMs] = await timed(async () => {
      client = await startBare(workspace.dir)
      await bare(client, CASES[0]!)
      await client.waitQuiet(60_000)
      await bare(client, CASES[0]!)
    })
    await client?.close()
    return [`cold first query (boot/spawn → correct goToDefinition): ours ${ms(oursMs)}, bare ${ms(bareMs)}, ratio ${ratio(oursMs, bareMs)}`]
  } finally {
    workspace.remove()
  }
}

async function fourWorkspaces(): Promise<string[]> {
  const workspaces = [workspaceCopy(), workspaceCopy(), workspaceCopy(), workspaceCopy()]
  const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
  const clients = await Promise.all(workspaces.map((w) => startBare(w.dir)))
  const rounds = Math.max(20, Math.floor(QUERIES / 4))
  try {
    await Promise.all(workspaces.map((w) => ours(host, w.dir, CASES[0]!)))
    await Promise.all(clients.map(async (client) => {
      await bare(client, CASES[0]!)
      await client.waitQuiet(60_000)
    }))
    const mine: number[] = []
    const theirs: number[] = []
    for (let i = 0; i < rounds; i++) {
      const c = CASES[i % CASES.length]!
      mine.push((await timed(() => Promise.all(workspaces.map((w) => ours(host, w.dir, c)))))[0])
      theirs.push((await timed(() => Promise.all(clients.map((client) => bare(client, c)))))[0])
    }
    return [`4 workspaces at once (${rounds} rounds of 4 concurrent queries, one server each): ours p50 ${ms(percentile(mine, 50))} p95 ${ms(percentile(mine, 95))}, bare p50 ${ms(percentile(theirs, 50))} p95 ${ms(percentile(theirs, 95))}, ratio p50 ${ratio(percentile(mine, 50), percentile(theirs, 50))}`]
  } finally {
    await Promise.all(clients.map((client) => client.close()))
    await host.stop()
    for (const w of workspaces) w.remove()
  }
}

export async function benchLsp(): Promise<string[]> {
  return [...(await warmLatency()), ...(await coldStart()), ...(await fourWorkspaces())]
}
