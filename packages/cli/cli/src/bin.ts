#!/usr/bin/env node
// The `dsh` command of the published package: this file built to dist/bin.js, run by plain node.
import { run } from './main.ts'

await run(process.argv.slice(2))
