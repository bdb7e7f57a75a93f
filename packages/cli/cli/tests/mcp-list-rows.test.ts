// `dsh mcp list` / `get` show every server the composition holds, as `dsh status` does: a workspace
// `.mcp.json` that cannot be parsed is one coded row beside the other servers (not a failed command).
import { ChildProcess } from 'node:child_process'
import { realpath, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fixturePath } from '../../../../test-support/fixture-path.ts'
import { trustIn } from '../../../../test-support/trust.ts'
import { dshIn, json, oneStderrLine, projectMcpJsonHome, removeTempDirs, ROOT } from './helpers.ts'

afterAll(removeTempDirs)

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The fixture MCP server (a real stdio server: add, echo, …). */
const SERVER = fixturePath(join(ROOT, 'packages', 'mcp', 'mcp', 'tests', 'fixtures', 'server.mjs'))

interface Listed {
  readonly name: string
  readonly state: string
  readonly tools: number
  readonly detail: string
  readonly code?: string
  readonly message?: string
}

/** A home whose mcp.yml reads the workspace's .mcp.json, a workspace, and an overlay with one working server `fixture`. */
async function setup(): Promise<{ home: string; project: string; overlay: string }> {
  const { dir, home, project } = await projectMcpJsonHome()
  const overlay = join(dir, 'fixture.yml')
  await writeFile(overlay, `- id: mcp-fixture\n  name: dsh-mcp\n  config: { serverName: fixture, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}], startupTimeoutMs: 60000 }\n`)
  return { home, project, overlay }
}

describe('dsh mcp list / get and a workspace .mcp.json that cannot be parsed', () => {
  it('list shows the other servers and one coded row naming the file and the reason, and exits 0 as dsh status does', async () => {
    const { home, project, overlay } = await setup()
    const file = join(project, '.mcp.json')
    await writeFile(file, '{"mcpServers": {')
    await trustIn(home, project)
    const args = ['--preset', 'base', '--config', overlay, '--cwd', project]
    const env = { env: { DSH_HOME: home } }

    const status = await dshIn(['status', '--json', ...args], env)
    expect(status.code, status.stderr).toBe(0)

    const listed = await dshIn(['mcp', 'list', '--json', ...args], env)
    expect(listed.code, listed.stderr).toBe(0)
    const servers = json<{ servers: Listed[] }>(listed).servers
    expect(servers.find((server) => server.name === 'fixture')).toMatchObject({ state: 'ready', tools: expect.any(Number) })
    expect(servers.find((server) => server.name === 'fixture')!.tools).toBeGreaterThan(0)
    const broken = servers.find((server) => server.name === '.mcp.json')
    expect(broken).toMatchObject({ state: 'unavailable', code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringContaining(`${file} is not valid JSON`), detail: expect.stringContaining(`${file} is not valid JSON`) })
    expect(servers).toHaveLength(2)

    // The text table: one line for the file, its code once at the end.
    const text = await dshIn(['mcp', 'list', ...args], env)
    expect(text.code, text.stderr).toBe(0)
    const line = text.stdout.split('\n').find((row) => row.startsWith('.mcp.json '))
    expect(line, text.stdout).toMatch(/unavailable .*is not valid JSON.* \[MCP_CONFIG_FILE_INVALID\]$/)
    expect(line!.split('[MCP_CONFIG_FILE_INVALID]')).toHaveLength(2)
    expect(text.stdout).toMatch(/^fixture +stdio +ready /m)

    // get: another server as ever; the file's row by its name; a name dsh cannot find may be in the file, so the file's code.
    const fixture = await dshIn(['mcp', 'get', 'fixture', '--json', ...args], env)
    expect(fixture.code, fixture.stderr).toBe(0)
    expect(json(fixture)).toMatchObject({ name: 'fixture', state: 'ready' })
    const row = await dshIn(['mcp', 'get', '.mcp.json', '--json', ...args], env)
    expect(row.code, row.stderr).toBe(0)
    expect(json(row)).toMatchObject({ name: '.mcp.json', state: 'unavailable', code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringContaining(`${file} is not valid JSON`) })
    const missing = await dshIn(['mcp', 'get', 'nope', ...args], env)
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe('')
    expect(oneStderrLine(missing)).toMatch(new RegExp(`^dsh: no MCP server "nope" .*${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON.* \\[MCP_CONFIG_FILE_INVALID\\]$`))
  })
})

