import { join } from 'node:path'
import { BareLspClient } from './bare-lsp-client.ts'
import { LSP_PACKAGES, onTheBuild } from './built.ts'
import { ContractFloorClient } from './lsp-contract-floor.ts'
import { bootCoding, fixtureCopy, NATIVE, REPO, untilSettled } from './lsp-servers.ts'
import { micros, ms, pairedRatio, pairedRatioText, percentile, ratio, timedWithCpu } from './stats.ts'

// Our fixed cost per `lsp` call on TypeScript 7, against the one bare client that does the same work
// on a warm query: it keeps its documents open and declares diagnostics, as dsh does, so it sends
// only the request. Two sides (three with BENCH_LSP_FIXED_FLOOR), who goes first rotating each
// round, each on its own copy and
// server; this process's CPU per call beside the wall times (the pipe write that wakes the server
// shows as wall, not as our CPU). `pnpm bench lsp`'s third side measures the same client, always third.

const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const ROUNDS = Number(process.env.BENCH_LSP_ROUNDS ?? 300)
// Rounds of every operation on both sides before measuring. V8 is still compiling our longer path
// for the first thousand or so calls (its compiler threads are a quarter of our CPU then): the
// default keeps the figures comparable with earlier rounds; BENCH_LSP_FIXED_WARMUP=2000 measures
// the steady state of a long-lived host.
const WARMUP = Number(process.env.BENCH_LSP_FIXED_WARMUP ?? 5)
// BENCH_LSP_FIXED_FLOOR=1: a third side, the kept client plus the least work the tool's contract
// asks (lsp-contract-floor.ts), on the kept client's server; the three take turns going first.
const FLOOR = process.env.BENCH_LSP_FIXED_FLOOR === '1'
// BENCH_LSP_FIXED_OWN_FLOOR=1 (with the floor): a fourth side, the same floor on a server of its own
// that no other side asks, as ours is. The shared floor mostly asks a server that answered the kept
// client a moment before (its threads still awake); ours always asks one that sat out the other
// sides' calls. Ours ÷ own floor compares like with like on that.
const OWN_FLOOR = FLOOR && process.env.BENCH_LSP_FIXED_OWN_FLOOR === '1'
const CASES = [
  { operation: 'goToDefinition', method: 'textDocument/definition', file: 'src/main.ts', line: 4, character: 20 },
  { operation: 'findReferences', method: 'textDocument/references', file: 'src/shapes.ts', line: 12, character: 17 },
  { operation: 'goToImplementation', method: 'textDocument/implementation', file: 'src/shapes.ts', line: 1, character: 18 },
  { operation: 'hover', method: 'textDocument/hover', file: 'src/main.ts', line: 4, character: 20 },
] as const

/** Ours on the built packages, as `pnpm bench lsp` (bench/built.ts): tsx's keepNames would add a `__name` call per closure of ours. */
export function benchLspFixedCost(): Promise<string[]> {
  return onTheBuild('lsp-fixed-cost', LSP_PACKAGES, measureFixedCost)
}

