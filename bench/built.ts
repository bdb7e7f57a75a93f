import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { buildWorkspace } from '../test-support/build.ts'

// The per-call benches (web, lsp) measure the code users run: each workspace package's bundle/ (tsc,
// then esbuild, exactly what its prepack puts in the tarball), not the TypeScript sources compiled
// on the fly by tsx. tsx compiles with esbuild's keepNames, which wraps every function and class of
// ours in a `__name` helper call; on a tool call that cost a few microseconds of the gap being
// measured (bench/RESULTS.md). The baselines (undici, a bare vscode-jsonrpc client) are the same
// packages either way. BENCH_SOURCES=1 measures the sources through tsx instead.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const CONDITION = '--conditions=dsh-built'

/** The packages a web_fetch or web_search call runs through (the base preset's web rows and the host). */
export const WEB_PACKAGES = ['dsh-core', 'dsh-core/tools', 'dsh-web', 'dsh-web-fetch-http', 'dsh-tool-web']
/** The packages an `lsp` call runs through (the coding preset's lsp rows and the host). */
export const LSP_PACKAGES = ['dsh-core', 'dsh-core/tools', 'dsh-lsp', 'dsh-lsp-stdio', 'dsh-tool-lsp']

/**
 * True when this process resolves the workspace packages to their bundles (started with the
 * condition). Throws when only some do (an export without its `dsh-built` entry): such a run would
 * mix built code and sources.
 */
export function runningBuilt(measured: readonly string[]): boolean {
  const sources = measured.filter((name) => import.meta.resolve(name).endsWith('.ts'))
  if (sources.length === 0) return true
  if (sources.length === measured.length) return false
  throw new Error(`only some packages resolve to their bundles; ${sources.join(', ')} still to TypeScript sources (an export without its dsh-built entry?)`)
}

/**
 * Runs `measure` on the built packages (`measured` names the packages its calls run through): in this process when it already resolves them, else after
 * building the workspace (incremental `tsc -b` and the bundler, as the test suite's global setup
 * does) in a child node started with `--conditions=dsh-built` that runs `pnpm bench <name>` itself.
 */
export async function onTheBuild(name: string, measured: readonly string[], measure: () => Promise<string[]>): Promise<string[]> {
  if (process.env.BENCH_SOURCES) return ['(ours on the TypeScript sources through tsx: BENCH_SOURCES is set)', ...(await measure())]
  if (runningBuilt(measured)) return ['(ours on the built packages, bundle/ as published: --conditions=dsh-built)', ...(await measure())]
  if (!(await buildWorkspace())) throw new Error('the workspace did not build (see above); BENCH_SOURCES=1 measures the sources through tsx')
  const output = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [CONDITION, 'packages/cli/cli/bin/run-ts.mjs', 'bench/run.ts', name],
      { cwd: REPO, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, BENCH_SOURCES: '' } },
      (error, stdout, stderr) => {
        process.stderr.write(stderr)
        if (error) reject(new Error(`pnpm bench ${name} on the build failed: ${error.message}`))
        else resolve(stdout)
      },
    )
  })
  // The child printed its own `## name` header; ours is already out.
  return output.trimEnd().split('\n').filter((line) => line !== `## ${name}`)
}
