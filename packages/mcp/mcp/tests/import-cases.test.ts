// Issue 33 items 6-9 and issue 26 item 5: the cases real .mcp.json / config.toml files bring
// (an unset ${VAR}, Codex approval mode "writes", a server dsh cannot map, VS Code's ${input:…},
// relative paths of a stdio server) through `dsh mcp import`, then `dsh status`, `dsh tools` and
// `dsh call` in another workspace: one server never breaks the others, nor any later command.
// `dsh status`, `dsh tools` and one `dsh call` run the CLI's main in this worker; the other calls
// are what `dsh call` runs after the same boot, in one host booted once (fixtures/dsh-run.ts).
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { DshCallsInWorker, dshInWorker } from './fixtures/dsh-run.ts'

const CLAUDE = fileURLToPath(new URL('./fixtures/import/cases/project/.mcp.json', import.meta.url))
const CODEX = fileURLToPath(new URL('./fixtures/import/cases/codex.config.toml', import.meta.url))
const PROJECT = dirname(CLAUDE)
const scratch = mkdtempSync(join(tmpdir(), 'dsh-import-cases-'))
const hosts: DshCallsInWorker[] = []
afterAll(async () => {
  for (const host of hosts.splice(0)) await host.stop()
  rmSync(scratch, { recursive: true, force: true })
})

interface StatusRow {
  surface: string
  id: string
  state: string
  detail: string
}

describe('dsh mcp import, then every other command', () => {
  it('imports what it can map, warns about unset variables, and the later commands boot with each bad server as its own unavailable row', async () => {
    const home = mkdtempSync(join(scratch, 'home-'))
    const workspace = mkdtempSync(join(scratch, 'workspace-'))

    const claude = await dshInWorker(['mcp', 'import', CLAUDE, '--json'], home)
    expect(claude.code, claude.stderr).toBe(0)
    const claudeOut = JSON.parse(claude.stdout) as { imported: string[]; skipped: { server: string; problems: string[] }[]; warnings: string[]; notes: string[] }
    expect(claudeOut.imported).toEqual(['local-script', 'needs-key', 'vscode-style', 'scopes-string'])
    // Item 8: the one server dsh cannot map is named with its field and reason; the rest are imported.
    expect(claudeOut.skipped).toEqual([{ server: 'broken-url', problems: ['url: must be an http:// or https:// URL'] }])
    // Item 6: warned at import, naming the variable.
    expect(claudeOut.warnings).toEqual([expect.stringMatching(/^needs-key: headers\.Authorization: \$\{DSH_IMPORT_CASE_UNSET_KEY\} is not set/)])
    // Item 9: ${input:…} is named; item 8: scopes as one string become a list.
    expect(claudeOut.notes).toEqual(
      expect.arrayContaining([expect.stringContaining('mcpServers.vscode-style: headers.X-Api-Key holds ${input:api-key}, a VS Code prompt for a value'), 'mcpServers.scopes-string: oauth scopes "read write" read as the list ["read","write"]']),
    )
    // Issue 26 item 5: the stdio server keeps the directory its file gave it, as an absolute path.
    expect(readFileSync(join(home, 'mcp.yml'), 'utf8')).toContain(`cwd: ${PROJECT}`)

    const codex = await dshInWorker(['mcp', 'import', CODEX], home)
    expect(codex.code, codex.stderr).toBe(0)
    expect(codex.stdout).toContain('into ' + join(home, 'mcp.yml') + ': writes, token-and-scopes, unset-env')
    expect(codex.stdout).toMatch(/warning: unset-env: env\.API_KEY: \$\{DSH_IMPORT_CASE_UNSET_KEY\} is not set/)
    expect(codex.stdout).toContain('note: mcp_servers.writes: tool_timeout_sec is not imported: 0 is not a positive duration')
    expect(codex.stdout).toContain('note: mcp_servers.token-and-scopes: scopes is not imported: they are for an OAuth login, and bearer_token_env_var already sets Authorization')
    // Item 7: "writes" asks before every tool not annotated read-only.
    expect(readFileSync(join(home, 'mcp.yml'), 'utf8')).toMatch(/serverName: writes[\s\S]*defaultApproval: prompt[\s\S]*approvalFromAnnotations: true/)

    const composition = ['--preset', 'base', '--cwd', workspace]
    const status = await dshInWorker(['status', '--json', ...composition], home)
    expect(status.code, status.stderr).toBe(0)
    const rows = (JSON.parse(status.stdout) as { capabilities: StatusRow[] }).capabilities.filter((row) => row.surface === 'mcp')
    const row = (id: string) => rows.find((candidate) => candidate.id === id)
    expect(row('local-script')?.state).toBe('ready')
    expect(row('writes')?.state).toBe('ready')
    for (const id of ['needs-key', 'unset-env']) {
      expect(row(id)).toMatchObject({ state: 'unavailable', detail: expect.stringContaining('${DSH_IMPORT_CASE_UNSET_KEY} is not set in the environment') })
    }

    const tools = await dshInWorker(['tools', '--json', ...composition], home)
    expect(tools.code, tools.stderr).toBe(0)
    const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['mcp__local-script__where', 'mcp__writes__echo', 'mcp__writes__toggle-simulated-logging']))

    const where = await dshInWorker(['call', 'mcp__local-script__where', '{}', ...composition], home)
    expect(where.stdout.trim(), where.stderr).toBe(realpathSync(PROJECT))
    const calls = new DshCallsInWorker(composition, home)
    hosts.push(calls)
    const readOnly = await calls.call('mcp__writes__echo', { message: 'read-only runs' })
    expect(readOnly, JSON.stringify(readOnly)).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: read-only runs' }] })
    const writes = await calls.call('mcp__writes__toggle-simulated-logging')
    expect(writes.isError && writes.error.code).toBe('TOOL_APPROVAL_REQUIRED')
    const unusable = await calls.call('mcp__needs-key__anything')
    expect(unusable.isError && unusable.error).toMatchObject({ code: 'MCP_SERVER_UNUSABLE', message: expect.stringContaining('${DSH_IMPORT_CASE_UNSET_KEY}') })
  })
})
