import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Host, Session } from 'dsh-core'
import { descendants } from '../test-support/processes.ts'
import { BareLspClient } from './bare-lsp-client.ts'
import { LSP_PACKAGES, onTheBuild } from './built.ts'
import { measureLspDiagnostics } from './lsp-diagnostics.ts'
import { measureLspRefactor } from './lsp-refactor.ts'
import { micros, ms, pairedRatio, pairedRatioText, percentile, ratio, timed, timedWithCpu } from './stats.ts'
import { bootCoding, fixtureCopy, NATIVE, REPO, serverPids, treeCpuMs, TSSERVER, untilSettled, type BenchServer } from './lsp-servers.ts'

// Warm latency of the lsp tool (ctx.tools.execute → ctx.lsp → dsh-lsp-stdio → the language server)
// against a bare vscode-jsonrpc client doing the same didOpen/request/didClose on its own instance of
// the same server, interleaved query by query; cold first correct answer; the server's memory. Run
// for both TypeScript servers the coding preset's `typescript: auto` row can start: typescript-language-server
// over TypeScript 5.9's tsserver (the project has no TypeScript of its own, so the one beside dsh
// decides), and TypeScript 7's own server (the project has TypeScript 7 in its node_modules). Then
// 4 workspaces at once on the first.

const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const QUERIES = Number(process.env.BENCH_LSP_QUERIES ?? 200)
/** BENCH_LSP_PARTS=warm,diagnostics (comma-separated) runs only those parts; all by default. */
const PARTS = ['warm', 'cold', 'four', 'diagnostics', 'refactor'] as const

type Server = BenchServer

const SERVERS: readonly Server[] = [TSSERVER, NATIVE]

type Operation = 'goToDefinition' | 'findReferences' | 'goToImplementation' | 'hover'
const CASES: { operation: Operation; method: string; file: string; line: number; character: number }[] = [
  { operation: 'goToDefinition', method: 'textDocument/definition', file: 'src/main.ts', line: 4, character: 20 },
  { operation: 'findReferences', method: 'textDocument/references', file: 'src/shapes.ts', line: 12, character: 17 },
  { operation: 'goToImplementation', method: 'textDocument/implementation', file: 'src/shapes.ts', line: 1, character: 18 },
  { operation: 'hover', method: 'textDocument/hover', file: 'src/main.ts', line: 4, character: 20 },
]

function workspaceCopy(server: Server): ReturnType<typeof fixtureCopy> {
  return fixtureCopy(FIXTURE, server, 'dsh-bench-')
}

async function ours(host: Host, cwd: string, c: (typeof CASES)[number]): Promise<void> {
  const { tools, session } = servicesOf(host, cwd)
  const result = await tools.execute({ name: 'lsp', arguments: { operation: c.operation, filePath: c.file, line: c.line, character: c.character }, session })
  if (result.isError) throw new Error(`${c.operation}: ${result.error.code} ${result.error.message}`)
}

/**
 * What a harness holds while an agent works in `cwd`: its services (each `app.<service>` lookup costs
 * cordis a proxy and an Error) and the conversation's session. A session per call would measure
 * session bookkeeping instead (past `maxSessions`, an eviction and a warning each).
 */
const held = new WeakMap<Host, { tools: Host['app']['tools']; sessions: Map<string, Session> }>()
function servicesOf(host: Host, cwd: string) {
  let services = held.get(host)
  if (!services) held.set(host, (services = { tools: host.app.tools, sessions: new Map() }))
  let session = services.sessions.get(cwd)
  if (!session) services.sessions.set(cwd, (session = host.app.sessions.create({ cwd })))
  return { tools: services.tools, session }
}

async function bare(client: BareLspClient, c: (typeof CASES)[number]): Promise<void> {
  await client.query(c.method, c.file, 'typescript', c.line - 1, c.character - 1)
}

async function startBare(server: Server, dir: string, options?: ConstructorParameters<typeof BareLspClient>[3]): Promise<BareLspClient> {
  const client = new BareLspClient(server.executable, server.args, dir, { ...options, initializationOptions: server.initializationOptions })
  await client.initialize()
  return client
}

interface Figures {
  readonly lines: string[]
  readonly oursP50: number[]
  readonly bareP50: number[]
  /** Per operation: the median of the rounds' ratios, with its quartiles. */
  readonly paired: ReturnType<typeof pairedRatio>[]
  readonly oursRss: number
  readonly bareRss: number
}

/**
 * A second bare client for a server on which dsh keeps its documents open: it keeps them open too
 * and declares the diagnostics dsh declares, so both servers hold the same state. Measured on
 * TypeScript 7 (2026-12-06, bench/RESULTS.md), the server's own time per request ("handled method
 * … in …" in its log) is longer with open documents, most for findReferences and
 * goToImplementation, whatever client asks: against the first bare client that shows as our cost.
 */
