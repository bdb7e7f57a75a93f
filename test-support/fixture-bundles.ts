/**
 * Test fixture servers that tests start as child processes, bundled once per run into one file
 * each. The MCP fixtures import the SDK: from node_modules that is a few hundred ES modules, about
 * 0.55 s of CPU per start against 0.25 s for the bundle (bare node: 0.12 s), and the suite starts
 * them some 130 times (bench/RESULTS.md, the suite sections). Same code, same behaviour: only the
 * loading differs. A fixture that fails to bundle runs from its source.
 *
 * The global setup (build.ts) calls `bundleFixtures`; a test or rig asks `fixturePath(source)`
 * (fixture-path.ts). DSH_TEST_FIXTURE_SOURCES=1 runs every fixture from its source (to compare).
 */
import { mkdirSync, renameSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Bundled fixture server by its source path (absolute); absent when bundling failed. */
    fixtureBundles: Record<string, string>
  }
}

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** Sources (relative to the workspace root) of the fixtures tests start as processes. */
const FIXTURES = ['packages/mcp/mcp/tests/fixtures/server.mjs', 'packages/mcp/mcp/tests/fixtures/skills-server.mjs', 'packages/mcp/mcp/tests/fixtures/modern-stdio-server.mjs']

/** Bundles every fixture; returns source path -> bundle path for those that bundled. */
export async function bundleFixtures(): Promise<Record<string, string>> {
  if (process.env.DSH_TEST_FIXTURE_SOURCES) return {}
  const { build } = (await import(createRequire(join(ROOT, 'package.json')).resolve('esbuild'))) as typeof import('esbuild')
  const dir = join(ROOT, 'node_modules', '.cache', 'dsh-test-fixtures')
  mkdirSync(dir, { recursive: true })
  const bundles: Record<string, string> = {}
  for (const fixture of FIXTURES) {
    const source = join(ROOT, fixture)
    const out = join(dir, `${fixture.split('/').at(-4)}-${basename(fixture)}`)
    // Written aside and renamed: a second suite in this checkout may be reading the bundle.
    const aside = `${out}.${process.pid}.tmp`
    try {
      await build({
        entryPoints: [source],
        outfile: aside,
        bundle: true,
        minify: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'silent',
        // CommonJS dependencies inside an ES module bundle call require() for node built-ins.
        banner: { js: "import { createRequire as __dshRequire } from 'node:module'; const require = __dshRequire(import.meta.url);" },
      })
      renameSync(aside, out)
      bundles[source] = out
    } catch (error) {
      process.stderr.write(`test-support/fixture-bundles.ts: ${fixture} runs from its source (slower): ${error instanceof Error ? error.message : String(error)}\n`)
    }
  }
  return bundles
}
