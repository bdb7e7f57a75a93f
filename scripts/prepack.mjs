#!/usr/bin/env node
// `prepack` of every workspace package (`node ../../../scripts/prepack.mjs`): a tarball either
// carries a fresh build of what its manifest points at, or is not made at all.
//
// 1. Refuses any packer but pnpm. npm and yarn pack the workspace manifest as it is: `workspace:`
//    ranges nobody can install and exports pointing at the TypeScript sources.
// 2. Builds the package and the packages it references (`tsc -b tsconfig.build.json`, this
//    repository's TypeScript). `pnpm -r pack|publish` runs several prepacks at once, and two
//    `tsc -b` writing the same dist/ race, so builds take turns through a lock directory.
// 3. Refuses when a file the published manifest names (publishConfig exports and bin) is missing.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundlePackage } from './bundle.mjs'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const packageDir = process.cwd()
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))

function refuse(reason) {
  process.stderr.write(`${manifest.name}: not packed: ${reason}\n`)
  process.exit(1)
}

const agent = process.env.npm_config_user_agent ?? ''
if (!agent.startsWith('pnpm/')) {
  const packer = agent.split(' ')[0] || 'this tool'
  refuse(
    `${packer} packs the workspace manifest as it is (workspace: ranges, exports pointing at src/*.ts). ` +
      `Use pnpm, which applies publishConfig and real version ranges: pnpm pack here, or pnpm -r publish at the repository root.`,
  )
}

const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc')
const release = await takeBuildLock(join(ROOT, 'node_modules', '.cache', 'dsh-prepack.lock'))
let build
let bundled
try {
  build = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: packageDir, stdio: ['ignore', 'inherit', 'inherit'] })
  // under the lock too: another package's build may be rewriting the dist/ files read here
  if (build.status === 0) bundled = await bundlePackage(packageDir, manifest, join(ROOT, 'package.json')).then(() => undefined, (error) => error)
} finally {
  release()
}
if (build.status !== 0) refuse(`the build failed (tsc -b tsconfig.build.json exited with ${build.status ?? build.signal})`)
if (bundled) refuse(`bundling dist/ failed: ${bundled.message}`)

const missing = publishedFiles(manifest).filter((file) => !existsSync(join(packageDir, file)))
if (missing.length) refuse(`the build did not produce ${missing.join(', ')}, which the published package.json names`)

/** Every file the published manifest points at: exports targets (each condition) and bin entries. */
function publishedFiles(pkg) {
  const exports = pkg.publishConfig?.exports ?? pkg.exports ?? {}
  const bin = pkg.publishConfig?.bin ?? pkg.bin ?? {}
  const targets = []
  const collect = (target) => {
    if (typeof target === 'string') targets.push(target)
    else if (target && typeof target === 'object') Object.values(target).forEach(collect)
  }
  collect(exports)
  collect(typeof bin === 'string' ? { [pkg.name]: bin } : bin)
  return [...new Set(targets)].filter((target) => target !== './package.json')
}

/** Waits its turn for the lock directory; a lock whose holder is gone is taken over. */
async function takeBuildLock(lock) {
  mkdirSync(join(lock, '..'), { recursive: true })
  const giveUpAt = Date.now() + 10 * 60_000 // a failure guard: a build holds it for seconds
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      return () => rmSync(lock, { recursive: true, force: true })
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
    }
    if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true })
    else if (Date.now() > giveUpAt) refuse(`another build held ${lock} for 10 minutes; remove it if no build is running`)
    else await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function holderAlive(lock) {
  let pid
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'))
  } catch {
    return true // just created, pid not written yet
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}