async function measureFixedCost(): Promise<string[]> {
  const ourCopy = fixtureCopy(FIXTURE, NATIVE, 'dsh-bench-fixed-')
  const keptCopy = fixtureCopy(FIXTURE, NATIVE, 'dsh-bench-fixed-')
  const ownCopy = OWN_FLOOR ? fixtureCopy(FIXTURE, NATIVE, 'dsh-bench-fixed-') : undefined
  const host = await bootCoding()
  const kept = new BareLspClient(NATIVE.executable, NATIVE.args, keptCopy.dir, { keepOpen: true, diagnostics: true, initializationOptions: NATIVE.initializationOptions })
  const ownKept = ownCopy && new BareLspClient(NATIVE.executable, NATIVE.args, ownCopy.dir, { keepOpen: true, diagnostics: true, initializationOptions: NATIVE.initializationOptions })
  try {
    await kept.initialize()
    await ownKept?.initialize()
    // What a harness holds: execute taken once, one session (docs/architecture.md, "Helpers").
    const { execute } = host.app.tools
    const session = host.app.sessions.create({ cwd: ourCopy.dir })
    const ours = async (c: (typeof CASES)[number]) => {
      const result = await execute({ name: 'lsp', arguments: { operation: c.operation, filePath: c.file, line: c.line, character: c.character }, session })
      if (result.isError) throw new Error(`${c.operation}: ${result.error.code} ${result.error.message}`)
      return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    }
    const bare = (c: (typeof CASES)[number]) => kept.query(c.method, c.file, 'typescript', c.line - 1, c.character - 1)
    const floorClient = new ContractFloorClient(kept, keptCopy.dir)
    const floor = (c: (typeof CASES)[number]) => floorClient.query(c.method, c.file, 'typescript', c.line - 1, c.character - 1)
    const ownFloorClient = ownKept && ownCopy && new ContractFloorClient(ownKept, ownCopy.dir)
    const ownFloor = (c: (typeof CASES)[number]) => ownFloorClient!.query(c.method, c.file, 'typescript', c.line - 1, c.character - 1)
    await bare(CASES[0])
    await kept.waitQuiet(60_000)
    if (ownKept) {
      await ownKept.query(CASES[0].method, CASES[0].file, 'typescript', CASES[0].line - 1, CASES[0].character - 1)
      await ownKept.waitQuiet(60_000)
    }
    await ours(CASES[0])
    for (let i = 0; i < WARMUP; i++) {
      for (const c of CASES) {
        await Promise.all([ours(c), bare(c)])
        // After the kept client's own call: the first one of a file opens it, once.
        if (FLOOR) await floor(c)
        if (ownKept) {
          if (i === 0) await ownKept.query(c.method, c.file, 'typescript', c.line - 1, c.character - 1)
          await ownFloor(c)
        }
      }
    }
    await untilSettled(ourCopy)
    const lines = [
      `${NATIVE.name}, ${WARMUP} warm-up rounds, then ${ROUNDS} rounds per operation, each one call per side back to back (who goes first rotates); kept: a bare vscode-jsonrpc client keeping its documents open; CPU: this process's per call (mean)`,
      'operation            ours p50    kept p50    ratio   ours-kept   round ratio (p25-p75)   CPU ours / kept',
    ]
    const floorLines = [
      'floor: the kept client plus the least work the tool contract asks (lsp-contract-floor.ts), on the kept client\'s server',
      'operation           floor p50   floor/kept round   ours/floor round (p25-p75)   CPU floor',
    ]
    const ownFloorLines = [
      'own floor: the same floor on a server of its own, which no other side asks (as ours)',
      'operation           own p50     own/floor round    ours/own round (p25-p75)     CPU own',
    ]
    for (const c of CASES) {
      const mine = { wall: [] as number[], cpu: 0 }
      const theirs = { wall: [] as number[], cpu: 0 }
      const least = { wall: [] as number[], cpu: 0 }
      const own = { wall: [] as number[], cpu: 0 }
      const once = async (side: typeof mine, work: () => Promise<unknown>) => {
        const { wallMs, cpuMs } = await timedWithCpu(work)
        side.wall.push(wallMs)
        side.cpu += cpuMs
      }
      const turns: (() => Promise<void>)[] = [() => once(mine, () => ours(c)), () => once(theirs, () => bare(c))]
      if (FLOOR) turns.push(() => once(least, () => floor(c)))
      if (OWN_FLOOR) turns.push(() => once(own, () => ownFloor(c)))
      for (let i = 0; i < ROUNDS; i++) {
        for (let k = 0; k < turns.length; k++) await turns[(i + k) % turns.length]!()
      }
      const [o50, k50] = [percentile(mine.wall, 50), percentile(theirs.wall, 50)]
      const cpu = `${(mine.cpu / ROUNDS).toFixed(2)} / ${(theirs.cpu / ROUNDS).toFixed(2)} ms`
      lines.push(`${c.operation.padEnd(20)} ${ms(o50).padStart(10)}  ${ms(k50).padStart(10)}  ${ratio(o50, k50).padStart(6)}  ${micros(o50 - k50).padStart(9)}  ${pairedRatioText(pairedRatio(mine.wall, theirs.wall)).padStart(21)}   ${cpu}`)
      if (FLOOR) {
        const f50 = percentile(least.wall, 50)
        floorLines.push(`${c.operation.padEnd(20)} ${ms(f50).padStart(8)}   ${pairedRatioText(pairedRatio(least.wall, theirs.wall)).padStart(16)}   ${pairedRatioText(pairedRatio(mine.wall, least.wall)).padStart(26)}   ${(least.cpu / ROUNDS).toFixed(2)} ms`)
      }
      if (OWN_FLOOR) {
        const w50 = percentile(own.wall, 50)
        ownFloorLines.push(`${c.operation.padEnd(20)} ${ms(w50).padStart(8)}   ${pairedRatioText(pairedRatio(own.wall, least.wall)).padStart(16)}   ${pairedRatioText(pairedRatio(mine.wall, own.wall)).padStart(26)}   ${(own.cpu / ROUNDS).toFixed(2)} ms`)
      }
    }
    if (FLOOR) {
      // The floor must answer what we answer, or it measures less work than ours does.
      for (const c of CASES) {
        const [mineText, leastText] = [await ours(c), await floor(c)]
        floorLines.push(`${c.operation}: floor's text ${mineText === leastText ? 'is ours' : `differs: ours ${JSON.stringify(mineText)}, floor ${JSON.stringify(leastText)}`}`)
      }
      lines.push(...floorLines)
      if (OWN_FLOOR) lines.push(...ownFloorLines)
    }
    return lines
  } finally {
    await kept.close()
    await ownKept?.close()
    await host.stop()
    ourCopy.remove()
    keptCopy.remove()
    ownCopy?.remove()
  }
}
