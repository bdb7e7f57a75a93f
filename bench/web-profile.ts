import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { untracked } from 'dsh-core'
import { onTheBuild, WEB_PACKAGES } from './built.ts'
import { bootOurs, startServer } from './web.ts'

// Where a small-page web_fetch's CPU goes, ours only: the V8 profiler (in this process, started
// after a warm-up, so the boot and the JIT's first passes are not in it) over untracked calls on
// the built packages, then the self time per call of every function in a dsh package. What is not
// ours (undici, Node, the socket write) is summed apart. The whole profile is kept for a viewer
// (Chrome DevTools, speedscope). BENCH_WEB_PROFILE_CALLS sets the number of calls;
// BENCH_WEB_PROFILE_TRACKED=1 profiles calls through the tracked `ctx.tools` (cordis's proxy) instead.

const CALLS = Number(process.env.BENCH_WEB_PROFILE_CALLS ?? 20_000)
const SHOWN = 25

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
export interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

/** `pnpm bench web-profile`, on the built packages (bench/built.ts). */
export function benchWebProfile(): Promise<string[]> {
  return onTheBuild('web-profile', WEB_PACKAGES, profileWebFetch)
}

async function profileWebFetch(): Promise<string[]> {
  const { child, origin } = await startServer()
  const { host, remove } = await bootOurs()
  const tracked = Boolean(process.env.BENCH_WEB_PROFILE_TRACKED)
  const tools = tracked ? host.app.tools : untracked(host.app.tools)
  const url = `${origin}/small.txt`
  const call = async () => {
    const result = await tools.execute({ name: 'web_fetch', arguments: { url } })
    if (result.isError) throw new Error(`${result.error.code} ${result.error.message}`)
  }
  const session = new Session()
  try {
    for (let i = 0; i < 3000; i++) await call()
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 50 })
    await session.post('Profiler.start')
    const cpu = process.cpuUsage()
    for (let i = 0; i < CALLS; i++) await call()
    const used = process.cpuUsage(cpu)
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile }
    const file = join(tmpdir(), `dsh-bench-web-${process.pid}.cpuprofile`)
    writeFileSync(file, JSON.stringify(profile))
    return [
      `CPU profile of ${CALLS} web_fetch calls of a small page through the ${tracked ? 'tracked ctx.tools' : 'untracked tools runtime'}, after 3000 warm-up calls; whole profile: ${file}`,
      `  this process's CPU per call (user + system, profiler on): ${((used.user + used.system) / CALLS).toFixed(1)} µs`,
      ...selfTimes(profile, CALLS),
    ]
  } finally {
    session.disconnect()
    await host.stop()
    remove()
    child.kill()
  }
}

/** Self time per call: dsh's functions one by one (the top ones), everything else by where it lives. */
export function selfTimes(profile: Profile, calls: number): string[] {
  const self = new Map<number, number>()
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)))
  const ours = new Map<string, number>()
  const rest = new Map<string, number>()
  for (const node of profile.nodes) {
    const micros = self.get(node.id)
    if (!micros) continue
    const { functionName, url, lineNumber } = node.callFrame
    // The inspector's own message dispatch (this process profiles itself) is not the call's.
    if (!url && functionName === 'dispatch') continue
    const place = /\/packages\/[^/]+\/([^/]+)\/(.+)$/.exec(url)
    if (place) add(ours, `${functionName || '(anonymous)'} (${place[1]} ${place[2]}:${lineNumber + 1})`, micros)
    else add(rest, /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? (url.startsWith('node:') ? 'node' : functionName || 'native'), micros)
  }
  const total = (map: Map<string, number>) => [...map.values()].reduce((sum, value) => sum + value, 0)
  const rows = (map: Map<string, number>, count: number) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, micros]) => `    ${(micros / calls).toFixed(2).padStart(7)} µs  ${name}`)
  return [
    `  dsh packages, self time per call: ${(total(ours) / calls).toFixed(1)} µs in all; the top ${SHOWN}:`,
    ...rows(ours, SHOWN),
    `  the rest, self time per call, by package or kind (idle included):`,
    ...rows(rest, 12),
  ]
}

function add(map: Map<string, number>, key: string, micros: number): void {
  map.set(key, (map.get(key) ?? 0) + micros)
}
