// Import of other clients' MCP configs (issue 21): Claude Code's .mcp.json and Codex's config.toml,
// as their documentation shows them (files written by us), become dsh-mcp rows; every field with no
// equivalent is reported; an `mcpConfig:` row runs a file's servers without copying it.
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfig } from '../src/config.ts'
import { readMcpConfigFile } from '../src/import/read.ts'
import { serverNameFor } from '../src/import/types.ts'
import { startRig, stopRigs, type RowInput } from './fixtures/rig.ts'

const CLAUDE = fileURLToPath(new URL('./fixtures/import/claude.mcp.json', import.meta.url))
const CODEX = fileURLToPath(new URL('./fixtures/import/codex.config.toml', import.meta.url))
const CODEX_CASES = fileURLToPath(new URL('./fixtures/import/cases/codex.config.toml', import.meta.url))

afterEach(() => stopRigs())

describe('import', () => {
  it('reads Claude Code .mcp.json: stdio, http, sse and oauth rows, ${VAR} kept for load time, headersHelper reported', async () => {
    const result = await readMcpConfigFile(CLAUDE)
    expect(result.format).toBe('claude')
    const byName = Object.fromEntries(result.servers.map((server) => [server.config.serverName, server.config]))
    expect(byName.everything).toEqual({ serverName: 'everything', transport: 'stdio', command: 'mcp-server-everything', args: ['stdio'], env: { EVERYTHING_LOG_LEVEL: '${EVERYTHING_LOG_LEVEL:-quiet}' } })
    expect(byName['api-server']).toEqual({ serverName: 'api-server', transport: 'streamable-http', url: '${API_BASE_URL:-https://api.example.com}/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } })
    expect(byName.sentry_io).toMatchObject({ transport: 'streamable-http', oauth: { clientId: 'dsh-test-client', callbackPort: 8080 } })
    expect(byName['legacy-events']).toMatchObject({ transport: 'sse', url: 'https://mcp.example.com/sse' })
    expect(result.notes).toEqual([
      'mcpServers.sentry.io: renamed to "sentry_io" (dsh server names are 1-32 letters, digits, _ or -, without "__" or a trailing "_")',
      'mcpServers.legacy-events: headersHelper is not imported: dsh does not run a command for headers; use envHeaders or bearerTokenEnvVar',
    ])
    process.env.API_KEY = 'k'
    try {
      for (const server of result.servers) expect(McpConfig.safeParse(server.config).success, String(server.config.serverName)).toBe(true)
    } finally {
      delete process.env.API_KEY
    }
  })

  it('reads Codex config.toml: every mcp_servers field mapped or reported', async () => {
    const result = await readMcpConfigFile(CODEX)
    expect(result.format).toBe('codex')
    const [everything, figma, docs] = result.servers
    expect(everything!.config).toEqual({
      serverName: 'everything',
      transport: 'stdio',
      command: 'mcp-server-everything',
      args: ['stdio'],
      env: { EVERYTHING_MODE: 'demo' },
      envVars: ['LANG'],
      startupTimeoutMs: 20_000,
      toolCallTimeoutMs: 45_000,
      enabledTools: ['echo', 'get-sum'],
      defaultApproval: 'auto',
      toolApproval: { 'get-sum': 'prompt' },
    })
    expect(figma!.config).toEqual({
      serverName: 'figma',
      transport: 'streamable-http',
      url: 'https://mcp.figma.com/mcp',
      bearerTokenEnvVar: 'FIGMA_OAUTH_TOKEN',
      headers: { 'X-Figma-Region': 'us-east-1' },
      envHeaders: { 'X-Team': 'FIGMA_TEAM' },
      required: true,
    })
    expect(docs!.disabled).toBe(true)
    expect(docs!.config).toMatchObject({ oauth: { scopes: ['docs:read'], resource: 'https://developers.openai.com/mcp' } })
    expect(result.notes).toEqual([
      `${CODEX}: model, approval_policy are Codex's own settings, not MCP servers; not imported`,
      'mcp_servers.figma: supports_parallel_tool_calls is not imported: dsh leaves parallel calls to the harness',
    ])
    for (const server of result.servers) expect(McpConfig.safeParse(server.config).success).toBe(true)
  })

  it('names every unknown field and refuses files of the wrong shape', async () => {
    const { fromCodexToml } = await import('../src/import/codex.ts')
    const { fromClaudeJson } = await import('../src/import/claude.ts')
    const codex = fromCodexToml('[mcp_servers.x]\ncommand = "x"\ntransport = "ws"\n[mcp_servers.x.tools.t]\napproval_mode = "never"\n', 'c.toml')
    expect(codex.notes).toEqual(['mcp_servers.x: transport is not imported: dsh-mcp has no equivalent', 'mcp_servers.x: tools.t.approval_mode is not imported: unknown mode "never"'])
    expect(fromClaudeJson('{"mcpServers":{"w":{"type":"ws","url":"wss://x"}}}', 'm.json').notes).toEqual(['mcpServers.w: type "ws" is not imported: dsh-mcp speaks stdio, http (Streamable HTTP) and sse'])
    expect(() => fromClaudeJson('{"servers":{}}', 'm.json')).toThrow(expect.objectContaining({ code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringMatching(/no "mcpServers"/) }))
    expect(() => fromClaudeJson('{"mcpServers"', 'm.json')).toThrow(expect.objectContaining({ code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringMatching(/not valid JSON/) }))
    expect(() => fromCodexToml('model = "x"', 'c.toml')).toThrow(expect.objectContaining({ code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringMatching(/no \[mcp_servers/) }))
    expect(() => fromCodexToml('[mcp_servers', 'c.toml')).toThrow(expect.objectContaining({ code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringMatching(/not valid TOML/) }))
    expect(serverNameFor('my.server__one')).toBe('my_server_one')
    expect(serverNameFor('docs.')).toBe('docs')
    expect(serverNameFor('tools_')).toBe('tools')
    expect(serverNameFor('...')).toBe('server')
  })

  it('mcpConfig: a row runs the servers of a Codex config.toml as they are (tool filter and approvals included)', async () => {
    const rig = await startRig()
    await rig.add({ mcpConfig: CODEX, servers: ['everything'] } as unknown as RowInput)
    expect(rig.toolNames().filter((name) => name.startsWith('mcp__everything__')).sort()).toEqual(['mcp__everything__echo', 'mcp__everything__get-sum'])
    expect(await rig.text('mcp__everything__echo', { message: 'imported' })).toBe('Echo: imported')
    expect(await rig.errorCode('mcp__everything__get-sum', { a: 1, b: 2 })).toBe('TOOL_APPROVAL_REQUIRED')
    expect((await rig.status('everything')).state).toBe('ready')
  })

  it('mcpConfig: a project .mcp.json is used without copying; a missing server name fails loudly', async () => {
    const rig = await startRig()
    await rig.add({ mcpConfig: CLAUDE, servers: ['everything'], defaults: { startupTimeoutMs: 20_000 } } as unknown as RowInput)
    expect(await rig.text('mcp__everything__echo', { message: 'from .mcp.json' })).toBe('Echo: from .mcp.json')
    const { Config } = await import('../src/index.ts')
    expect(() => Config({ mcpConfig: CLAUDE, unknown: 1 })).toThrow(/unknown/)
  })

  it('mcpConfig: an allow-list naming a server the file does not have is MCP_SERVER_UNKNOWN (a configuration error, not a failed connection); nothing is started', async () => {
    const rig = await startRig()
    const fork = await rig.add({ mcpConfig: CLAUDE, servers: ['everything', 'nope', 'nor-this'] } as unknown as RowInput)
    expect(fork.status).toBe(3)
    expect(fork.error).toMatchObject({ code: 'MCP_SERVER_UNKNOWN', message: `mcpConfig: ${CLAUDE} has no server "nope", "nor-this"` })
    expect(rig.toolNames()).toEqual([])
    expect(rig.app.subprocess.live).toBe(0)
  })

  it('mcpConfig: a server with an unset ${VAR} is its own unavailable row naming the variable; the file\'s other servers start (issue 33 items 6, 8)', async () => {
    const rig = await startRig()
    await rig.add({ mcpConfig: CODEX_CASES, servers: ['writes', 'unset-env'] } as unknown as RowInput)
    expect((await rig.status('writes')).state).toBe('ready')
    expect(await rig.status('unset-env')).toMatchObject({ state: 'unavailable', detail: expect.stringContaining('env.API_KEY: ${DSH_IMPORT_CASE_UNSET_KEY} is not set in the environment') })
    expect(await rig.errorCode('mcp__unset-env__echo', { message: 'x' })).toBe('MCP_SERVER_UNUSABLE')
  })

  it('Codex "writes" asks before tools not annotated read-only; a zero timeout and scopes beside a bearer token are reported, not fatal (items 7, 8)', async () => {
    const result = await readMcpConfigFile(CODEX_CASES)
    const writes = result.servers.find((server) => server.sourceName === 'writes')!
    expect(writes.config).toMatchObject({ defaultApproval: 'prompt', approvalFromAnnotations: true })
    expect(writes.config).not.toHaveProperty('toolCallTimeoutMs')
    const token = result.servers.find((server) => server.sourceName === 'token-and-scopes')!
    expect(token.config).not.toHaveProperty('oauth')
    expect(McpConfig.safeParse(token.config).success).toBe(true)
  })
})
