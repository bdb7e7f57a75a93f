#!/usr/bin/env node
// `pnpm typecheck`, and the type check `pnpm test` runs beside vitest (scripts/test.mjs): the whole
// workspace (tsconfig.json: sources, tests, bench, scripts, test-support, examples) through
// TypeScript 7's native compiler, the root devDependency `typescript-7`. It lists the same files as
// tsc 5.9 and reports the same errors, for about a quarter of the CPU: measured cold on two cores,
// 8-9 s of CPU single-threaded against 33 s for tsc 5.9 (bench/RESULTS.md, the suite section).
// `--singleThreaded`: its default runs four checkers in parallel for ~40 % more CPU in total, and
// beside vitest's two workers there is no idle core for them to use. Incremental: a run after a small
// edit re-checks what the edit can reach (~2.5 s of CPU); the state lives in node_modules, so a fresh
// checkout starts cold. Its own state file: TypeScript 7's differs from 5.9's.
// The build (`pnpm build`, prepack: declarations and dist/) stays on tsc 5.9, the `typescript`
// the packages are published against; nothing has shown that TypeScript 7 emits the same.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
// Its package exports no `bin/tsc`; the launcher sits beside its manifest.
const TSC_7 = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('typescript-7/package.json')), 'bin', 'tsc')

/** Node's arguments for the type check, run from the repository's root. */
export const TYPECHECK = [TSC_7, '-p', 'tsconfig.json', '--noEmit', '--singleThreaded', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/dsh-typecheck-7.tsbuildinfo']

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const child = spawn(process.execPath, TYPECHECK, { cwd: ROOT, stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('error', (error) => {
    process.stderr.write(`tsc: ${error.message}\n`)
    process.exitCode = 1
  })
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0)
  })
}
