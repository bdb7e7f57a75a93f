import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Host } from 'dsh-core'
import { BareLspClient } from './bare-lsp-client.ts'
import { ms, pairedRatio, pairedRatioText, percentile, ratio, timedWithCpu } from './stats.ts'
import { bootCoding, fixtureCopy, NATIVE, REPO, serverPids, treeCpuMs, TSSERVER } from './lsp-servers.ts'
import { LSP_PACKAGES, onTheBuild } from './built.ts'

// Diagnostics after a change (issue 22). Ours: what a harness does after an edit has written the file:
// `ctx.lsp.fileChanged(path)`, then the `lsp_diagnostics` tool (the text brought to the server, its answer
// for that text, the bounded value with line text, the rendering). Baseline: a bare vscode-jsonrpc
// client with the document kept open doing `didChange` and waiting for the `publishDiagnostics`
// that answers it (for a server that sends versions, the one with the new version; otherwise the
// first one with the expected errors: it knows the answer, we do not), or `didChange` plus
// `textDocument/diagnostic` for TypeScript 7's own server, which publishes nothing for .ts files.
// Each side has its own server on its own copy of the project; the text alternates between a
// version of main with one type error and the clean one, so every change has a new answer. Besides
// wall time, each side's CPU time in this process (median per change): the machine's load stretches
// every wait for a core, but hardly the work done. Last, each side's server CPU per change (mean, its
// process tree's threads from /proc). Ours reads the file a writer wrote; the baseline writes its own
// copy's file before each change too (not timed, as ours' write is not), because a harness with a
// bare client has an edit tool that writes the file as well, and a write costs the writing process
// afterwards (+80-116 µs of CPU on plain JavaScript after a 400-byte write, bench/RESULTS.md,
// sixteenth session; the server watches the disk itself). Until the seventeenth session the baseline
// held its text and wrote nothing: BENCH_LSP_DIAGNOSTICS_WRITING=0 measures that baseline again.
// BENCH_LSP_DIAGNOSTICS_OTHER=1 adds a third side, the bare client of the other kind (holding its
// text when the baseline writes; a third server on the machine); its columns follow the baseline's.

const WORKSPACES = join(REPO, 'packages/lsp/tool-lsp/tests/real/workspaces')
/**
 * Changes per side. BENCH_LSP_DIAGNOSTICS_ROUNDS sets it for every row. By default 200 on TypeScript 7,
 * 40 on the others: a change there takes 4-10 ms and the two sides' servers answer it with their
 * own spread (each server's CPU per change moved by half between runs in bench/RESULTS.md), so 40
 * rounds gave a median whose run-to-run spread (1.00-1.58x over five quiet rounds) was larger than
 * the gap being measured; the other rows are 14-25x under the goal and take 0.1-0.5 s a change.
 */
const ROUNDS_SET = process.env.BENCH_LSP_DIAGNOSTICS_ROUNDS ? Number(process.env.BENCH_LSP_DIAGNOSTICS_ROUNDS) : undefined
const roundsFor = (server: Server): number => ROUNDS_SET ?? (server.baseline === 'pull' ? 200 : 40)
/**
 * BENCH_LSP_DIAGNOSTICS_WARMUP: warm-up changes per side before the measured ones. Ours
 * runs several times the bare client's JavaScript per change, so V8 goes on optimising it (TurboFan
 * on its worker threads, the code installed on the main thread) for a few thousand changes: this
 * process's CPU, which counts every thread, carries that work until then (bench/RESULTS.md,
 * sixteenth session). The default on TypeScript 7, 1,000 (20 on the other rows, whose changes take
 * 0.1-0.5 s and whose servers' time dwarfs ours), measures the steady state a harness is in after its
 * first minutes (the tiering is paid once per process, on V8's worker threads); callgrind after
 * 3,000 warm-up changes still counted 0.1-0.5 M instructions per change of compile work on ours'
 * worker threads (seventeenth session). It was 20 until then.
 */
const WARMUP_SET = process.env.BENCH_LSP_DIAGNOSTICS_WARMUP ? Number(process.env.BENCH_LSP_DIAGNOSTICS_WARMUP) : undefined
const warmupFor = (server: Server): number => WARMUP_SET ?? (server.baseline === 'pull' ? 1000 : 20)
/** BENCH_LSP_DIAGNOSTICS_SERVERS=native (comma-separated first words of the rows: pyright, native, tsserver) measures only those rows. */
/** BENCH_LSP_DIAGNOSTICS_WRITING=0: the baseline holds its text and writes no file (the bench until the seventeenth session). */
const BASELINE_WRITES = process.env.BENCH_LSP_DIAGNOSTICS_WRITING !== '0'
/** BENCH_LSP_DIAGNOSTICS_OTHER=1 adds the third side: the bare client of the other kind (writing when the baseline does not, and the reverse). */
const OTHER = process.env.BENCH_LSP_DIAGNOSTICS_OTHER === '1'
const CHOSEN = process.env.BENCH_LSP_DIAGNOSTICS_SERVERS?.split(',').map((word) => word.trim()).filter(Boolean)

