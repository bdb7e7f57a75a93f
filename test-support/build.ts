/**
 * Vitest global setup: bundles each workspace package once per run as its prepack does
 * (scripts/bundle.mjs), but from the TypeScript sources, so that every `dsh` child a test starts
 * runs bundled JavaScript, laid out as published, instead of compiling the sources through tsx
 * (test-support/built-children.ts).
 * No `tsc -b` here: its type check repeats the one `pnpm test` runs beside vitest, and on a fresh
 * checkout it held every test back while it ran (measured in bench/RESULTS.md, the suite section).
 * The published build (tsc's dist/, then the bundle) is `buildWorkspace`, used by the benches and
 * made again by every prepack, which the pack checks run.
 * A bundle that fails (a syntax error mid-edit) is reported and the children fall back to tsx:
 * tests never run against stale output.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { compileEchoExample } from './echo-example.ts'
import { bundleFixtures } from './fixture-bundles.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** True when the workspace build is fresh and `dsh` children may run it. */
    dshBuilt: boolean
  }
}

// @ts-expect-error the bundler is a plain ES module script, without declarations
import { bundlePackage } from '../scripts/bundle.mjs'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc')

/**
 * Vitest runs a global setup once per project, each time in a fresh module instance, so module
 * variables would bundle the workspace eight times a run. The run's one bundle lives on the process
 * instead.
 */
const run = globalThis as { dshTestBuild?: Promise<boolean>; dshTestEcho?: Promise<void>; dshTestFixtures?: Promise<Record<string, string>> }

export default async function setup(project: TestProject): Promise<void> {
  run.dshTestBuild ??= prepare()
  run.dshTestEcho ??= compileEchoExample()
  run.dshTestFixtures ??= bundleFixtures()
  await run.dshTestEcho
  project.provide('fixtureBundles', await run.dshTestFixtures)
  project.provide('dshBuilt', await run.dshTestBuild)
}

/**
 * Exports that still point at TypeScript sources under the `dsh-built` condition. A built package
 * importing one would fail in the child (node cannot load .ts), so then nothing runs built.
 */
function unbuiltExports(): string[] {
  const found: string[] = []
  for (const group of readdirSync(join(ROOT, 'packages'))) {
    for (const name of readdirSync(join(ROOT, 'packages', group))) {
      const manifest = join('packages', group, name, 'package.json')
      let exports: Record<string, unknown>
      try {
        exports = (JSON.parse(readFileSync(join(ROOT, manifest), 'utf8')) as { exports?: Record<string, unknown> }).exports ?? {}
      } catch {
        continue
      }
      for (const [path, target] of Object.entries(exports)) {
        if (typeof target === 'string' && target.endsWith('.ts')) found.push(`${manifest} "${path}"`)
      }
    }
  }
  return found
}

async function prepare(): Promise<boolean> {
  const unbuilt = unbuiltExports()
  if (!unbuilt.length) return bundleSources()
  process.stderr.write(
    `test-support/build.ts: dsh children run the sources through tsx (slower), because these exports have no built entry:\n` +
      unbuilt.map((entry) => `  ${entry}: make it { "dsh-built": "./bundle/….js", "default": "./src/….ts" }\n`).join(''),
  )
  return false
}

/** Each package's published entries bundled from src/ (esbuild strips the types; no type check). */
async function bundleSources(): Promise<boolean> {
  try {
    for (const dir of packageDirs()) await bundlePackage(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), join(ROOT, 'package.json'), { fromSources: true })
    return true
  } catch (error) {
    process.stderr.write(`test-support/build.ts: bundling failed, so dsh children run the sources through tsx (slower):\n${error instanceof Error ? error.message : String(error)}\n`)
    return false
  }
}

/** The published build: `tsc -b` (incremental), then its dist/ bundled as each prepack does. */
export async function buildWorkspace(): Promise<boolean> {
  const compiled = await new Promise<boolean>((resolve) => {
    execFile(process.execPath, [TSC, '-b', 'tsconfig.build.json'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) process.stderr.write(`test-support/build.ts: tsc -b failed, so dsh children run the sources through tsx (slower):\n${stdout}${stderr}\n`)
      resolve(!error)
    })
  })
  if (!compiled) return false
  try {
    for (const dir of packageDirs()) await bundlePackage(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), join(ROOT, 'package.json'))
    return true
  } catch (error) {
    process.stderr.write(`test-support/build.ts: bundling failed, so dsh children run the sources through tsx (slower):\n${error instanceof Error ? error.message : String(error)}\n`)
    return false
  }
}

function packageDirs(): string[] {
  return readdirSync(join(ROOT, 'packages')).flatMap((group) => readdirSync(join(ROOT, 'packages', group)).map((name) => join(ROOT, 'packages', group, name)))
}
