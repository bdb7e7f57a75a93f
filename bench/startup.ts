import { execFile } from 'node:child_process'
import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { ms, percentile, ratio, timed } from './stats.ts'

// What an installed `dsh` costs to start: `dsh tools` on the same preset (host, Skill and Web rows)
// from the packages installed by `pnpm check:pack --keep` (plain node on the built JavaScript)
// against this repository's `dsh` (tsx compiling the sources), interleaved run by run.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const PRESET = join(REPO, 'scripts/pack-check/serve.yml')
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 20)
const run = promisify(execFile)

export async function benchStartup(): Promise<string[]> {
  const install = process.env.BENCH_DSH_INSTALL
  const installedBin = install ? join(install, 'node_modules/dsh-cli/dist/bin.js') : ''
  if (!install || !existsSync(installedBin)) {
    return ['skipped: set BENCH_DSH_INSTALL to the install directory `pnpm check:pack --keep` prints (it needs the packed, installed packages)']
  }
  // Row names resolve from the preset's directory: the installed side needs its copy beside its packages.
  copyFileSync(PRESET, join(install, 'serve.yml'))
  const sides = {
    installed: { cwd: install, args: [installedBin, 'tools', '--preset', 'serve.yml'] },
    workspace: { cwd: REPO, args: [join(REPO, 'packages/cli/cli/bin/dsh.mjs'), 'tools', '--preset', PRESET] },
  }
  const times: Record<keyof typeof sides, number[]> = { installed: [], workspace: [] }
  for (let index = 0; index < RUNS; index++) {
    for (const name of ['installed', 'workspace'] as const) {
      const [elapsed] = await timed(() => run(process.execPath, sides[name].args, { cwd: sides[name].cwd }))
      times[name].push(elapsed)
    }
  }
  const p50 = (name: keyof typeof sides) => percentile(times[name], 50)
  return [
    `dsh tools --preset scripts/pack-check/serve.yml, wall time per process, ${RUNS} runs per side, interleaved`,
    `  installed (node dist/bin.js) p50 ${ms(p50('installed'))} p95 ${ms(percentile(times.installed, 95))}; workspace (tsx on src) p50 ${ms(p50('workspace'))} p95 ${ms(percentile(times.workspace, 95))}; ratio p50 ${ratio(p50('installed'), p50('workspace'))}`,
  ]
}
