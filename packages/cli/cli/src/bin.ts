#!/usr/bin/env node
// The `dsh` command of the published package: this file built and bundled to bundle/bin.js (scripts/bundle.mjs), run by plain node.
import module from 'node:module'

// Node 22.1+ keeps the compiled code of every module it loads (ours and our dependencies, a few
// hundred files) on disk between runs, which saves most of a short command's start-up. Node 20 has
// no such cache; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Imported after it is on, so `main`
// and everything it loads are covered.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()
const { run } = await import('./main.ts')

await run(process.argv.slice(2))