export interface Server {
  readonly name: string
  readonly fixture: string
  readonly executable: string
  readonly args: readonly string[]
  /** What dsh's row sends it (BenchServer). */
  readonly initializationOptions?: unknown
  readonly prepare: (dir: string) => void
  readonly file: string
  readonly languageId: string
  readonly breakText: (text: string) => string
  /** How the baseline learns the answer. */
  readonly baseline: 'versioned' | 'unversioned' | 'pull'
}

const typescript = { fixture: 'ts-capabilities', file: 'src/main.ts', languageId: 'typescript', breakText: (text: string) => text.replace('text: string', 'text: number') }

export const SERVERS: readonly Server[] = [
  { name: 'pyright 1.1.414 (publishes, with versions)', fixture: 'py-capabilities', executable: join(REPO, 'node_modules/.bin/pyright-langserver'), args: ['--stdio'], prepare: () => {}, file: 'geo/main.py', languageId: 'python', breakText: (text) => text.replace('text: str', 'text: int'), baseline: 'versioned' },
  { ...NATIVE, name: `${NATIVE.name.slice(0, -1)}; pull)`, ...typescript, baseline: 'pull' },
  { ...TSSERVER, name: `${TSSERVER.name.slice(0, -1)}; publishes, no versions)`, ...typescript, baseline: 'unversioned' },
]

export function workspaceCopy(server: Server): { dir: string; remove(): void } {
  return fixtureCopy(join(WORKSPACES, server.fixture), server, 'dsh-bench-diagnostics-')
}

const errorsIn = (diagnostics: readonly { readonly severity?: number }[]) => diagnostics.filter((item) => (item.severity ?? 1) === 1).length

/**
 * What a harness holds while it works (each `app.<service>` lookup costs cordis a proxy and an
 * Error, and each method read through it a shadow context: paid once, not per edit). `fileChanged`
 * and `execute` ignore their receiver, so they are taken once (docs/architecture.md, "Helpers").
 */
/**
 * TypeScript 7's pull side as the layer benches (lsp-diagnostics-layers.ts, lsp-diagnostics-account.ts)
 * set it up: the server's row, a workspace copy per side, the file's clean and broken texts, the
 * coding host (ours) and a bare client with diagnostics on its own copy; `close` ends them all.
 */
export async function pullSides() {
  const server = SERVERS.find((candidate) => candidate.baseline === 'pull')!
  const mine = workspaceCopy(server)
  const theirs = workspaceCopy(server)
  const clean = readFileSync(join(mine.dir, server.file), 'utf8')
  const broken = server.breakText(clean)
  const host = await bootCoding()
  const client = new BareLspClient(server.executable, server.args, theirs.dir, { diagnostics: true, initializationOptions: server.initializationOptions })
  /** Ends both sides: the bare client, the host (its servers), both workspace copies. */
  const close = async () => {
    await client.close()
    await host.stop()
    mine.remove()
    theirs.remove()
  }
  return { server, mine, theirs, clean, broken, host, client, close }
}

export interface Services {
  readonly fileChanged: Host['app']['lsp']['fileChanged']
  readonly execute: Host['app']['tools']['execute']
}

export function servicesOf(host: Host): Services {
  const { fileChanged } = host.app.lsp
  const { execute } = host.app.tools
  return { fileChanged, execute }
}

/**
 * The writer's path once the edit is on disk: tell the seam, ask the tool. Checks the answer. The
 * write itself is the edit, which a harness with a bare client makes too: it is not timed.
 */
export async function ours(services: Services, session: ReturnType<Host['app']['sessions']['create']>, server: Server, errors: number): Promise<void> {
  services.fileChanged(server.file, { session })
  const result = await services.execute({ name: 'lsp_diagnostics', arguments: { filePath: server.file, severity: 'error' }, session })
  if (result.isError) throw new Error(`lsp_diagnostics: ${result.error.code} ${result.error.message}`)
  const value = result.value as { total: number; complete: boolean }
  if (value.total !== errors || !value.complete) throw new Error(`lsp_diagnostics answered ${value.total} errors (complete ${value.complete}), expected ${errors}`)
}

