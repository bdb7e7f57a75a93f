// [PURE] Row config (reference mcp.md §3, checklist 1–12 adapted; DESIGN M2/M3), and the same
// failures through bootPreset: PRESET_CONFIG_INVALID naming the row and the field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bootPreset, PresetError } from 'dsh-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { McpConfig } from '../src/config.ts'

const stdio = { transport: 'stdio', serverName: 'srv', command: 'node' } as const
const http = { transport: 'streamable-http', serverName: 'web', url: 'http://127.0.0.1:1/mcp' } as const

function problems(config: unknown): string[] {
  const result = McpConfig.safeParse(config)
  if (result.success) throw new Error('expected the config to be refused')
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

describe('McpConfig', () => {
  it('fills the documented defaults', () => {
    expect(McpConfig.parse(stdio)).toEqual({
      ...stdio,
      protocol: 'auto',
      required: false,
      startupTimeoutMs: 30_000,
      toolCallTimeoutMs: 60_000,
      resetTimeoutOnProgress: true,
      maxTotalTimeoutMs: 600_000,
      maxMessageBytes: 33_554_432,
      disabledTools: [],
      defaultApproval: 'auto',
      toolApproval: {},
      approvalFromAnnotations: false,
      defer: 'auto',
      listTtlFloorMs: 5000,
      reconnect: { enabled: true, initialDelayMs: 500, maxDelayMs: 30_000, maxAttempts: 10, stableAfterMs: 30_000, jitterRatio: 0.2 },
      closeTimeoutMs: 15_000,
      maxResultChars: 100_000,
      maxDescriptionChars: 4000,
      instructions: false,
      maxInstructionsChars: 8000,
      resources: false,
      prompts: false,
      skills: true,
      skillsListRetries: 4,
      skillsListRetryMs: 2000,
      roots: false,
      elicitation: true,
      args: [],
      env: {},
      envVars: [],
      cwd: '',
      runInUntrustedWorkspace: false,
      shutdownGraceMs: 2000,
    })
    expect(McpConfig.parse(http)).toMatchObject({ headers: {}, envHeaders: {}, keepAliveMs: 1000, endSessionWaitMs: 1000, closeTimeoutMs: 15_000 })
  })

  it('merges a partial reconnect block onto the defaults', () => {
    expect(McpConfig.parse({ ...stdio, reconnect: { initialDelayMs: 100 } }).reconnect).toEqual({
      enabled: true,
      initialDelayMs: 100,
      maxDelayMs: 30_000,
      maxAttempts: 10,
      stableAfterMs: 30_000,
      jitterRatio: 0.2,
    })
  })

  it.each([
    [{ transport: 'stdio', command: 'node' }, 'serverName'],
    [{ ...stdio, serverName: 'bad name!' }, 'serverName: must be 1 to 32 letters'],
    [{ ...stdio, serverName: 'x'.repeat(33) }, 'serverName: must be 1 to 32 letters'],
    [{ ...stdio, serverName: 'a__b' }, 'serverName: must not contain "__"'],
    [{ ...stdio, serverName: 'a_' }, 'serverName: must not end with "_" (server "a_" with tool "x" and server "a" with tool "_x" would share mcp__a___x)'],
    [{ ...stdio, reconnect: { maxAttempts: 0 } }, 'reconnect.maxAttempts'],
    [{ ...stdio, reconnect: { maxAttempts: 1.5 } }, 'reconnect.maxAttempts'],
    [{ ...stdio, reconnect: { initialDelayMs: 0 } }, 'reconnect.initialDelayMs'],
    [{ ...stdio, reconnect: { maxDelayMs: -1 } }, 'reconnect.maxDelayMs'],
    [{ ...stdio, reconnect: { initialDelayMs: 100, maxDelayMs: 5 } }, 'reconnect.initialDelayMs: initialDelayMs must not exceed maxDelayMs'],
    [{ ...stdio, reconnect: { jitter: 0.5 } }, 'reconnect: Unrecognized key: "jitter"'],
    [{ ...stdio, toolCallTimeoutMs: 0 }, 'toolCallTimeoutMs'],
    [{ ...stdio, toolCallTimeoutMs: 2 ** 31 }, 'toolCallTimeoutMs'],
    [{ ...stdio, url: 'http://x' }, ': Unrecognized key: "url"'],
    [{ ...stdio, command: '' }, 'command'],
    [{ ...stdio, env: { 'NOT A NAME': 'x' } }, 'env'],
    [{ ...http, url: 'ftp://example.test/mcp' }, 'url: must be an http:// or https:// URL'],
    [{ ...http, url: 'not a url' }, 'url: must be an http:// or https:// URL'],
    [{ ...http, command: 'node' }, ': Unrecognized key: "command"'],
    [{ ...http, headers: { 'bad header': 'x' } }, 'headers'],
    [{ ...http, bearerTokenEnvVar: 'TOKEN', headers: { Authorization: 'x' } }, 'bearerTokenEnvVar: bearerTokenEnvVar sets Authorization'],
    [{ ...http, envHeaders: { 'X-Key': '1BAD' } }, 'envHeaders.X-Key: must look like an environment variable name'],
    [{ ...stdio, transport: 'websocket' }, 'transport: transport must be "stdio", "streamable-http" or "sse"'],
    [{ ...stdio, defaultApproval: 'ask' }, 'defaultApproval: must be "auto", "prompt" or "deny"'],
    [{ ...http, toolApproval: { delete_file: 'yes' } }, 'toolApproval.delete_file: must be "auto", "prompt" or "deny"'],
    [{ ...stdio, toolApproval: ['delete_file'] }, 'toolApproval'],
    [{ ...stdio, approvalFromAnnotations: 'yes' }, 'approvalFromAnnotations'],
    [{ ...stdio, maxMessageBytes: 10 }, 'maxMessageBytes'],
    [{ ...stdio, toolCallTimeoutMs: 5000, maxTotalTimeoutMs: 1000 }, 'maxTotalTimeoutMs: maxTotalTimeoutMs must not be less than toolCallTimeoutMs'],
    [{ ...stdio, shutdownGraceMs: 5000, closeTimeoutMs: 5000 }, 'closeTimeoutMs: closeTimeoutMs must exceed shutdownGraceMs'],
    [{ ...http, endSessionWaitMs: 20_000 }, 'closeTimeoutMs: closeTimeoutMs must exceed endSessionWaitMs'],
    [{ ...stdio, endSessionWaitMs: 500 }, ': Unrecognized key: "endSessionWaitMs"'],
    [{ ...stdio, envVars: ['NOT A NAME'] }, 'envVars.0: must look like an environment variable name'],
    [{ ...http, envVars: ['GITHUB_TOKEN'] }, ': Unrecognized key: "envVars"'],
  ])('refuses %j naming %s', (config, expected) => {
    expect(problems(config).some((problem) => problem.startsWith(expected) || problem.includes(expected))).toBe(true)
  })

  it('accepts names such as github-prod_1 and every documented field', () => {
    expect(() =>
      McpConfig.parse({
        ...http,
        serverName: 'github-prod_1',
        required: true,
        startupTimeoutMs: 10_000,
        enabledTools: ['a'],
        disabledTools: ['b'],
        headers: { 'X-Org': 'acme' },
        bearerTokenEnvVar: 'GITHUB_TOKEN',
        envHeaders: { 'X-Team': 'TEAM' },
        maxResultChars: 5000,
        instructions: true,
        resources: true,
        prompts: true,
        defaultApproval: 'prompt',
        toolApproval: { delete_file: 'deny', 'admin.reset': 'auto' },
        approvalFromAnnotations: true,
      }),
    ).not.toThrow()
  })
})

describe('through the preset runner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-mcp-config-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a bad row fails the boot with PRESET_CONFIG_INVALID naming the row and the field', async () => {
    const preset = join(dir, 'bad.yml')
    writeFileSync(preset, ['- name: dsh-core/tools', '- name: dsh-core/subprocess', '- id: broken', '  name: dsh-mcp', '  config: { transport: stdio, serverName: "a__b", command: node, extra: 1 }'].join('\n'))
    const error = await bootPreset({ preset }).then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(PresetError)
    expect((error as PresetError).code).toBe('PRESET_CONFIG_INVALID')
    expect((error as PresetError).message).toContain('row "broken" (dsh-mcp)')
    expect((error as PresetError).message).toContain('config.serverName: must not contain "__"')
    expect((error as PresetError).message).toContain('Unrecognized key: "extra"')
  })

  it('zod issues name the path', () => {
    expect(() => McpConfig.parse({ ...stdio, reconnect: { maxAttempts: 0 } })).toThrow(z.ZodError)
  })
})