describe('dsh mcp list / get and a workspace .mcp.json that lacks a name the row\'s servers allow-list picks', () => {
  it('is one coded row (MCP_SERVER_UNKNOWN) beside the other servers and exit 0, in dsh status and dsh mcp list alike; untrusted, that row is untrusted and says how to trust it first', async () => {
    for (const trusted of [true, false]) {
      const { home, project, overlay } = await setup()
      await writeFile(join(home, 'mcp.yml'), '- id: project-mcp-json\n  name: dsh-mcp\n  config: { mcpConfig: .mcp.json, relativeTo: workspace, servers: [alpha, zzz] }\n')
      const file = join(project, '.mcp.json')
      await writeFile(file, JSON.stringify({ mcpServers: { alpha: { command: process.execPath, args: [SERVER] }, beta: { command: process.execPath, args: [SERVER] } } }))
      if (trusted) await trustIn(home, project)
      const args = ['--preset', 'base', '--config', overlay, '--cwd', project]
      const env = { env: { DSH_HOME: home } }
      const says = `mcpConfig: ${file} has no server "zzz"`
      const trust = `to use it: dsh trust ${await realpath(project)}`
      // What both commands say of the file: trusted, why it does not start; untrusted, how to trust it, then that.
      const detail = trusted ? says : expect.stringMatching(new RegExp(`${escaped(trust)}; it would not start once trusted either: ${escaped(says)}$`))
      const state = trusted ? 'unavailable' : 'untrusted'

      // The repository's file does not fail the boot: the rest of the composition runs.
      const status = await dshIn(['status', '--json', ...args], env)
      expect(status.code, `trusted ${trusted}: ${status.stderr}`).toBe(0)
      const rows = json<{ capabilities: { surface: string; id: string; state: string; detail: string }[] }>(status).capabilities
      // One row for the file (not alpha's, nor beta's, which the row's servers does not pick), coded as in the list.
      expect(rows.filter((row) => row.surface === 'mcp').map((row) => row.id)).toEqual(['.mcp.json', 'fixture'])
      expect(rows.find((row) => row.id === '.mcp.json')).toMatchObject({ state, detail, failure: { code: 'MCP_SERVER_UNKNOWN', message: says } })
      const call = await dshIn(['call', 'mcp__fixture__echo', '{"message":"hi"}', ...args], env)
      expect(call.code, call.stderr).toBe(0)
      if (!trusted) {
        // A tool of a server the row picks: not started because the workspace is untrusted, and the call says so.
        const alpha = await dshIn(['call', 'mcp__alpha__echo', '{"message":"hi"}', '--json', ...args], env)
        expect(json(alpha)).toMatchObject({ isError: true, error: { code: 'MCP_UNTRUSTED', message: expect.stringContaining(trust) } })
      }

      const listed = await dshIn(['mcp', 'list', '--json', ...args], env)
      expect(listed.code, `trusted ${trusted}: ${listed.stderr}`).toBe(0)
      const servers = json<{ servers: Listed[] }>(listed).servers
      expect(servers.map((server) => server.name)).toEqual(['.mcp.json', 'fixture'])
      expect(servers[0]).toMatchObject({ state, code: 'MCP_SERVER_UNKNOWN', message: says, detail, tools: 0 })
      expect(servers[1]).toMatchObject({ state: 'ready' })
      const text = await dshIn(['mcp', 'list', ...args], env)
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toMatch(new RegExp(`^\\.mcp\\.json +- +${state} .*${trusted ? '' : escaped(trust)}.* \\[MCP_SERVER_UNKNOWN\\]$`, 'm'))

      const row = await dshIn(['mcp', 'get', '.mcp.json', '--json', ...args], env)
      expect(row.code, row.stderr).toBe(0)
      expect(json(row)).toMatchObject({ name: '.mcp.json', code: 'MCP_SERVER_UNKNOWN', message: says })
      const fixture = await dshIn(['mcp', 'get', 'fixture', ...args], env)
      expect(fixture.code, fixture.stderr).toBe(0)
      // A server of the file the row does not run: the file's code and reason, not a mistaken name.
      const alpha = await dshIn(['mcp', 'get', 'alpha', ...args], env)
      expect(alpha.code).toBe(1)
      expect(oneStderrLine(alpha)).toMatch(/^dsh: no MCP server "alpha" .*has no server "zzz" \[MCP_SERVER_UNKNOWN\]$/)
    }
  })
})