export async function complete(host: Host, session: ReturnType<Host['app']['sessions']['create']>, file: string): Promise<boolean> {
  const result = await host.app.tools.execute({ name: 'lsp_diagnostics', arguments: { filePath: file }, session })
  return !result.isError && (result.value as { complete: boolean }).complete
}

/** didChange, then the answer the server gives for it. */
async function bare(client: BareLspClient, server: Server, text: string, errors: number): Promise<void> {
  if (server.baseline === 'pull') {
    await client.change(server.file, text)
    const report = await client.pull(server.file)
    if (errorsIn(report.items) !== errors) throw new Error(`pulled ${errorsIn(report.items)} errors, expected ${errors}`)
    return
  }
  let version = Number.NaN
  const answer = client.publication(server.file, (publication) => (server.baseline === 'versioned' ? publication.version === version : errorsIn(publication.diagnostics) === errors))
  version = await client.change(server.file, text)
  const publication = await answer
  if (errorsIn(publication.diagnostics) !== errors) throw new Error(`published ${errorsIn(publication.diagnostics)} errors, expected ${errors}`)
}

async function measure(server: Server): Promise<string[]> {
  const mine = workspaceCopy(server)
  const theirs = workspaceCopy(server)
  const other = OTHER ? workspaceCopy(server) : undefined
  const clean = readFileSync(join(mine.dir, server.file), 'utf8')
  const broken = server.breakText(clean)
  const host = await bootCoding()
  const client = new BareLspClient(server.executable, server.args, theirs.dir, { diagnostics: true, initializationOptions: server.initializationOptions })
  const otherClient = other && new BareLspClient(server.executable, server.args, other.dir, { diagnostics: true, initializationOptions: server.initializationOptions })
  try {
    const session = host.app.sessions.create({ cwd: mine.dir })
    const services = servicesOf(host)
    for (const bareClient of otherClient ? [client, otherClient] : [client]) {
      await bareClient.initialize()
      await bareClient.open(server.file, server.languageId)
      await bareClient.waitQuiet(120_000)
    }
    // Warm both: the project loaded (a cold server's first answer may come after diagnosticsWaitMs:
    // ask until one is complete), then a few changes answered.
    for (let attempt = 1; !(await complete(host, session, server.file)); attempt++) {
      if (attempt === 10) throw new Error(`${server.name}: no complete diagnostics after ${attempt} calls`)
    }
    for (let i = 0; i < warmupFor(server); i++) {
      const [text, errors] = i % 2 ? [clean, 0] : [broken, 1]
      writeFileSync(join(mine.dir, server.file), text)
      await ours(services, session, server, errors)
      if (BASELINE_WRITES) writeFileSync(join(theirs.dir, server.file), text)
      await bare(client, server, text, errors)
      if (!other || !otherClient) continue
      if (!BASELINE_WRITES) writeFileSync(join(other.dir, server.file), text)
      await bare(otherClient, server, text, errors)
    }
    const oursRuns: { wallMs: number; cpuMs: number }[] = []
    const bareRuns: { wallMs: number; cpuMs: number }[] = []
    const otherRuns: { wallMs: number; cpuMs: number }[] = []
    const oursServer = serverPids(mine.dir)
    const bareServer = serverPids(theirs.dir)
    const otherServer = other ? serverPids(other.dir) : []
    const serverCpu = { ours: 0, bare: 0, other: 0 }
    const counted = async (side: keyof typeof serverCpu, pids: number[], work: () => Promise<{ wallMs: number; cpuMs: number }>) => {
      const before = treeCpuMs(pids)
      const run = await work()
      serverCpu[side] += treeCpuMs(pids) - before
      return run
    }
    const rounds = roundsFor(server)
    for (let i = 0; i < rounds; i++) {
      const [text, errors] = i % 2 ? [clean, 0] : [broken, 1]
      // Alternate who goes first so neither side always gets the quieter machine.
      const sides = [async () => {
          writeFileSync(join(mine.dir, server.file), text)
          oursRuns.push(await counted('ours', oursServer, () => timedWithCpu(() => ours(services, session, server, errors))))
        }, async () => {
          if (BASELINE_WRITES) writeFileSync(join(theirs.dir, server.file), text)
          bareRuns.push(await counted('bare', bareServer, () => timedWithCpu(() => bare(client, server, text, errors))))
        }]
      if (!other || !otherClient) {
        for (const side of i % 4 < 2 ? sides : sides.reverse()) await side()
        continue
      }
      sides.push(async () => {
        if (!BASELINE_WRITES) writeFileSync(join(other.dir, server.file), text)
        otherRuns.push(await counted('other', otherServer, () => timedWithCpu(() => bare(otherClient, server, text, errors))))
      })
      // Rotate who goes first, and reverse every other round, so no side always follows the same one.
      const rotated = [...sides.slice(i % 3), ...sides.slice(0, i % 3)]
      for (const side of i % 2 ? rotated.reverse() : rotated) await side()
    }
    const wall = (runs: typeof oursRuns, p: number) => percentile(runs.map((run) => run.wallMs), p)
    const cpu = (runs: typeof oursRuns) => percentile(runs.map((run) => run.cpuMs), 50)
    const [o50, b50, o95, b95, oCpu, bCpu] = [wall(oursRuns, 50), wall(bareRuns, 50), wall(oursRuns, 95), wall(bareRuns, 95), cpu(oursRuns), cpu(bareRuns)]
    const roundRatio = pairedRatioText(pairedRatio(oursRuns.map((run) => run.wallMs), bareRuns.map((run) => run.wallMs)))
    const figures = [String(rounds), ms(o50), ms(b50), ratio(o50, b50), roundRatio, ms(o95), ms(b95), ratio(o95, b95), ms(oCpu), ms(bCpu), ms(serverCpu.ours / rounds), ms(serverCpu.bare / rounds)]
    const widths = [6, 10, 10, 6, 21, 10, 10, 6, 10, 10, 15, 10]
    if (OTHER) {
      figures.push(ms(wall(otherRuns, 50)), pairedRatioText(pairedRatio(oursRuns.map((run) => run.wallMs), otherRuns.map((run) => run.wallMs))), ms(cpu(otherRuns)), ms(serverCpu.other / rounds))
      widths.push(12, 21, 10, 10)
    }
    return [`${server.name.padEnd(66)} ${figures.map((figure, index) => figure.padStart(widths[index]!)).join('  ')}`]
  } finally {
    await client.close()
    await otherClient?.close()
    await host.stop()
    mine.remove()
    theirs.remove()
    other?.remove()
  }
}

