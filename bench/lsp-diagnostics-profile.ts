import { createHook } from 'node:async_hooks'
import { readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LSP_PACKAGES, onTheBuild } from './built.ts'
import { complete, ours, SERVERS, servicesOf, workspaceCopy, type Services } from './lsp-diagnostics.ts'
import { bootCoding } from './lsp-servers.ts'
import { selfTimes, type Profile } from './web-profile.ts'

// Where our side of "diagnostics after a change" on TypeScript 7 spends its CPU (issue 27 item 2):
// the same change as `pnpm bench lsp-diagnostics` (the file written, fileChanged, lsp_diagnostics),
// ours only, on the built packages. After a warm-up: the CPU per change (the write not included),
// the promises created per change (async_hooks, hooks on for that pass only), then the V8 profiler
// over the changes and the self time per change of every function in a dsh package, the rest summed
// by package. The profiler samples wall time: on a loaded machine a process waiting for a core is
// sampled where it stopped (a pipe write that wakes the server shows as writeBuffer), so read small
// items with care; the counts and the CPU do not depend on that. The whole profile is kept for a
// viewer. BENCH_LSP_PROFILE_CHANGES sets the number of changes per pass; BENCH_LSP_PROFILE_TRACKED=1
// reads fileChanged and execute through the held services on each change instead of holding them.

const CHANGES = Number(process.env.BENCH_LSP_PROFILE_CHANGES ?? 300)

/** `pnpm bench lsp-diagnostics-profile`, on the built packages (bench/built.ts). */
export function benchLspDiagnosticsProfile(): Promise<string[]> {
  return onTheBuild('lsp-diagnostics-profile', LSP_PACKAGES, profileDiagnostics)
}

async function profileDiagnostics(): Promise<string[]> {
  const server = SERVERS.find((candidate) => candidate.baseline === 'pull')!
  const copy = workspaceCopy(server)
  const clean = readFileSync(join(copy.dir, server.file), 'utf8')
  const broken = server.breakText(clean)
  const host = await bootCoding()
  const session = new Session()
  try {
    const app = host.app
    const { lsp, tools } = app
    // BENCH_LSP_PROFILE_TRACKED=1: the services held, each method read through cordis's tracking per change.
    const services: Services = process.env.BENCH_LSP_PROFILE_TRACKED
      ? { fileChanged: (path, options) => lsp.fileChanged(path, options), execute: (call) => tools.execute(call) }
      : servicesOf(host)
    const sessionOf = app.sessions.create({ cwd: copy.dir })
    for (let attempt = 1; !(await complete(host, sessionOf, server.file)); attempt++) {
      if (attempt === 10) throw new Error(`${server.name}: no complete diagnostics after ${attempt} calls`)
    }
    let round = 0
    /** One change; returns the CPU (µs) of ours alone, the write not included. */
    const change = async () => {
      const [text, errors] = round++ % 2 ? [clean, 0] : [broken, 1]
      writeFileSync(join(copy.dir, server.file), text)
      const cpu = process.cpuUsage()
      await ours(services, sessionOf, server, errors)
      const used = process.cpuUsage(cpu)
      return used.user + used.system
    }
    for (let i = 0; i < 60; i++) await change()
    const plain: number[] = []
    for (let i = 0; i < CHANGES; i++) plain.push(await change())
    plain.sort((a, b) => a - b)
    let promises = 0
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) })
    hook.enable()
    for (let i = 0; i < CHANGES; i++) await change()
    hook.disable()
    const sites = process.env.BENCH_LSP_PROFILE_PROMISE_SITES ? await promiseSites(change) : []
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 50 })
    await session.post('Profiler.start')
    let profiled = 0
    for (let i = 0; i < CHANGES; i++) profiled += await change()
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile }
    const file = join(tmpdir(), `dsh-bench-lsp-diagnostics-${process.pid}.cpuprofile`)
    writeFileSync(file, JSON.stringify(profile))
    return [
      `CPU profile of ${CHANGES} changes on ${server.name}, ours (write, fileChanged, lsp_diagnostics), after 60 warm-up changes; whole profile: ${file}`,
      `  promises created per change (async_hooks, a pass of its own): ${(promises / CHANGES).toFixed(1)}`,
      `  this process's CPU per change, the write not included (user + system): p50 ${plain[Math.floor(plain.length / 2)]} µs, mean ${(plain.reduce((sum, value) => sum + value, 0) / CHANGES).toFixed(0)} µs (no hooks, no profiler); mean ${(profiled / CHANGES).toFixed(0)} µs with the profiler on`,
      ...sites,
      ...selfTimes(profile, CHANGES),
    ]
  } finally {
    session.disconnect()
    await host.stop()
    copy.remove()
  }
}

/**
 * Where the promises of a change are made (BENCH_LSP_PROFILE_PROMISE_SITES=1): for each one, the
 * nearest frame of a dsh package or a dependency on the stack at its creation, counted per change.
 */
async function promiseSites(change: () => Promise<number>): Promise<string[]> {
  const CHANGES_SAMPLED = 40
  const sites = new Map<string, number>()
  const hook = createHook({
    init: (_id, type) => {
      if (type !== 'PROMISE') return
      const frames = (new Error().stack ?? '').split('\n').slice(2)
      const frame = frames.find((line) => /\/packages\/|node_modules/.test(line) && !/bench\//.test(line)) ?? frames.find((line) => !/node:internal|async_hooks/.test(line)) ?? '?'
      const key = frame.trim().replace(/^at /, '').replace(/file:\/\/\S*\/(packages\/[^/]+\/[^/]+|node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?[^/]+)\/\S*?([^/]+:\d+):\d+/, '$1 $2')
      sites.set(key, (sites.get(key) ?? 0) + 1)
    },
  })
  Error.stackTraceLimit = 30
  hook.enable()
  for (let i = 0; i < CHANGES_SAMPLED; i++) await change()
  hook.disable()
  Error.stackTraceLimit = 10
  return [
    `  promises per change by where they are made (the nearest dsh or dependency frame; ${CHANGES_SAMPLED} changes):`,
    ...[...sites].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([site, count]) => `    ${(count / CHANGES_SAMPLED).toFixed(1).padStart(6)}  ${site}`),
  ]
}
