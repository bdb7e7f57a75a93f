import { execFile } from 'node:child_process'
import { loadavg } from 'node:os'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { installedDshBin, installedWorkspace } from './installed.ts'
import { ms, pairedRatio, pairedRatioText, percentile, ratio, timed } from './stats.ts'

// What `dsh` costs to start: `dsh tools --json --preset base` (the host, Web and Skill rows) as a user
// who installed the packages from npm runs it (plain node on the built JavaScript), as this
// repository runs it (bin/dsh.mjs, tsx compiling the sources), and bare node (`node -e 0`) as the
// floor, one process per run, interleaved: each round runs installed and bare back to back (who goes
// first alternates), then the repository side, and the round ratio is the median of the rounds'
// side ÷ bare with its quartiles (a burst of load moves both halves of a round together). The installed side is made on first use (bench/installed.ts);
// BENCH_DSH_INSTALL names another install directory instead (`pnpm check:pack --keep` prints one).
// BENCH_STARTUP_REPOSITORY=0 leaves the repository side out (it takes two thirds of a run's time on a
// loaded machine, and the goal is the installed side's).

const REPO = fileURLToPath(new URL('../', import.meta.url))
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 20)
const WITH_REPOSITORY = process.env.BENCH_STARTUP_REPOSITORY !== '0'
const execute = promisify(execFile)
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')

export async function benchStartup(): Promise<string[]> {
  const install = process.env.BENCH_DSH_INSTALL ?? (await installedWorkspace(REPO))
  const installedBin = installedDshBin(install)
  const sides = {
    installed: { cwd: install, args: [installedBin, 'tools', '--json', '--preset', 'base'] },
    repository: { cwd: REPO, args: [join(REPO, 'packages/cli/cli/bin/dsh.mjs'), 'tools', '--json', '--preset', 'base'] },
    bare: { cwd: REPO, args: ['-e', '0'] },
  }
  type Side = keyof typeof sides
  const names = (Object.keys(sides) as Side[]).filter((name) => WITH_REPOSITORY || name !== 'repository')
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Side, number[]>
  const loadBefore = load()
  for (let index = 0; index < RUNS; index++) {
    const order: Side[] = index % 2 ? ['bare', 'installed', 'repository'] : ['installed', 'bare', 'repository']
    for (const name of order.filter((side) => names.includes(side))) {
      const [elapsed] = await timed(() => execute(process.execPath, sides[name].args, { cwd: sides[name].cwd, maxBuffer: 64 * 1024 * 1024 }))
      times[name].push(elapsed)
    }
  }
  const p50 = (name: Side) => percentile(times[name], 50)
  const versusBare = (name: Side) => `   ratio to bare node p50 ${ratio(p50(name), p50('bare'))}, round ratio ${pairedRatioText(pairedRatio(times[name], times.bare))}`
  const line = (name: Side, what: string) => `  ${name.padEnd(10)} ${what.padEnd(44)} p50 ${ms(p50(name)).padStart(11)} p95 ${ms(percentile(times[name], 95)).padStart(11)}${name === 'bare' ? '' : versusBare(name)}`
  return [
    `dsh tools --json --preset base, wall time per process, ${RUNS} runs per side, interleaved (installed and bare back to back, who goes first alternating); load average ${loadBefore} before, ${load()} after`,
    line('installed', `node ${relative(join(install, 'node_modules/dsh-cli'), installedBin)} in ${install === process.env.BENCH_DSH_INSTALL ? install : 'an npm install of the tarballs'}`),
    ...(WITH_REPOSITORY ? [line('repository', 'node packages/cli/cli/bin/dsh.mjs (tsx)')] : []),
    line('bare', 'node -e 0'),
  ]
}
