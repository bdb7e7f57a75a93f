import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { ListToolsResultSchema } from '@modelcontextprotocol/core'
import { Context, Logger } from 'cordis'
import { bootPreset, Lifetime, ToolRuntime, untracked, type Host, type JsonValue, type RawToolDefinition } from 'dsh-core'
import { McpConfig } from '../packages/mcp/mcp/src/config.ts'
import { bridgeToolDefinition } from '../packages/mcp/mcp/src/definition.ts'
import { listAllTools, planTools, type ListedTool } from '../packages/mcp/mcp/src/discovery.ts'
import type { Supervisor } from '../packages/mcp/mcp/src/supervisor.ts'
import { ToolTable } from '../packages/mcp/mcp/src/tool-table.ts'
import { onTheBuild } from './built.ts'
import { ms, percentile, ratio, timed } from './stats.ts'

// MCP bridge overhead against a bare SDK Client talking to its own copy of the same stdio fixture
// server (packages/mcp/mcp/tests/fixtures/server.mjs):
// - tools/call round trips through ctx.tools.execute vs Client.callTool, interleaved call by call;
// - discovery and registration of a server listing 5,000 tools in pages of 100, vs a bare
//   paginated tools/list: at activation (spawn → initialize → every page → registered), and as a
//   list_changed re-sync inside a running host;
// - a list_changed re-sync that changes nothing against one that changes every tool (a full swap):
//   end to end in a running host, and the bridge's own share after the last page (plan + apply).

const REPO = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = join(REPO, 'packages/mcp/mcp/tests/fixtures/server.mjs')
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 2000)
const MANY = { FIXTURE_EXTRA_TOOLS: '5000', FIXTURE_PAGE_SIZE: '100' }
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 5)

/** This bench's own directory, made when it runs (run.ts imports every bench to pick one). */
let scratch = ''

function overlay(env: Record<string, string> = {}): string {
  const file = join(scratch, `overlay-${Object.keys(env).length}.yml`)
  const config = { serverName: 'fixture', transport: 'stdio', command: process.execPath, args: [FIXTURE], env }
  writeFileSync(file, `- name: dsh-mcp\n  config: ${JSON.stringify(config)}\n`)
  return file
}

async function bootWith(env: Record<string, string> = {}): Promise<Host> {
  return bootPreset({ preset: join(REPO, 'presets/base.yml'), overlays: [overlay(env)] })
}

/**
 * A bare SDK client on the SDK's stdio transport. `ownSession`: the server is started through
 * `setsid`, in a session of its own as ctx.subprocess starts every child (process-group teardown).
 * On Linux with autogroup scheduling a session is also a CPU share group, so on a loaded machine
 * such a child wakes later; comparing against it leaves only the bridge's own cost.
 */
async function bareClient(env: Record<string, string> = {}, ownSession = false): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' }, { capabilities: {} })
  const [command, args] = ownSession ? ['setsid', [process.execPath, FIXTURE]] : [process.execPath, [FIXTURE]]
  await client.connect(new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'ignore' }))
  return client
}

async function bareList(client: Client): Promise<number> {
  let count = 0
  let cursor: string | undefined
  do {
    const page = await client.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, ListToolsResultSchema)
    count += page.tools.length
    cursor = page.nextCursor || undefined
  } while (cursor)
  return count
}