describe('dsh mcp list / get and rows turned off', () => {
  it('a disabled row names the file that turned it off, not a later file that patched the row', async () => {
    const { home, overlay } = await setup()
    const dir = join(home, '..')
    const off = join(dir, 'off.yml')
    const patched = join(dir, 'patched.yml')
    await writeFile(off, '- id: mcp-fixture\n  disabled: true\n')
    // A later overlay that only changes the row's config: the row is still the one off.yml turned off.
    await writeFile(patched, '- id: mcp-fixture\n  config: { startupTimeoutMs: 30000 }\n')
    const args = ['--preset', 'base', '--config', overlay, '--config', off, '--config', patched]
    const listed = await dshIn(['mcp', 'list', '--json', ...args], { env: { DSH_HOME: home } })
    expect(listed.code, listed.stderr).toBe(0)
    expect(json<{ servers: Listed[] }>(listed).servers).toEqual([expect.objectContaining({ name: 'fixture', state: 'disabled', detail: `turned off in ${off} (disabled: true); not started` })])
    const got = await dshIn(['mcp', 'get', 'fixture', '--json', ...args], { env: { DSH_HOME: home } })
    expect(json(got)).toMatchObject({ state: 'disabled', detail: `turned off in ${off} (disabled: true); not started` })
  })
})

describe('dsh mcp list / get and a turned-off mcpConfig: row', () => {
  it('lists the servers the row would run, as disabled, naming the file that turned it off, the row and the file it reads', async () => {
    const { home, overlay } = await setup()
    const dir = join(home, '..')
    const file = join(dir, 'team.mcp.json')
    const server = { command: process.execPath, args: [SERVER] }
    await writeFile(file, JSON.stringify({ mcpServers: { alpha: server, beta: server, gamma: server } }))
    const rows = join(dir, 'team.yml')
    await writeFile(rows, `- id: team\n  name: dsh-mcp\n  config: { mcpConfig: ${JSON.stringify(file)}, servers: [alpha, beta] }\n`)
    const off = join(dir, 'off.yml')
    await writeFile(off, '- id: team\n  disabled: true\n')
    const args = ['--preset', 'base', '--config', overlay, '--config', rows, '--config', off]
    const env = { env: { DSH_HOME: home } }
    const detail = `turned off in ${off} (disabled: true on the mcpConfig: row team, which reads ${file}); not started`
    const listed = await dshIn(['mcp', 'list', '--json', ...args], env)
    expect(listed.code, listed.stderr).toBe(0)
    const servers = json<{ servers: Listed[] }>(listed).servers
    // What the row runs (its servers allow-list), none started, no failure code: a state of its own.
    expect(servers).toEqual([expect.objectContaining({ name: 'fixture', state: 'ready' }), ...['alpha', 'beta'].map((name) => ({ name, transport: 'stdio', state: 'disabled', tools: 0, auth: '-', detail }))])
    const text = await dshIn(['mcp', 'list', ...args], env)
    expect(text.stdout).toMatch(new RegExp(`^alpha +stdio +disabled +0 +- +turned off in `, 'm'))
    const got = await dshIn(['mcp', 'get', 'beta', '--json', ...args], env)
    expect(got.code, got.stderr).toBe(0)
    expect(json(got)).toMatchObject({ name: 'beta', state: 'disabled', detail })
    expect(json(got)).not.toHaveProperty('code')
  })

  it('a turned-off row whose file is gone is one disabled row named after the file, saying it cannot be read, and the command does not fail', async () => {
    const { home, overlay } = await setup()
    const dir = join(home, '..')
    const file = join(dir, 'gone.mcp.json')
    const rows = join(dir, 'gone.yml')
    await writeFile(rows, `- id: gone\n  name: dsh-mcp\n  disabled: true\n  config: { mcpConfig: ${JSON.stringify(file)} }\n`)
    const listed = await dshIn(['mcp', 'list', '--json', '--preset', 'base', '--config', overlay, '--config', rows], { env: { DSH_HOME: home } })
    expect(listed.code, listed.stderr).toBe(0)
    const servers = json<{ servers: Listed[] }>(listed).servers
    expect(servers.map((server) => [server.name, server.state])).toEqual([['fixture', 'ready'], ['gone.mcp.json', 'disabled']])
    expect(servers[1]).not.toHaveProperty('code')
    expect(servers[1]!.detail).toMatch(new RegExp(`^turned off in ${rows.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(disabled: true on the mcpConfig: row gone, which reads .*gone\\.mcp\\.json\\); not started; .*cannot be read`))
  })
})

