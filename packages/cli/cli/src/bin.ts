#!/usr/bin/env node
// The `dsh` command of the published package: this file built and bundled to bundle/bin.js (scripts/bundle.mjs), run by plain node.
import module from 'node:module'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

// Node 22.1+ keeps the compiled code of every module it loads (ours and our dependencies) on disk
// between runs, which saves part of a short command's start-up; Node 20 has no such cache. Kept
// in the user's cache home ($XDG_CACHE_HOME/dsh/node-compile-cache, else ~/.cache/...), which
// outlives a reboot and is the user's own, rather than Node's default under the shared temporary
// directory; NODE_COMPILE_CACHE names another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it
// off. Imported after it is on, so `main` and everything it loads are covered.
// Without a home (HOME unset and a uid with no passwd entry, as containers run, or HOME empty):
// Node's own default directory.
const cacheHome = process.env.XDG_CACHE_HOME && isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : userCacheHome()
;(module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache?.(process.env.NODE_COMPILE_CACHE || (cacheHome && join(cacheHome, 'dsh', 'node-compile-cache')) || undefined)
const { run } = await import('./main.ts')

function userCacheHome(): string | undefined {
  let home
  try {
    home = homedir()
  } catch {
    return undefined
  }
  // An empty HOME would put the cache in whatever directory dsh runs in.
  return isAbsolute(home) ? join(home, '.cache') : undefined
}

await run(process.argv.slice(2))
