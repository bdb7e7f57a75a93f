import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BareLspClient } from './bare-lsp-client.ts'
import { SERVERS, workspaceCopy } from './lsp-diagnostics.ts'

// Does TypeScript 7's server work on a didChange before the pull that follows it? If it did, a
// didChange sent at a writer's notice (`fileChanged`) instead of before the next request would let it
// check while the tool call is parsed and dispatched (bench/RESULTS.md, twenty-first session). A bare
// vscode-jsonrpc client changes its kept document (one error in, one out, alternating), then, after a
// gap, pulls its diagnostics; only the pull is timed. Gaps: none, the main thread busy 0.3 ms (about
// ours' work before its request) and 1 ms, or asleep 2 ms (the server alone on the machine meanwhile).
// A pull that answers sooner after a gap is work the server did at the didChange.
//
//   node packages/cli/cli/bin/run-ts.mjs bench/lsp-diagnostics-overlap.ts     (CHANGES, default 1000, after 500 warm-up)

const CHANGES = Number(process.env.CHANGES ?? 1000)
const WARMUP = 500
const server = SERVERS.find((candidate) => candidate.baseline === 'pull')!
const copy = workspaceCopy(server)
const clean = readFileSync(join(copy.dir, server.file), 'utf8')
const broken = server.breakText(clean)
const client = new BareLspClient(server.executable, server.args, copy.dir, { diagnostics: true, initializationOptions: server.initializationOptions })
try {
  await client.initialize()
  await client.open(server.file, server.languageId)
  await client.waitQuiet(120_000)
  const busy = (ms: number) => {
    const end = performance.now() + ms
    while (performance.now() < end) {}
  }
  const gaps: Record<string, () => Promise<void> | void> = {
    none: () => {},
    'busy 0.3 ms': () => busy(0.3),
    'busy 1 ms': () => busy(1),
    'asleep 2 ms': () => new Promise((resolve) => setTimeout(resolve, 2)),
  }
  const pulls: Record<string, number[]> = {}
  let change = 0
  for (let i = 0; i < WARMUP + CHANGES; i++) {
    for (const [name, gap] of Object.entries(gaps)) {
      await client.change(server.file, change++ % 2 ? clean : broken)
      await gap()
      const start = performance.now()
      await client.pull(server.file)
      if (i >= WARMUP) (pulls[name] ??= []).push(performance.now() - start)
    }
  }
  const at = (sorted: number[], p: number) => sorted[Math.floor(sorted.length * p)]!.toFixed(2)
  console.log(`TypeScript 7's pull after a didChange and a gap, ms (${CHANGES} changes per gap after ${WARMUP} warm-up, the gaps in turn)`)
  for (const [name, times] of Object.entries(pulls)) {
    times.sort((a, b) => a - b)
    console.log(`${name.padEnd(12)} pull p25 ${at(times, 0.25)}  p50 ${at(times, 0.5)}  p75 ${at(times, 0.75)}`)
  }
} finally {
  await client.close()
  copy.remove()
}