describe('dsh call on a tool of a server turned off', () => {
  it('says the server is turned off, where and how to turn it on (MCP_SERVER_DISABLED), for a disabled: true row, a turned-off mcpConfig: row and a Codex enabled = false; other unknown names stay UNKNOWN_TOOL', async () => {
    const { home, overlay } = await setup()
    const dir = join(home, '..')
    const toml = join(dir, 'codex.config.toml')
    const quoted = (text: string) => JSON.stringify(text)
    await writeFile(toml, `[mcp_servers.codexoff]\ncommand = ${quoted(process.execPath)}\nargs = [${quoted(SERVER)}]\nenabled = false\n\n[mcp_servers.codexon]\ncommand = ${quoted(process.execPath)}\nargs = [${quoted(SERVER)}]\n`)
    const team = join(dir, 'team.mcp.json')
    await writeFile(team, JSON.stringify({ mcpServers: { teamed: { command: process.execPath, args: [SERVER] } } }))
    const rows = join(dir, 'rows.yml')
    await writeFile(rows, `- id: codex\n  name: dsh-mcp\n  config: { mcpConfig: ${quoted(toml)} }\n- id: team\n  name: dsh-mcp\n  config: { mcpConfig: ${quoted(team)} }\n`)
    const off = join(dir, 'off.yml')
    await writeFile(off, '- id: mcp-fixture\n  disabled: true\n- id: team\n  disabled: true\n')
    const args = ['--preset', 'base', '--config', overlay, '--config', rows, '--config', off]
    const env = { env: { DSH_HOME: home } }
    const call = async (tool: string) => {
      const run = await dshIn(['call', tool, '{"message":"hi"}', '--json', ...args], env)
      expect(run.code, run.stderr).toBe(1)
      return json<{ isError: boolean; content: { text: string }[]; error: { code: string; message: string } }>(run)
    }

    const row = await call('mcp__fixture__echo')
    expect(row.error).toMatchObject({ code: 'MCP_SERVER_DISABLED', message: expect.stringContaining(`MCP server fixture is turned off in ${off} (row mcp-fixture: disabled: true)`) })
    expect(row.error.message).toContain('remove disabled: true')
    expect(row.content[0]!.text).toBe(`Error: ${row.error.message}`)

    const fileRow = await call('mcp__teamed__echo')
    expect(fileRow.error).toMatchObject({ code: 'MCP_SERVER_DISABLED', message: expect.stringContaining(`MCP server teamed is turned off in ${off} (the mcpConfig: row team, which reads ${team}, is disabled: true)`) })

    const codex = await call('mcp__codexoff__echo')
    expect(codex.error).toMatchObject({ code: 'MCP_SERVER_DISABLED', message: expect.stringContaining(`MCP server codexoff is turned off in ${toml} ([mcp_servers.codexoff] enabled = false)`) })
    expect(codex.error.message).toContain('enabled = true')

    // Names no turned-off server explains keep UNKNOWN_TOOL: a server nobody configured, and a tool a running server lacks.
    expect((await call('mcp__nobody__echo')).error.code).toBe('UNKNOWN_TOOL')
    expect((await call('mcp__codexon__nope')).error.code).toBe('UNKNOWN_TOOL')
    // The running server of the same file answers.
    const on = await dshIn(['call', 'mcp__codexon__echo', '{"message":"hi"}', ...args], env)
    expect(on.code, on.stderr).toBe(0)
  })
})