describe('${VAR} expansion (env, headers, url, args)', () => {
  const set = { MCP_EXPAND_HOST: 'example.test', MCP_EXPAND_TOKEN: 'sekret', MCP_EXPAND_EMPTY: '' }
  beforeAll(() => Object.assign(process.env, set))
  afterAll(() => {
    for (const name of Object.keys(set)) delete process.env[name]
  })

  it('expands ${VAR} and ${VAR:-default} from the environment when the row loads', () => {
    const stdioRow = McpConfig.parse({ ...stdio, args: ['--host=${MCP_EXPAND_HOST}', '${MCP_EXPAND_UNSET:-fallback}', '$HOME stays'], env: { TOKEN: '${MCP_EXPAND_TOKEN}', MODE: '${MCP_EXPAND_EMPTY:-empty means default}' } })
    expect(stdioRow.transport === 'stdio' && stdioRow.args).toEqual(['--host=example.test', 'fallback', '$HOME stays'])
    expect(stdioRow.transport === 'stdio' && stdioRow.env).toEqual({ TOKEN: 'sekret', MODE: 'empty means default' })
    const httpRow = McpConfig.parse({ ...http, url: 'https://${MCP_EXPAND_HOST}/mcp', headers: { Authorization: 'Bearer ${MCP_EXPAND_TOKEN}' } })
    expect(httpRow.transport === 'streamable-http' && [httpRow.url, httpRow.headers]).toEqual(['https://example.test/mcp', { Authorization: 'Bearer sekret' }])
  })

  it('an unset variable without a default is a load error naming the field and the variable', () => {
    expect(problems({ ...stdio, env: { TOKEN: '${MCP_EXPAND_NOT_SET}' } })).toEqual(['env.TOKEN: ${MCP_EXPAND_NOT_SET} is not set in the environment and has no default (${MCP_EXPAND_NOT_SET:-default} gives one)'])
    expect(problems({ ...http, url: 'https://${MCP_EXPAND_NOT_SET}/mcp' })[0]).toMatch(/^url: \$\{MCP_EXPAND_NOT_SET\} is not set/)
  })

  it('through the preset runner the row boots as the server\'s unavailable row naming the variable (issue 33 item 6), never a boot failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-mcp-expand-'))
    try {
      const preset = join(dir, 'preset.yml')
      writeFileSync(preset, ['- name: dsh-core/tools', '- name: dsh-core/subprocess', '- name: dsh-core/readiness', '- id: github', '  name: dsh-mcp', '  config: { transport: stdio, serverName: github, command: node, env: { GITHUB_TOKEN: "${MCP_EXPAND_NOT_SET}" } }'].join('\n'))
      const host = await bootPreset({ preset })
      try {
        const rows = await host.app.get('readiness')!.report()
        expect(rows.find((row) => row.id === 'github')).toMatchObject({ state: 'unavailable', detail: expect.stringContaining('env.GITHUB_TOKEN: ${MCP_EXPAND_NOT_SET} is not set in the environment') })
        const result = await host.app.get('tools')!.execute({ name: 'mcp__github__search', arguments: {} })
        expect(result.isError && result.error.code).toBe('MCP_SERVER_UNUSABLE')
      } finally {
        await host.stop()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
