import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

// Issue 27's leak check at its own size: 200,000 searches through one host's ctx.web against one
// keyed provider, in a child started with --expose-gc (packages/web/web/tests/leak-child.ts, the
// suite's leak.test runs 100,000 of them, enough to catch the old 60 bytes a search). Prints the heap
// after a full GC before and after, and what stayed per search. BENCH_LEAK_SEARCHES sets the count.

const RUN_TS = fileURLToPath(new URL('../packages/cli/cli/bin/run-ts.mjs', import.meta.url))
const CHILD = fileURLToPath(new URL('../packages/web/web/tests/leak-child.ts', import.meta.url))

interface LeakReport {
  readonly searches: number
  readonly before: number
  readonly after: number
  readonly grownBytes: number
}

export async function benchLeak(): Promise<string[]> {
  const searches = Number(process.env.BENCH_LEAK_SEARCHES ?? 200_000)
  const started = process.hrtime.bigint()
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--expose-gc', RUN_TS, CHILD, String(searches)], { maxBuffer: 1 << 20 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out))),
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as LeakReport
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2)
  return [
    `searches: ${report.searches} through one host (${seconds.toFixed(1)} s)`,
    `heap after a full GC: before ${mb(report.before)} MB, after ${mb(report.after)} MB, grown ${mb(report.grownBytes)} MB (${(report.grownBytes / report.searches).toFixed(1)} bytes a search; the AbortSignal.any leak was ~60)`,
  ]
}