interface KeptSide {
  readonly client: BareLspClient
  readonly copy: ReturnType<typeof workspaceCopy>
}

async function warmLatency(server: Server): Promise<Figures> {
  const workspace = workspaceCopy(server)
  const host = await bootCoding()
  const client = await startBare(server, workspace.dir)
  const keptCopy = server.dshKeepsDocuments ? workspaceCopy(server) : undefined
  const kept: KeptSide | undefined = keptCopy && { client: await startBare(server, keptCopy.dir, { keepOpen: true, diagnostics: true }), copy: keptCopy }
  const lines: string[] = []
  const keptLines: string[] = []
  const oursP50: number[] = []
  const bareP50: number[] = []
  const paired: ReturnType<typeof pairedRatio>[] = []
  try {
    // Warm both: load the project, then a few rounds of every case.
    await bare(client, CASES[0]!)
    await client.waitQuiet(60_000)
    if (kept) {
      await bare(kept.client, CASES[0]!)
      await kept.client.waitQuiet(60_000)
    }
    await ours(host, workspace.dir, CASES[0]!)
    for (let i = 0; i < 5; i++) for (const c of CASES) await Promise.all([ours(host, workspace.dir, c), bare(client, c), ...(kept ? [bare(kept.client, c)] : [])])
    await untilSettled(workspace)
    // Our server is the one whose working directory is the workspace; the bare client's is its child.
    const oursServer = serverPids(workspace.dir).filter((pid) => pid !== client.pid && !descendants(client.pid).includes(pid))
    const bareServer = [client.pid, ...descendants(client.pid)]
    if (kept) {
      keptLines.push(`against a bare client that keeps its documents open and declares diagnostics, as dsh does on this server (a third side in the same rounds; its own copy of the workspace)`)
      keptLines.push('operation            ours p50    kept p50    ratio   ours-kept   round ratio (p25-p75)')
    }
    lines.push(`warm latency, ${QUERIES} rounds per operation, each round one query per side back to back (who goes first alternates); round ratio: the median of the rounds' ours/bare and its quartiles; CPU per query (mean): the server's process tree (its threads' schedstat) and this process`)
    lines.push('operation            ours p50    bare p50    ratio   ours-bare   round ratio (p25-p75)   ours p95    bare p95    ratio   server CPU ours / bare   client CPU ours / bare')
    for (const c of CASES) {
      const mine: number[] = []
      const theirs: number[] = []
      const keptTimes: number[] = []
      const cpu = { oursServer: 0, bareServer: 0, oursClient: 0, bareClient: 0 }
      const oursOnce = async () => {
        const server = treeCpuMs(oursServer)
        const { wallMs, cpuMs } = await timedWithCpu(() => ours(host, workspace.dir, c))
        cpu.oursServer += treeCpuMs(oursServer) - server
        cpu.oursClient += cpuMs
        mine.push(wallMs)
      }
      const bareOnce = async () => {
        const server = treeCpuMs(bareServer)
        const { wallMs, cpuMs } = await timedWithCpu(() => bare(client, c))
        cpu.bareServer += treeCpuMs(bareServer) - server
        cpu.bareClient += cpuMs
        theirs.push(wallMs)
      }
      const keptOnce = async () => {
        if (kept) keptTimes.push((await timed(() => bare(kept.client, c)))[0])
      }
      for (let i = 0; i < QUERIES; i++) {
        // Alternate who goes first so neither side always gets the warmer cache.
        if (i % 2) {
          await oursOnce()
          await bareOnce()
        } else {
          await bareOnce()
          await oursOnce()
        }
        await keptOnce()
      }
      if (kept) {
        const [o50, k50] = [percentile(mine, 50), percentile(keptTimes, 50)]
        keptLines.push(`${c.operation.padEnd(20)} ${ms(o50).padStart(10)}  ${ms(k50).padStart(10)}  ${ratio(o50, k50).padStart(6)}  ${micros(o50 - k50).padStart(9)}  ${pairedRatioText(pairedRatio(mine, keptTimes)).padStart(21)}`)
      }
      const [o50, b50, o95, b95] = [percentile(mine, 50), percentile(theirs, 50), percentile(mine, 95), percentile(theirs, 95)]
      oursP50.push(o50)
      bareP50.push(b50)
      const rounds = pairedRatio(mine, theirs)
      paired.push(rounds)
      const perQuery = (total: number) => (total / QUERIES).toFixed(2)
      const cpus = `${perQuery(cpu.oursServer)} / ${perQuery(cpu.bareServer)} ms`.padStart(23) + `  ${perQuery(cpu.oursClient)} / ${perQuery(cpu.bareClient)} ms`.padStart(23)
      lines.push(`${c.operation.padEnd(20)} ${ms(o50).padStart(10)}  ${ms(b50).padStart(10)}  ${ratio(o50, b50).padStart(6)}  ${micros(o50 - b50).padStart(9)}  ${pairedRatioText(rounds).padStart(21)}  ${ms(o95).padStart(10)}  ${ms(b95).padStart(10)}  ${ratio(o95, b95).padStart(6)}  ${cpus}`)
    }
    const oursRss = treeRss(oursServer)
    const bareRss = treeRss([client.pid])
    lines.push(`server RSS after the warm queries (its process tree): ours ${mb(oursRss)}, bare ${mb(bareRss)}`)
    lines.push(...keptLines)
    return { lines, oursP50, bareP50, paired, oursRss, bareRss }
  } finally {
    await client.close()
    await kept?.client.close()
    await host.stop()
    workspace.remove()
    kept?.copy.remove()
  }
}