async function callLatency(): Promise<string[]> {
  const host = await bootWith()
  const client = await bareClient()
  const grouped = existsSync('/usr/bin/setsid') ? await bareClient({}, true) : undefined
  // A harness holds its services, and makes effect-free calls untracked (docs/architecture.md, Helpers):
  // through cordis's tracing proxy every call costs tens of microseconds more.
  const tools = untracked(host.app.tools)
  const ours = async () => {
    const result = await tools.execute({ name: 'mcp__fixture__echo', arguments: { message: 'hi' } })
    if (result.isError) throw new Error(result.error.message)
  }
  const bare = async () => {
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } })
  }
  const bareOwnSession = async () => {
    await grouped?.callTool({ name: 'echo', arguments: { message: 'hi' } })
  }
  // The bridge's own share: its tool body (raw request, classification, checks) called directly,
  // without the tools runtime around it (argument copy, deadline, value copy, render). Each call gets
  // a lifetime of its own, and a signal only when the body reads it, as the runtime's `exec` does
  // (a shared long-lived signal once collected one abort listener per call from an SDK that never
  // removed them, and the body side slowed down as the run went on).
  const definition = tools.get('mcp__fixture__echo') as RawToolDefinition<JsonValue>
  const body = async () => {
    const lifetime = new Lifetime()
    try {
      // The signal made on first read, as the runtime's `exec` makes it (a body that never reads it makes no AbortController).
      await definition.execute({ message: 'hi' }, { callId: 'bench', name: definition.name, get signal() { return lifetime.signal }, lifetime, session: undefined, progress: () => {} })
    } finally {
      lifetime.dispose()
    }
  }
  try {
    for (let i = 0; i < 200; i++) await Promise.all([ours(), bare(), body(), bareOwnSession()])
    const samples = { ours: [] as number[], bare: [] as number[], body: [] as number[], grouped: [] as number[] }
    const sides = [['ours', ours], ['bare', bare], ['body', body], ...(grouped ? [['grouped', bareOwnSession] as const] : [])] as const
    for (let i = 0; i < CALLS; i++) {
      // Rotate who goes first so no side always gets the warmer cache.
      for (let k = 0; k < sides.length; k++) {
        const [name, run] = sides[(i + k) % sides.length]!
        samples[name].push((await timed(run))[0])
      }
    }
    const p = (name: keyof typeof samples, q: number) => percentile(samples[name], q)
    return [
      `tools/call round trip, ${CALLS} calls per side, interleaved (echo on the stdio fixture)`,
      `  ours (ctx.tools.execute) p50 ${ms(p('ours', 50))} p95 ${ms(p('ours', 95))}; bare SDK Client.callTool p50 ${ms(p('bare', 50))} p95 ${ms(p('bare', 95))}; ratio p50 ${ratio(p('ours', 50), p('bare', 50))} p95 ${ratio(p('ours', 95), p('bare', 95))}`,
      `  the bridge's tool body alone (no tools runtime) p50 ${ms(p('body', 50))} p95 ${ms(p('body', 95))}; ratio to bare p50 ${ratio(p('body', 50), p('bare', 50))} p95 ${ratio(p('body', 95), p('bare', 95))}`,
      ...(grouped
        ? [`  bare SDK client, its server in a session of its own as ctx.subprocess starts it (setsid) p50 ${ms(p('grouped', 50))} p95 ${ms(p('grouped', 95))}; ours to it p50 ${ratio(p('ours', 50), p('grouped', 50))} p95 ${ratio(p('ours', 95), p('grouped', 95))}`]
        : []),
    ]
  } finally {
    await client.close()
    await grouped?.close()
    await host.stop()
  }
}

async function activation(): Promise<string[]> {
  const mine: number[] = []
  const theirs: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const [oursMs, host] = await timed(() => bootWith(MANY))
    const registered = host.app.tools.catalog({ all: true }).length
    await host.stop()
    if (registered < 5000) throw new Error(`only ${registered} tools registered`)
    mine.push(oursMs)
    let client: Client | undefined
    const [bareMs, listed] = await timed(async () => {
      client = await bareClient(MANY)
      return bareList(client)
    })
    await client?.close()
    if (listed < 5000) throw new Error(`only ${listed} tools listed`)
    theirs.push(bareMs)
  }
  const [o, b] = [percentile(mine, 50), percentile(theirs, 50)]
  return [`activation with 5,000 tools in pages of 100, median of ${ROUNDS}: ours (boot base + row: spawn → initialize → 50 pages → 5,0xx tools registered) ${ms(o)}, bare (spawn → connect → 50 pages) ${ms(b)}, ratio ${ratio(o, b)}`]
}

