import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { bootPreset, SessionService, TOOL_SEARCH, ToolRuntime, untracked, type CatalogEntry, type FoundTool, type Host, type JsonValue, type RawToolDefinition } from 'dsh-core'
import { PHRASINGS } from './tool-search-queries.ts'
import { ms, percentile, ratio } from './stats.ts'

// Deferred tools (docs/architecture.md, "Deferred tools and tool_search"):
// - catalog bytes per request (what `dsh tools --json` prints) with deferral on and off, for one
//   server of 5,000 tools and for the real servers below, mounted through dsh-mcp;
// - tool_search p50 over those 5,000 tools plus the real ones, through ctx.tools.execute, beside a
//   bare substring scan over the same names and descriptions (the least a client could do);
// - top-5 recall of the phrasings in tool-search-queries.ts against the real servers' tools mixed
//   into the 5,000, and of every real tool's exact name.
//
// The real servers are npm packages: server-everything and server-filesystem from the workspace, the
// others installed once into node_modules/.cache/dsh-bench-mcp (the registry is reachable from a
// developer machine; tests never do this).

const REPO = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = join(REPO, 'packages/mcp/mcp/tests/fixtures/server.mjs')
const CACHE = join(REPO, 'node_modules/.cache/dsh-bench-mcp')
const SEARCHES = Number(process.env.BENCH_TOOL_SEARCHES ?? 2000)
const INSTALLED = {
  '@modelcontextprotocol/server-github': '2025.4.8',
  '@modelcontextprotocol/server-gitlab': '2025.4.25',
  '@modelcontextprotocol/server-slack': '2025.4.25',
  '@modelcontextprotocol/server-google-maps': '0.6.2',
  '@modelcontextprotocol/server-memory': '2026.8.31',
  '@modelcontextprotocol/server-sequential-thinking': '2026.8.31',
}
// Credentials the servers need to start; listing tools never uses them.
const UNUSED = 'unused-by-the-bench'

/** This bench's own directory, made when it runs (run.ts imports every bench to pick one). */
let scratch = ''

function installServers(): string {
  const bin = join(CACHE, 'node_modules/.bin')
  if (Object.keys(INSTALLED).every((name) => existsSync(join(bin, name.replace('@modelcontextprotocol/server-', 'mcp-server-'))))) return bin
  mkdirSync(CACHE, { recursive: true })
  writeFileSync(join(CACHE, 'package.json'), JSON.stringify({ name: 'dsh-bench-mcp', private: true }))
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', CACHE, ...Object.entries(INSTALLED).map(([name, version]) => `${name}@${version}`)], { stdio: 'ignore' })
  return bin
}

interface Row {
  readonly serverName: string
  readonly command: string
  readonly args?: readonly string[]
  readonly env?: Record<string, string>
}

function realRows(): Row[] {
  const bin = installServers()
  const resolve = createRequire(join(REPO, 'package.json')).resolve
  const everything = resolve('@modelcontextprotocol/server-everything/dist/index.js')
  const filesystem = join(REPO, 'node_modules/.bin/mcp-server-filesystem')
  return [
    { serverName: 'everything', command: process.execPath, args: [everything, 'stdio'] },
    { serverName: 'filesystem', command: filesystem, args: [scratch] },
    { serverName: 'github', command: join(bin, 'mcp-server-github'), env: { GITHUB_PERSONAL_ACCESS_TOKEN: UNUSED } },
    { serverName: 'gitlab', command: join(bin, 'mcp-server-gitlab'), env: { GITLAB_PERSONAL_ACCESS_TOKEN: UNUSED } },
    { serverName: 'slack', command: join(bin, 'mcp-server-slack'), env: { SLACK_BOT_TOKEN: UNUSED, SLACK_TEAM_ID: UNUSED } },
    { serverName: 'maps', command: join(bin, 'mcp-server-google-maps'), env: { GOOGLE_MAPS_API_KEY: UNUSED } },
    { serverName: 'memory', command: join(bin, 'mcp-server-memory'), env: { MEMORY_FILE_PATH: join(scratch, 'memory.json') } },
    { serverName: 'thinking', command: join(bin, 'mcp-server-sequential-thinking') },
  ]
}

async function boot(rows: readonly Row[], defer: boolean): Promise<Host> {
  const file = join(scratch, `overlay-${rows.length}-${defer}.yml`)
  const mcp = rows.map((row) => `- id: mcp-${row.serverName}\n  name: dsh-mcp\n  config: ${JSON.stringify({ transport: 'stdio', startupTimeoutMs: 60_000, ...row })}\n`)
  writeFileSync(file, [`- id: tools\n  config: { defer: { enabled: ${defer} } }\n`, ...mcp].join(''))
  return bootPreset({ preset: join(REPO, 'presets/base.yml'), overlays: [file] })
}