async function coldStart(server: Server): Promise<[number, number]> {
  const workspace = workspaceCopy(server)
  try {
    const [oursMs] = await timed(async () => {
      const host = await bootCoding()
      try {
        await ours(host, workspace.dir, CASES[0]!)
      } finally {
        await host.stop()
      }
    })
    // The bare baseline must also wait for the project to load, or its first answer is wrong.
    let client: BareLspClient | undefined
    const [bareMs] = await timed(async () => {
      client = await startBare(server, workspace.dir)
      await bare(client, CASES[0]!)
      await client.waitQuiet(60_000)
      await bare(client, CASES[0]!)
    })
    await client?.close()
    return [oursMs, bareMs]
  } finally {
    workspace.remove()
  }
}

async function fourWorkspaces(server: Server): Promise<string[]> {
  const workspaces = [workspaceCopy(server), workspaceCopy(server), workspaceCopy(server), workspaceCopy(server)]
  const host = await bootCoding()
  const clients = await Promise.all(workspaces.map((w) => startBare(server, w.dir)))
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
    return [`4 workspaces at once, ${server.name} (${rounds} rounds of 4 concurrent queries, one server each): ours p50 ${ms(percentile(mine, 50))} p95 ${ms(percentile(mine, 95))}, bare p50 ${ms(percentile(theirs, 50))} p95 ${ms(percentile(theirs, 95))}, ratio p50 ${ratio(percentile(mine, 50), percentile(theirs, 50))}`]
  } finally {
    await Promise.all(clients.map((client) => client.close()))
    await host.stop()
    for (const w of workspaces) w.remove()
  }
}

/** Resident memory of the processes and all their descendants, in bytes. */
function treeRss(pids: readonly number[]): number {
  const all = new Set(pids.flatMap((pid) => [pid, ...descendants(pid)]))
  let kb = 0
  for (const pid of all) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
    } catch {
      // gone
    }
  }
  return kb * 1024
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`
}

/** `pnpm bench lsp`, ours on the built packages (bench/built.ts). */
export function benchLsp(): Promise<string[]> {
  return onTheBuild('lsp', LSP_PACKAGES, measureLsp)
}

async function measureLsp(): Promise<string[]> {
  const chosen = new Set(process.env.BENCH_LSP_PARTS?.split(',').map((part) => part.trim()).filter(Boolean) ?? PARTS)
  for (const part of chosen) if (!(PARTS as readonly string[]).includes(part)) throw new Error(`BENCH_LSP_PARTS: unknown part "${part}"; known: ${PARTS.join(', ')}`)
  const lines: string[] = []
  const summary: string[] = []
  for (const server of SERVERS) {
    if (!chosen.has('warm') && !chosen.has('cold')) break
    lines.push(`### ${server.name}`)
    const warm = chosen.has('warm') ? await warmLatency(server) : undefined
    if (warm) lines.push(...warm.lines)
    const [oursCold, bareCold] = chosen.has('cold') ? await coldStart(server) : [Number.NaN, Number.NaN]
    if (chosen.has('cold')) lines.push(`cold first query (boot/spawn → correct goToDefinition): ours ${ms(oursCold)}, bare ${ms(bareCold)}, ratio ${ratio(oursCold, bareCold)}`)
    const p50s = warm ? warm.oursP50.map((value, index) => `${value.toFixed(2)} (${pairedRatioText(warm.paired[index]!)})`).join('  ') : '-'
    summary.push(`${server.name.padEnd(46)} ${ms(oursCold).padStart(11)}  ${p50s}  ${warm ? mb(warm.oursRss).padStart(7) : '-'}`)
  }
  if (chosen.has('four')) lines.push(...(await fourWorkspaces(SERVERS[0]!)))
  if (chosen.has('diagnostics')) lines.push(...(await measureLspDiagnostics()))
  if (chosen.has('refactor')) lines.push(...(await measureLspRefactor()))
  lines.push('side by side (ours; the median of the rounds\' ratios to the bare client on the same server, with its quartiles)')
  lines.push(`${'server'.padEnd(46)} ${'cold first'.padStart(11)}  warm p50 ms (round ratio): ${CASES.map((c) => c.operation).join(' / ')}  server RSS`)
  lines.push(...summary)
  return lines
}