describe('dsh mcp list / get and a row of the user\'s own that the boot fails on', () => {
  it('fail as dsh status does: exit 2, the same one line naming the row, the field and the reason, for a file that cannot be read, a servers name the file lacks and an invalid row', async () => {
    const { home, overlay } = await setup()
    const dir = join(home, '..')
    const have = join(dir, 'have.mcp.json')
    await writeFile(have, JSON.stringify({ mcpServers: { alpha: { command: process.execPath, args: [SERVER] } } }))
    const missing = join(dir, 'missing.mcp.json')
    const cases = [
      { config: `{ mcpConfig: ${JSON.stringify(missing)} }`, says: [`mcpConfig: ${missing} cannot be read`, '[MCP_CONFIG_FILE_INVALID]'], code: 'PRESET_PLUGIN_FAILED' },
      { config: `{ mcpConfig: ${JSON.stringify(have)}, servers: [zzz] }`, says: [`mcpConfig: ${have} has no server "zzz"`, '[MCP_SERVER_UNKNOWN]'], code: 'PRESET_PLUGIN_FAILED' },
      { config: `{ mcpConfig: ${JSON.stringify(have)}, bogus: 1 }`, says: ['invalid config', '"bogus"'], code: 'PRESET_CONFIG_INVALID' },
    ]
    for (const [index, { config, says, code }] of cases.entries()) {
      const rows = join(dir, `mine-${index}.yml`)
      await writeFile(rows, `- id: mine\n  name: dsh-mcp\n  config: ${config}\n`)
      const args = ['--preset', 'base', '--config', overlay, '--config', rows]
      const env = { env: { DSH_HOME: home } }
      const status = await dshIn(['status', '--json', ...args], env)
      expect(status.code, status.stderr).toBe(2)
      const line = oneStderrLine(status)
      expect(line).toContain(`row "mine" (dsh-mcp) in ${rows}`)
      for (const text of says) expect(line).toContain(text)
      expect(line.endsWith(`[${code}]`), line).toBe(true)
      for (const command of [['mcp', 'list'], ['mcp', 'list', '--json'], ['mcp', 'get', 'alpha'], ['mcp', 'get', 'nobody', '--json']]) {
        const run = await dshIn([...command, ...args], env)
        expect(run.code, `${command.join(' ')}: ${run.stderr}`).toBe(2)
        expect(oneStderrLine(run), command.join(' ')).toBe(line)
        expect(run.stdout).toBe('')
      }
    }
  })
})