async function resync(): Promise<string[]> {
  const host = await bootWith(MANY)
  const client = await bareClient(MANY)
  const tools = untracked(host.app.tools)
  const mine: number[] = []
  const theirs: number[] = []
  try {
    for (let round = 0; round < ROUNDS * 2; round++) {
      const name = `bench-${round}`
      const appeared = new Promise<void>((resolve) => {
        const stop = host.app.on('tools/change', () => {
          if (tools.get(`mcp__fixture__${name}`)) {
            stop()
            resolve()
          }
        })
      })
      // The server sends list_changed before answering; the bridge fetches every page and swaps.
      const [oursMs] = await timed(async () => {
        await tools.execute({ name: 'mcp__fixture__set-tools', arguments: { add: [name] } })
        await appeared
      })
      mine.push(oursMs)
      const [bareMs] = await timed(async () => {
        await client.callTool({ name: 'set-tools', arguments: { add: [name] } })
        await bareList(client)
      })
      theirs.push(bareMs)
    }
  } finally {
    await client.close()
    await host.stop()
  }
  const [o, b] = [percentile(mine, 50), percentile(theirs, 50)]
  return [`re-sync after list_changed with 5,000 tools (a call, then every page and the swap), median of ${ROUNDS * 2}: ours ${ms(o)}, bare (the call, then every page) ${ms(b)}, ratio ${ratio(o, b)}`]
}

/** Resolves once the bridge logs that a sync ended `unchanged` or `changed` (its debug line). */
function nextSync(outcome: 'changed' | 'unchanged'): Promise<void> {
  return new Promise((resolve) => {
    const target = {
      colors: 0,
      levels: { base: Logger.ERROR, mcp: Logger.DEBUG },
      print(text: string) {
        if (!text.includes(`(${outcome})`)) return
        Logger.targets.splice(Logger.targets.indexOf(target), 1)
        resolve()
      },
    }
    Logger.targets.push(target)
  })
}

async function nothingChanged(): Promise<string[]> {
  const host = await bootWith(MANY)
  const tools = untracked(host.app.tools)
  const same: number[] = []
  const swapped: number[] = []
  let burst: { relists: number; changes: number; rssMb: number }
  try {
    for (let round = 0; round < ROUNDS * 2; round++) {
      // The server announces a change that is none: every page is fetched and compared.
      const [sameMs] = await timed(async () => {
        const synced = nextSync('unchanged')
        await tools.execute({ name: 'mcp__fixture__list-changed', arguments: { count: 1 } })
        await synced
      })
      same.push(sameMs)
      // Every description changes: every page, and every tool re-registered.
      const [swapMs] = await timed(async () => {
        const synced = nextSync('changed')
        await tools.execute({ name: 'mcp__fixture__relabel', arguments: { suffix: ` (round ${round})` } })
        await synced
      })
      swapped.push(swapMs)
    }
    burst = await listChangedBurst(host)
  } finally {
    await host.stop()
  }
  const [o, b] = [percentile(same, 50), percentile(swapped, 50)]
  return [
    `re-sync after list_changed with 5,000 tools, end to end (the call, every page, the diff), median of ${ROUNDS * 2}: nothing changed ${ms(o)}, full swap (every tool changed) ${ms(b)}, ratio ${ratio(o, b)}`,
    `  a burst of 50 list_changed that change nothing: ${burst.relists} re-lists, ${burst.changes} tools/change, RSS ${burst.rssMb >= 0 ? '+' : ''}${burst.rssMb.toFixed(1)} MB`,
  ]
}

/**
 * 50 notifications at once that change nothing; counted once the bridge has been quiet for a second
 * (a benchmark may wait; tests may not): re-lists the server saw, catalog changes, RSS.
 */
async function listChangedBurst(host: Host): Promise<{ relists: number; changes: number; rssMb: number }> {
  const tools = untracked(host.app.tools)
  const starts = async () => {
    const result = await tools.execute({ name: 'mcp__fixture__counters', arguments: {} })
    if (result.isError) throw new Error(result.error.message)
    return (JSON.parse(result.content[0]!.text) as { listStarts: number }).listStarts
  }
  let changes = 0
  let lastSync = Date.now()
  const watcher = { colors: 0, levels: { base: Logger.ERROR, mcp: Logger.DEBUG }, print: (text: string) => void (text.includes('synced') && (lastSync = Date.now())) }
  Logger.targets.push(watcher)
  const stop = host.app.on('tools/change', () => void changes++)
  const before = await starts()
  const rss = process.memoryUsage().rss
  const first = nextSync('unchanged')
  await tools.execute({ name: 'mcp__fixture__list-changed', arguments: { count: 50 } })
  await first
  while (Date.now() - lastSync < 1000) await sleep(100)
  stop()
  Logger.targets.splice(Logger.targets.indexOf(watcher), 1)
  return { relists: (await starts()) - before, changes, rssMb: (process.memoryUsage().rss - rss) / 1024 / 1024 }
}

