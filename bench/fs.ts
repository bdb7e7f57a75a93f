import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { bootPreset, type Host } from 'dsh-core'
import { ms, percentile, ratio, timed } from './stats.ts'

// The trade-off behind ctx.fs's `io` setting. On a local disk: warm `lsp` hover latency with the
// system calls made synchronously vs on the threadpool. On a deliberately slow filesystem (a FUSE
// passthrough that sleeps before every operation, bench/slowfs.py): how long the event loop is
// frozen while hovers run, in each mode. Needs /dev/fuse and Debian's python3-fusepy for the second
// part; without them it says so and measures the first part only.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const QUERIES = Number(process.env.BENCH_FS_QUERIES ?? 200)
const SLOW_QUERIES = Number(process.env.BENCH_FS_SLOW_QUERIES ?? 20)
const DELAY_MS = Number(process.env.BENCH_FS_DELAY_MS ?? 10)
const HOVER = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 }

type Mode = 'sync' | 'async'

async function boot(mode: Mode, dir: string): Promise<Host> {
  const overlay = join(dir, `fs-${mode}.yml`)
  writeFileSync(overlay, `- id: fs\n  config:\n    io: ${mode}\n`)
  return bootPreset({ preset: join(REPO, 'presets/coding.yml'), overlays: [overlay] })
}

function hover(host: Host, cwd: string) {
  const { tools, sessions } = { tools: host.app.tools, sessions: host.app.sessions }
  const session = sessions.create({ cwd })
  return async () => {
    const result = await tools.execute({ name: 'lsp', arguments: HOVER, session })
    if (result.isError) throw new Error(`${result.error.code} ${result.error.message}`)
  }
}

async function localDisk(scratch: string): Promise<string[]> {
  const copies = { sync: join(scratch, 'sync'), async: join(scratch, 'async') }
  for (const dir of Object.values(copies)) cpSync(FIXTURE, dir, { recursive: true })
  const hosts = { sync: await boot('sync', scratch), async: await boot('async', scratch) }
  try {
    const run = { sync: hover(hosts.sync, copies.sync), async: hover(hosts.async, copies.async) }
    for (let i = 0; i < 20; i++) await Promise.all([run.sync(), run.async()])
    const samples: Record<Mode, number[]> = { sync: [], async: [] }
    for (let i = 0; i < QUERIES; i++) {
      for (const mode of (i % 2 ? ['sync', 'async'] : ['async', 'sync']) as Mode[]) samples[mode].push((await timed(run[mode]))[0])
    }
    const [s50, a50, s95, a95] = [percentile(samples.sync, 50), percentile(samples.async, 50), percentile(samples.sync, 95), percentile(samples.async, 95)]
    return [
      `local disk: warm lsp hover, ${QUERIES} per mode, interleaved`,
      `io: sync    p50 ${ms(s50)}  p95 ${ms(s95)}`,
      `io: async   p50 ${ms(a50)}  p95 ${ms(a95)}   async/sync p50 ${ratio(a50, s50)}, p95 ${ratio(a95, s95)}`,
    ]
  } finally {
    await Promise.all([hosts.sync.stop(), hosts.async.stop()])
  }
}

function fuseAvailable(): string | undefined {
  if (!existsSync('/dev/fuse')) return 'no /dev/fuse'
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import fusepy'])
  if (probe.status !== 0) return 'Debian python3-fusepy is not installed (apt-get install python3-fusepy fuse3)'
  return undefined
}

async function mountSlow(source: string, mountpoint: string): Promise<ChildProcess> {
  mkdirSync(mountpoint, { recursive: true })
  const child = spawn('/usr/bin/python3', [join(REPO, 'bench/slowfs.py'), source, mountpoint], { env: { ...process.env, DELAY_MS: String(DELAY_MS) }, stdio: 'ignore' })
  for (let i = 0; i < 100 && !existsSync(join(mountpoint, 'ts-project')); i++) await new Promise((resolve) => setTimeout(resolve, 50))
  if (!existsSync(join(mountpoint, 'ts-project'))) throw new Error('the slow filesystem did not mount')
  return child
}

async function slowDisk(scratch: string): Promise<string[]> {
  const unavailable = fuseAvailable()
  if (unavailable) return [`slow filesystem: skipped (${unavailable})`]
  const source = join(scratch, 'slow-source')
  mkdirSync(source)
  cpSync(FIXTURE, join(source, 'ts-project'), { recursive: true })
  const mountpoint = join(scratch, 'slow')
  const fuse = await mountSlow(source, mountpoint)
  const lines = [`slow filesystem (${DELAY_MS} ms before every operation): ${SLOW_QUERIES} lsp hovers per mode, one mode at a time`]
  try {
    for (const mode of ['sync', 'async'] as Mode[]) {
      const host = await boot(mode, scratch)
      try {
        const run = hover(host, join(mountpoint, 'ts-project'))
        await run()
        const delay = monitorEventLoopDelay({ resolution: 1 })
        delay.enable()
        const samples: number[] = []
        for (let i = 0; i < SLOW_QUERIES; i++) samples.push((await timed(run))[0])
        delay.disable()
        lines.push(
          `io: ${mode.padEnd(5)}  hover p50 ${ms(percentile(samples, 50))}   event loop blocked: max ${ms(delay.max / 1e6)}, p99 ${ms(delay.percentile(99) / 1e6)}`,
        )
      } finally {
        await host.stop()
      }
    }
  } finally {
    spawnSync('fusermount3', ['-u', mountpoint])
    fuse.kill()
  }
  return lines
}

export async function benchFs(): Promise<string[]> {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-fs-')))
  try {
    return [...(await localDisk(scratch)), ...(await slowDisk(scratch))]
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
