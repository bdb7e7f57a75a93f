#!/usr/bin/env node
// Runs a TypeScript entry point of this repository (benchmarks, scripts) without a build step.
import { register } from 'tsx/esm/api'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

register()
const [entry, ...rest] = process.argv.slice(2)
if (!entry) {
  process.stderr.write('usage: run-ts <file.ts> [args...]\n')
  process.exit(2)
}
process.argv = [process.argv[0], resolve(entry), ...rest]
await import(pathToFileURL(resolve(entry)).href)