/** The bridge's share of a re-sync, after the last page: planning the listed tools and applying them to the registry. */
async function bridgeShare(): Promise<string[]> {
  const client = await bareClient(MANY)
  const signal = new AbortController().signal
  const listings: ListedTool[][] = []
  try {
    listings.push(await listAllTools(client, { pageTimeoutMs: 60_000, signal }))
    await client.callTool({ name: 'relabel', arguments: { suffix: ' (v2)' } })
    listings.push(await listAllTools(client, { pageTimeoutMs: 60_000, signal }))
  } finally {
    await client.close()
  }
  const app = new Context()
  app.plugin(ToolRuntime)
  await app.start()
  const config = McpConfig.parse({ serverName: 'fixture', transport: 'stdio', command: 'node' })
  const supervisor = {} as Supervisor
  const row = app.plugin({ name: 'bench-row', reusable: true, inject: ['tools'], apply() {} } as never)
  await app.events.flush()
  const runtime = (row as unknown as { ctx: Context }).ctx.tools
  const table = new ToolTable({ register: (definitions) => runtime.registerAll(definitions), batch: (change) => runtime.batch(change), define: (tool) => bridgeToolDefinition(tool, supervisor, config) })
  const options = { ...config, reserved: new Set<string>() }
  const apply = (listed: ListedTool[]) => table.apply(planTools('fixture', listed, options, table.byFingerprint()).tools)
  const same: number[] = []
  const swapped: number[] = []
  apply(listings[0]!)
  for (let round = 0; round < ROUNDS * 4; round++) {
    const next = listings[(round + 1) % 2]!
    const [swapMs] = await timed(async () => apply(next))
    swapped.push(swapMs)
    const [sameMs] = await timed(async () => apply(next))
    same.push(sameMs)
  }
  await app.stop()
  const [o, b] = [percentile(same, 50), percentile(swapped, 50)]
  return [`  the bridge's share after the last page (plan + apply to the registry), median of ${ROUNDS * 4}: nothing changed ${ms(o)}, full swap ${ms(b)}, ratio ${ratio(o, b)}`]
}

/**
 * The packages a bridged `tools/call` runs through (the host, its tools runtime, the bridge). Ours
 * runs on their bundles, as users run it (bench/built.ts): through tsx, keepNames wrapped every
 * closure of ours in a `__name` call (about 6 % of our CPU per call in a profile, 2026-12-06) while
 * the bare client ran the SDK's published dist. The other parts' direct imports of bridge modules
 * (ToolTable, planTools) stay TypeScript sources on dsh-core's bundle.
 */
const MCP_PACKAGES = ['dsh-core', 'dsh-core/tools', 'dsh-mcp']

export async function benchMcp(): Promise<string[]> {
  scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-mcp-'))
  try {
    return await onTheBuild('mcp', MCP_PACKAGES, measureMcp)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

async function measureMcp(): Promise<string[]> {
  // The fixture's deliberately odd output schema warns at every connect; keep the figures readable.
  const level = Logger.levels.base
  Logger.levels.base = Logger.ERROR
  try {
    // BENCH_MCP_PARTS=calls (comma-separated part names) runs only those parts, e.g. under --cpu-prof.
    const parts: Record<string, () => Promise<string[]>> = { calls: callLatency, activation, resync, nothingChanged, bridgeShare }
    const chosen = process.env.BENCH_MCP_PARTS?.split(',').map((part) => part.trim()).filter(Boolean) ?? Object.keys(parts)
    const lines: string[] = []
    for (const name of chosen) {
      const part = parts[name]
      if (!part) throw new Error(`BENCH_MCP_PARTS: unknown part "${name}"; known: ${Object.keys(parts).join(', ')}`)
      lines.push(...(await part()))
    }
    return lines
  } finally {
    Logger.levels.base = level
  }
}