describe('a server off because its group is disabled', () => {
  it('dsh call and dsh mcp list / get name the group that holds the flag, not the row', async () => {
    const { home, overlay } = await setup()
    const dir = join(home, '..')
    const quoted = (text: string) => JSON.stringify(text)
    const team = join(dir, 'team.mcp.json')
    await writeFile(team, JSON.stringify({ mcpServers: { teamed: { command: process.execPath, args: [SERVER] } } }))
    const rows = join(dir, 'group.yml')
    await writeFile(
      rows,
      `- id: tools-grp\n  name: cordis/group\n  config:\n    - id: mcp-grouped\n      name: dsh-mcp\n      config: { serverName: grouped, transport: stdio, command: ${quoted(process.execPath)}, args: [${quoted(SERVER)}] }\n    - id: team\n      name: dsh-mcp\n      config: { mcpConfig: ${quoted(team)} }\n`,
    )
    const off = join(dir, 'off.yml')
    await writeFile(off, '- id: tools-grp\n  disabled: true\n')
    const args = ['--preset', 'base', '--config', overlay, '--config', rows, '--config', off]
    const env = { env: { DSH_HOME: home } }
    const call = async (tool: string) => {
      const run = await dshIn(['call', tool, '{"message":"hi"}', '--json', ...args], env)
      expect(run.code, run.stderr).toBe(1)
      return json<{ error: { code: string; message: string } }>(run).error
    }

    const row = await call('mcp__grouped__echo')
    expect(row.code).toBe('MCP_SERVER_DISABLED')
    expect(row.message).toContain(`MCP server grouped is turned off in ${off} (the group tools-grp, which holds row mcp-grouped, is disabled: true)`)
    expect(row.message).toContain('remove disabled: true from the group tools-grp there')
    const fileRow = await call('mcp__teamed__echo')
    expect(fileRow.message).toContain(`MCP server teamed is turned off in ${off} (the group tools-grp, which holds the mcpConfig: row team, which reads ${team}, is disabled: true)`)
    expect(fileRow.message).toContain('remove disabled: true from the group tools-grp there')

    const listed = await dshIn(['mcp', 'list', '--json', ...args], env)
    expect(listed.code, listed.stderr).toBe(0)
    const servers = json<{ servers: Listed[] }>(listed).servers
    expect(servers.map((server) => [server.name, server.state, server.detail])).toEqual([
      ['fixture', 'ready', expect.any(String)],
      ['grouped', 'disabled', `turned off in ${off} (disabled: true on the group tools-grp, which holds row mcp-grouped); not started`],
      ['teamed', 'disabled', `turned off in ${off} (disabled: true on the group tools-grp, which holds the mcpConfig: row team, which reads ${team}); not started`],
    ])
    const got = await dshIn(['mcp', 'get', 'grouped', '--json', ...args], env)
    expect(got.code, got.stderr).toBe(0)
    expect(json(got)).toMatchObject({ state: 'disabled', detail: servers[1]!.detail })
  })
})

describe('dsh mcp list / get start no language server', () => {
  it('in a trusted TypeScript workspace with the coding preset, only the MCP rows are probed (the lsp rows\' probe started typescript-language-server for rows it dropped)', async () => {
    const { home, project, overlay } = await setup()
    await writeFile(join(project, 'main.ts'), 'export const answer: number = 42\n')
    await writeFile(join(project, 'tsconfig.json'), '{}\n')
    await trustIn(home, project)
    // Every process the in-process command starts, by executable (ChildProcess#spawn is what every child_process API calls).
    const started: string[] = []
    const prototype = ChildProcess.prototype as unknown as { spawn: (this: ChildProcess, options: { file?: string; args?: string[] }) => unknown }
    const spawn = prototype.spawn
    prototype.spawn = function (this: ChildProcess, options: { file?: string; args?: string[] }) {
      started.push([options.file, ...(options.args ?? [])].map((part) => basename(String(part))).join(' '))
      return spawn.call(this, options)
    }
    let run
    try {
      // (`dsh mcp get` reports through the same function.)
      run = await dshIn(['mcp', 'list', '--json', '--preset', 'coding', '--config', overlay, '--cwd', project], { env: { DSH_HOME: home } })
    } finally {
      prototype.spawn = spawn
    }
    expect(run.code, run.stderr).toBe(0)
    expect(json<{ servers: Listed[] }>(run).servers).toEqual([expect.objectContaining({ name: 'fixture', state: 'ready' })])
    // The fixture server; no language server.
    expect(started.filter((line) => /language-server|langserver|tsserver|pyright/.test(line)), started.join('\n')).toEqual([])
    expect(started.filter((line) => line.includes('server.mjs'))).toHaveLength(1)
  })
})