/** `pnpm bench lsp-diagnostics`, ours on the built packages (bench/built.ts). */
export function benchLspDiagnostics(): Promise<string[]> {
  return onTheBuild('lsp-diagnostics', LSP_PACKAGES, measureLspDiagnostics)
}

export async function measureLspDiagnostics(): Promise<string[]> {
  const lines = [
    `diagnostics after a change, the rounds column's changes per side (one error in, one error out, alternating); ours: fileChanged + lsp_diagnostics after the write (not timed); bare: didChange + the answer, ${BASELINE_WRITES ? 'its own copy of the file written first (not timed), as ours' : 'its text held, no file written'}; round ratio: the median of the rounds' ours/bare (each round one change per side back to back) and its quartiles; warm-up changes per side: BENCH_LSP_DIAGNOSTICS_WARMUP, else 1,000 on TypeScript 7 and 20 on the others${OTHER ? `; ${BASELINE_WRITES ? 'held: the same bare client writing no file' : 'writing: the same bare client on its own copy, its file written before each change (not timed)'}, and ours' round ratio against it` : ''}`,
    `${'server'.padEnd(66)} ${'rounds'.padStart(6)}  ${'ours p50'.padStart(10)}  ${'bare p50'.padStart(10)}  ${'ratio'.padStart(6)}  ${'round ratio (p25-p75)'.padStart(21)}  ${'ours p95'.padStart(10)}  ${'bare p95'.padStart(10)}  ${'ratio'.padStart(6)}  ${'ours CPU'.padStart(10)}  ${'bare CPU'.padStart(10)}  ${'server CPU ours'.padStart(15)}  ${'bare'.padStart(10)}${OTHER ? `  ${(BASELINE_WRITES ? 'held p50' : 'writing p50').padStart(12)}  ${'round ratio (p25-p75)'.padStart(21)}  ${'CPU'.padStart(10)}  ${'server CPU'.padStart(10)}` : ''}`,
  ]
  const chosen = CHOSEN ? SERVERS.filter((server) => CHOSEN.includes(server.name.split(' ')[0]!)) : SERVERS
  if (!chosen.length) throw new Error(`BENCH_LSP_DIAGNOSTICS_SERVERS: no row named ${CHOSEN!.join(', ')}; known: ${SERVERS.map((server) => server.name.split(' ')[0]).join(', ')}`)
  for (const server of chosen) lines.push(...(await measure(server)))
  return lines
}
