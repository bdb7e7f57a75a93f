#!/usr/bin/env node
// `pnpm test`: the type check of the whole workspace and every test, side by side, so no test waits
// for the type check. Fails when either fails; arguments go to vitest.
// The type check is `pnpm typecheck`'s (scripts/typecheck.mjs): TypeScript 7's native compiler on
// one thread, a quarter of tsc 5.9's CPU for the same files and errors. The build (`pnpm build`,
// prepack, the pack tests: dist/ and the published declarations) stays on tsc 5.9: declarations are
// what users' compilers read, and nothing here has compared TypeScript 7's emit with 5.9's.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { TYPECHECK } from './typecheck.mjs'

const require = createRequire(import.meta.url)
const children = new Set()
// A stop sent to this process alone (a CI runner's SIGTERM) reaches both, so neither is left running.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal)
    process.exitCode = 1
  })
}
const run = (label, args, env = process.env) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', env })
    children.add(child)
    child.on('error', (error) => {
      process.stderr.write(`${label}: ${error.message}\n`)
      resolve(1)
    })
    child.on('exit', (code, signal) => {
      children.delete(child)
      if (signal) process.stderr.write(`${label}: stopped by ${signal}\n`)
      resolve(code ?? 1)
    })
  })

// The whole suite runs as one vitest project (vitest.config.ts says why); `--project <name>` picks groups.
const env = process.argv.slice(2).some((arg) => arg === '--project' || arg.startsWith('--project=')) ? process.env : { ...process.env, DSH_TEST_ONE_PROJECT: '1' }
const [typecheck, tests] = await Promise.all([
  run('tsc', TYPECHECK).then((code) => {
    process.stderr.write(code === 0 ? 'type check: passed\n' : 'type check: failed\n')
    return code
  }),
  run('vitest', [join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs'), 'run', ...process.argv.slice(2)], env),
])
process.exitCode = typecheck || tests
