import { untracked, type ToolResult } from 'dsh-core'
import { Agent, request } from 'undici'
import { ratio } from './stats.ts'
import { bootOurs, startServer } from './web.ts'
import { onTheBuild, WEB_PACKAGES } from './built.ts'

// CPU time per small-page fetch, ours against the bare client, in blocks that alternate: on a
// loaded machine (the shared 2-core box) a wall-clock p50 mostly measures the wait for a core,
// while this process's user + system time per call still shows what each layer adds.

const CALLS = Number(process.env.BENCH_WEB_CPU_CALLS ?? 2000)
const BLOCKS = Number(process.env.BENCH_WEB_CPU_BLOCKS ?? 10)

type Side = readonly [label: string, run: () => Promise<unknown>]

/** Where the diagnostic sides put what they read, so that the read is not optimised away. */
export let readSink: unknown

/** `pnpm bench web-cpu`, ours on the built packages (bench/built.ts). */
export function benchWebCpu(): Promise<string[]> {
  return onTheBuild('web-cpu', WEB_PACKAGES, measureWebCpu)
}

async function measureWebCpu(): Promise<string[]> {
  const { child, origin } = await startServer()
  const { host, remove } = await bootOurs()
  const agent = new Agent()
  const url = `${origin}/small.txt`
  const web = untracked(host.app.web)
  const tools = host.app.tools
  const untrackedTools = untracked(tools)
  const call = async (runtime: typeof tools) => checked(await runtime.execute({ name: 'web_fetch', arguments: { url } }))
  // `execute` taken from the tracked ctx.tools once: cordis's proxy is not rebuilt per call.
  const { execute } = tools
  const sides: Side[] = [
    ['bare undici.request + body.text()', async () => (await request(url, { dispatcher: agent })).body.text()],
    ['ctx.web.fetch (seam + provider)', () => web.fetch({ url })],
    ['web_fetch, tools runtime untracked', () => call(untrackedTools)],
    ['web_fetch, execute taken once from ctx.tools', async () => checked(await execute({ name: 'web_fetch', arguments: { url } }))],
    ['web_fetch through ctx.tools.execute', () => call(tools)],
    // Where the last line's extra CPU goes: the read itself, made beside a call through the held
    // `execute` and thrown away; once per call (cold: the fetch ran in between), then ten in a row.
    ['  held, plus one read of ctx.tools.execute', async () => {
      readSink = tools.execute
      checked(await execute({ name: 'web_fetch', arguments: { url } }))
    }],
    ['  held, plus ten reads of ctx.tools.execute', async () => {
      for (let read = 0; read < 10; read++) readSink = tools.execute
      checked(await execute({ name: 'web_fetch', arguments: { url } }))
    }],
  ]
  try {
    for (let i = 0; i < 300; i++) for (const [, run] of sides) await run()
    const perCall = sides.map(() => [] as number[])
    for (let block = 0; block < BLOCKS; block++) {
      const order = block % 2 ? sides.map((_, index) => index) : sides.map((_, index) => sides.length - 1 - index)
      for (const index of order) {
        const before = process.cpuUsage()
        for (let i = 0; i < CALLS; i++) await sides[index]![1]()
        const used = process.cpuUsage(before)
        perCall[index]!.push((used.user + used.system) / CALLS)
      }
    }
    const medians = perCall.map((samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1]!)
    return [
      `CPU per small-page fetch (864 B, loopback; this process's user + system time), median of ${BLOCKS} blocks of ${CALLS} calls per side, blocks alternating`,
      ...sides.map(([label], index) => `  ${label.padEnd(46)} ${medians[index]!.toFixed(1).padStart(7)} µs  ${ratio(medians[index]!, medians[0]!)}`),
    ]
  } finally {
    await agent.destroy()
    await host.stop()
    remove()
    child.kill()
  }
}

function checked(result: ToolResult): void {
  if (result.isError) throw new Error(`${result.error.code} ${result.error.message}`)
}
