// `dsh mcp list` / `get` on a row that reads another client's config with a `servers` allow-list:
// they show what the row runs, and a name the file lacks is the runtime's MCP_SERVER_UNKNOWN.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dshIn, json, oneStderrLine, removeTempDirs, tempDir } from './helpers.ts'

afterAll(removeTempDirs)

/** A .mcp.json with two servers (neither starts: `kept` needs a variable nobody sets), and a row over it. */
async function rowOver(servers: readonly string[]): Promise<{ home: string; overlay: string; file: string }> {
  const dir = await tempDir()
  const file = join(dir, 'project.mcp.json')
  const unset = '${DSH_ALLOW_LIST_TEST_UNSET}'
  await writeFile(file, JSON.stringify({ mcpServers: { kept: { command: 'node', args: ['-e', '0'], env: { K: unset } }, left: { command: 'node', args: ['-e', '0'] } } }))
  const overlay = join(dir, 'allow.yml')
  await writeFile(overlay, `- id: allow\n  name: dsh-mcp\n  config: { mcpConfig: ${JSON.stringify(file)}, servers: ${JSON.stringify(servers)} }\n`)
  return { home: join(dir, 'home'), overlay, file }
}

describe('dsh mcp list / get and a row\'s servers allow-list', () => {
  it('list shows only the servers the row runs; get of a server the allow-list leaves out is unknown to the composition', async () => {
    const { home, overlay } = await rowOver(['kept'])
    const args = ['--preset', 'base', '--config', overlay]
    const listed = await dshIn(['mcp', 'list', '--json', ...args], { env: { DSH_HOME: home } })
    expect(listed.code, listed.stderr).toBe(0)
    const servers = json<{ servers: { name: string; state: string; detail: string }[] }>(listed).servers
    expect(servers.map((server) => server.name)).toEqual(['kept'])
    expect(servers[0]).toMatchObject({ state: 'unavailable', detail: expect.stringContaining('DSH_ALLOW_LIST_TEST_UNSET') })
    const left = await dshIn(['mcp', 'get', 'left', ...args], { env: { DSH_HOME: home } })
    expect(left.code).toBe(2)
    expect(oneStderrLine(left)).toMatch(/^dsh: no MCP server "left" in this composition .*\[USAGE_INVALID\]$/)
  })

  it('a name the allow-list has and the file lacks is MCP_SERVER_UNKNOWN, as the runtime reports it, for list and for get of that name', async () => {
    const { home, overlay, file } = await rowOver(['kept', 'nope'])
    const args = ['--preset', 'base', '--config', overlay]
    // The user's own row fails the boot: the line and exit code of dsh status (mcp-list-rows.test.ts).
    const line = `dsh: row "allow" (dsh-mcp) in ${overlay}: plugin failed to start: mcpConfig: ${file} has no server "nope" [MCP_SERVER_UNKNOWN] [PRESET_PLUGIN_FAILED]`
    for (const command of [['list'], ['list', '--json'], ['get', 'nope'], ['get', 'kept']]) {
      const run = await dshIn(['mcp', ...command, ...args], { env: { DSH_HOME: home } })
      expect(run.code, command.join(' ')).toBe(2)
      expect(run.stdout).toBe('')
      expect(oneStderrLine(run)).toBe(line)
    }
  })
})
