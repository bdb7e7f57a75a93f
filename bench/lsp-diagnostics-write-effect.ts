import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// What a file write costs a process afterwards, with nothing of ours running (issue 27 item 2): the
// diagnostics bench's `ours` side writes the file before each change (untimed), the bare client
// writes nothing, and a pull after a write measured 190-315 µs more CPU than one without
// (bench/lsp-diagnostics-layers.ts: rewrite, elsewhere, outside). Here a fixed piece of JavaScript
// (JSON.parse of a 12 KB array WORK times, then a setImmediate turn, as a change awaits its answer)
// is timed with process.cpuUsage() after a 400-byte writeFileSync (not timed) and after nothing,
// the two alternating ROUNDS rounds of 200; medians of the rounds.
//
//   WORK=6 node packages/cli/cli/bin/run-ts.mjs bench/lsp-diagnostics-write-effect.ts

const WORK = Number(process.env.WORK ?? 6)
const ROUNDS = Number(process.env.ROUNDS ?? 40)
const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-write-effect-'))
const file = join(dir, 'written.txt')
const text = 'x'.repeat(400)
const json = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ a: i, b: `s${i}`, c: [i, i + 1] })))
const work = () => {
  let sum = 0
  for (let i = 0; i < WORK; i++) sum += (JSON.parse(json) as unknown[]).length
  return sum
}
const before = { alone: () => {}, written: () => writeFileSync(file, text) }
const figures: Record<keyof typeof before, number[]> = { alone: [], written: [] }
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? (['alone', 'written'] as const) : (['written', 'alone'] as const)) {
      let total = 0
      for (let i = 0; i < 200; i++) {
        before[side]()
        const cpu = process.cpuUsage()
        work()
        await new Promise((resolve) => setImmediate(resolve))
        const used = process.cpuUsage(cpu)
        total += used.user + used.system
      }
      figures[side].push(total / 200)
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const [written, alone] = [median(figures.written), median(figures.alone)]
  console.log(`CPU of the same work (JSON.parse x${WORK} and a setImmediate turn), median of ${ROUNDS} rounds of 200: after a 400-byte write ${written.toFixed(0)} µs, alone ${alone.toFixed(0)} µs, +${(written - alone).toFixed(0)} µs (${(written / alone).toFixed(2)}x)`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