function catalogBytes(host: Host): { bytes: number; tools: number } {
  const tools = host.app.tools.catalog()
  return { bytes: Buffer.byteLength(JSON.stringify({ tools })), tools: tools.length }
}

async function catalogSizes(label: string, rows: readonly Row[]): Promise<{ lines: string[]; all: CatalogEntry[] }> {
  const off = await boot(rows, false)
  const all = off.app.tools.catalog()
  const full = catalogBytes(off)
  await off.stop()
  const on = await boot(rows, true)
  const deferred = catalogBytes(on)
  await on.stop()
  return {
    all,
    lines: [`catalog bytes, ${label}: ${deferred.bytes} deferred (${deferred.tools} tools listed) vs ${full.bytes} all listed (${full.tools} tools) = ${ratio(deferred.bytes, full.bytes)}`],
  }
}

/** One runtime holding the 5,000 fixture tools and the real ones, as dsh-mcp registers them. */
async function searchHost(tools: readonly CatalogEntry[]): Promise<{ app: Context; runtime: ToolRuntime; session: ReturnType<SessionService['create']> }> {
  const app = new Context()
  app.plugin(ToolRuntime, {})
  app.plugin(SessionService)
  await app.start()
  const definitions: RawToolDefinition<JsonValue>[] = tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters, defer: 'auto', execute: async () => ({}) }))
  app.tools.registerAll(definitions)
  return { app, runtime: untracked(app.tools), session: app.sessions.create({ cwd: scratch }) }
}

async function search(runtime: ToolRuntime, session: ReturnType<SessionService['create']>, query: string): Promise<string[]> {
  const result = await runtime.execute({ name: TOOL_SEARCH, arguments: { query }, session })
  if (result.isError) throw new Error(result.error.message)
  return (result.value as { tools: FoundTool[] }).tools.map((tool) => tool.name)
}

export async function benchToolSearch(): Promise<string[]> {
  scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-tool-search-'))
  const lines: string[] = []
  try {
    const many = await catalogSizes('one server of 5,000 tools', [{ serverName: 'fixture', command: process.execPath, args: [FIXTURE], env: { FIXTURE_EXTRA_TOOLS: '5000', FIXTURE_PAGE_SIZE: '500' } }])
    const real = await catalogSizes('8 real servers', realRows())
    lines.push(...many.lines, ...real.lines)
    const realTools = real.all.filter((tool) => tool.name.startsWith('mcp__'))
    lines.push(`real servers' tools: ${realTools.length} (${[...new Set(realTools.map((tool) => tool.name.split('__')[1]))].join(', ')})`)

    const pool = [...many.all.filter((tool) => tool.name.startsWith('mcp__')), ...realTools]
    const { app, runtime, session } = await searchHost(pool)
    await search(runtime, session, 'warm the index')

    const queries = PHRASINGS.map((phrasing) => phrasing.query)
    const ours: number[] = []
    const bare: number[] = []
    const texts = pool.map((tool) => `${tool.name} ${tool.description}`.toLowerCase())
    for (let i = 0; i < SEARCHES; i++) {
      const query = queries[i % queries.length]!
      let start = performance.now()
      await search(runtime, session, query)
      ours.push(performance.now() - start)
      start = performance.now()
      const words = query.toLowerCase().split(/\s+/)
      texts.filter((text) => words.some((word) => text.includes(word))).slice(0, 5)
      bare.push(performance.now() - start)
    }
    lines.push(`tool_search over ${pool.length} tools, p50 ${ms(percentile(ours, 50))} (p95 ${ms(percentile(ours, 95))}) vs a bare substring scan ${ms(percentile(bare, 50))} = ${ratio(percentile(ours, 50), percentile(bare, 50))} (${SEARCHES} searches)`)

    let hits = 0
    const misses: string[] = []
    for (const { query, expect } of PHRASINGS) {
      const found = (await search(runtime, app.sessions.create({ cwd: scratch }), query)).slice(0, 5)
      if (found.includes(expect)) hits++
      else misses.push(`${JSON.stringify(query)} → ${found.slice(0, 3).join(', ') || 'nothing'} (wanted ${expect})`)
    }
    lines.push(`top-5 recall of ${PHRASINGS.length} task phrasings over ${pool.length} tools: ${hits}/${PHRASINGS.length} = ${((100 * hits) / PHRASINGS.length).toFixed(1)} %`)
    for (const miss of misses) lines.push(`  miss: ${miss}`)

    let exact = 0
    for (const tool of realTools) {
      const [full] = await search(runtime, app.sessions.create({ cwd: scratch }), tool.name)
      const raw = await search(runtime, app.sessions.create({ cwd: scratch }), tool.name.split('__')[2]!)
      if (full === tool.name && raw.includes(tool.name)) exact++
    }
    lines.push(`exact names first (full name first, and the server's own name among the answers): ${exact}/${realTools.length}`)
    await app.stop()
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  return lines
}
