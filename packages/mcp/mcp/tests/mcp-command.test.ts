// `dsh mcp …` end to end (issue 21): the login flow driven through the real command by following
// the URL it prints, then list and call with the stored login; import of documentation-shaped
// Claude Code / Codex files, list, call; add and remove. No token in any stream.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { dsh, dshInWorker, ROOT, type Run } from './fixtures/dsh-run.ts'
import { freePort } from './fixtures/everything-http.ts'
import { followAuthorizationUrl, startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.ts'
import { trustIn } from '../../../../test-support/trust.ts'

const CODEX = fileURLToPath(new URL('./fixtures/import/codex.config.toml', import.meta.url))
const CLAUDE = fileURLToPath(new URL('./fixtures/import/claude.mcp.json', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-command-'))
const fixtures: OAuthFixture[] = []

afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()))
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** `dsh mcp login hosted …`, following the URL it prints the way a browser would (in this worker unless `run` is `dsh`). */
function loginFollowing(args: string[], home: string, run = dshInWorker): Promise<Run> {
  let followed = false
  return run(['mcp', 'login', 'hosted', ...args], home, (stderr) => {
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1]
    if (url && !followed) {
      followed = true
      void followAuthorizationUrl(url)
    }
  })
}

function freshHome(): string {
  return mkdtempSync(join(scratch, 'home-'))
}

describe('dsh mcp', () => {
  it('login: prints the URL, takes the browser coming back, stores 0600; status then list and call work; no token in any stream', async () => {
    const server = await startOAuthFixture()
    fixtures.push(server)
    const home = freshHome()
    const overlay = join(home, 'hosted.yml')
    writeFileSync(overlay, `- id: hosted\n  name: dsh-mcp\n  config: { serverName: hosted, transport: streamable-http, url: '${server.url}', startupTimeoutMs: 10000 }\n`)
    const runs: Run[] = []

    const before = await dshInWorker(['status', '--json', '--preset', 'base', '--config', overlay], home)
    runs.push(before)
    const row = (JSON.parse(before.stdout) as { capabilities: { id: string; state: string; detail: string }[] }).capabilities.find((capability) => capability.id === 'hosted')!
    expect(row.state).toBe('needs_auth')
    expect(row.detail).toContain(`dsh mcp login hosted --config ${overlay}`)

    // The login in a real dsh: it exits once the browser has come back (its callback server closed).
    const loggedIn = await loginFollowing(['--preset', 'base', '--config', overlay], home, dsh)
    runs.push(loggedIn)
    expect(loggedIn.code, loggedIn.stderr).toBe(0)
    expect(loggedIn.stdout).toContain('logged in to hosted (scope: mcp:tools)')
    // What the login stores is stamped with its issuer (SEP-2352): the SDK has nothing to warn about.
    expect(loggedIn.stderr).not.toMatch(/SEP-2352|\[mcp-sdk\]/)
    expect(statSync(join(home, 'mcp-credentials.json')).mode & 0o777).toBe(0o600)

    const listed = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--config', overlay], home)
    runs.push(listed)
    expect(JSON.parse(listed.stdout)).toEqual({ servers: [expect.objectContaining({ name: 'hosted', transport: 'streamable-http', state: 'ready', tools: 2, auth: 'logged in' })] })
    const called = await dshInWorker(['call', 'mcp__hosted__whoami', '--json', '--preset', 'base', '--config', overlay], home)
    runs.push(called)
    expect(JSON.parse(called.stdout).content[0].text).toBe('you are ada')
    const got = await dshInWorker(['mcp', 'get', 'hosted', '--json', '--preset', 'base', '--config', overlay], home)
    runs.push(got)
    expect(JSON.parse(got.stdout)).toMatchObject({ name: 'hosted', state: 'ready', protocol: '2025-11-25', login: 'logged in' })

    for (const run of runs) for (const token of server.issued) expect(run.stdout + run.stderr).not.toContain(token)
    expect(readFileSync(join(home, 'mcp-credentials.json'), 'utf8')).toContain(server.issued.at(-1))

    const out = await dshInWorker(['mcp', 'logout', 'hosted', '--preset', 'base', '--config', overlay], home)
    expect(out.stdout).toContain('logged out of hosted')
    const after = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--config', overlay], home)
    expect(JSON.parse(after.stdout).servers[0]).toMatchObject({ state: 'needs_auth', auth: 'needs login' })
  })

  it('login: a confidential client\'s oauth.clientSecretEnv is read like every credential (environment, then the project .env, then the user .env), and never stored', async () => {
    const port = await freePort()
    const client = { client_id: 'dsh-ci', redirect_uris: [`http://127.0.0.1:${port}/callback`], client_secret: 'project-secret' }
    const server = await startOAuthFixture({ preRegistered: client })
    fixtures.push(server)
    const home = freshHome()
    const project = mkdtempSync(join(scratch, 'project-'))
    const elsewhere = mkdtempSync(join(scratch, 'elsewhere-'))
    writeFileSync(join(home, '.env'), 'HOSTED_CLIENT_SECRET=user-secret\n')
    writeFileSync(join(project, '.env'), 'HOSTED_CLIENT_SECRET=project-secret\n')
    // A project's .env is read only once its workspace is trusted.
    await trustIn(home, project)
    const overlay = join(home, 'hosted.yml')
    const oauth = `{ clientId: dsh-ci, clientSecretEnv: HOSTED_CLIENT_SECRET, callbackPort: ${port} }`
    writeFileSync(overlay, `- id: hosted\n  name: dsh-mcp\n  config: { serverName: hosted, transport: streamable-http, url: '${server.url}', oauth: ${oauth} }\n`)
    const args = ['--preset', 'base', '--config', overlay]

    // Outside the project only the user .env has it: that secret is sent (and refused by this server).
    const userOnly = await loginFollowing([...args, '--cwd', elsewhere], home)
    expect(userOnly.code, userOnly.stderr).toBe(1)
    expect(userOnly.stderr).toContain('[MCP_AUTH_FAILED]')
    expect(userOnly.stderr).not.toContain('MCP_CREDENTIAL_MISSING')
    // In the project its .env wins over the user's.
    const inProject = await loginFollowing([...args, '--cwd', project], home)
    expect(inProject.code, inProject.stderr).toBe(0)
    expect(inProject.stdout).toContain('logged in to hosted')
    // A configured client too is saved with its issuer's stamp (SEP-2352): no SDK warning in any login.
    for (const run of [userOnly, inProject]) expect(run.stderr).not.toMatch(/SEP-2352/)
    // The SDK tries a refused client once more after forgetting it: every try before the last was refused.
    expect(server.grants.at(-1)).toEqual({ type: 'authorization_code', status: 200 })
    expect(server.grants.slice(0, -1).map((grant) => grant.status)).toEqual(server.grants.slice(0, -1).map(() => 401))
    expect(server.grants.length).toBeGreaterThan(1)

    // The bridge reads it the same way, from the workspace it runs in (--cwd), not where dsh started.
    rmSync(join(home, '.env'))
    const listed = await dshInWorker(['mcp', 'list', '--json', ...args, '--cwd', project], home)
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).servers[0], listed.stdout).toMatchObject({ name: 'hosted', state: 'ready', auth: 'logged in' })
    for (const run of [userOnly, inProject, listed]) expect(run.stdout + run.stderr).not.toMatch(/project-secret|user-secret/)
    expect(readFileSync(join(home, 'mcp-credentials.json'), 'utf8')).not.toMatch(/project-secret|user-secret/)
  })

  it('login to a server that answers 401 without an OAuth challenge says it offers no OAuth login and where its credential goes (MCP_LOGIN_UNSUPPORTED), never an empty reason', async () => {
    const { createServer } = await import('node:http')
    // An API-key server: 401 with an empty body, then one naming its own scheme.
    let challenge: string | undefined
    const plain = createServer((_request, response) => response.writeHead(401, challenge ? { 'www-authenticate': challenge } : {}).end())
    await new Promise<void>((done) => plain.listen(0, '127.0.0.1', done))
    try {
      const home = freshHome()
      const overlay = join(home, 'plain.yml')
      const url = `http://127.0.0.1:${(plain.address() as { port: number }).port}/mcp`
      writeFileSync(overlay, `- id: hosted\n  name: dsh-mcp\n  config: { serverName: hosted, transport: streamable-http, url: '${url}' }\n`)
      const bare = await dshInWorker(['mcp', 'login', 'hosted', '--preset', 'base', '--config', overlay], home)
      expect(bare.code).toBe(1)
      expect(bare.stderr.trim()).toBe(
        'dsh: hosted offers no OAuth login: the server answered HTTP 401 without an OAuth challenge (no WWW-Authenticate: Bearer) and publishes no OAuth metadata, so it wants a credential of another kind: give it in the row (bearerTokenEnvVar, headers or envHeaders) instead of logging in; nothing was stored [MCP_LOGIN_UNSUPPORTED]',
      )
      challenge = 'ApiKey realm="plain"'
      const named = await dshInWorker(['mcp', 'login', 'hosted', '--json', '--preset', 'base', '--config', overlay], home)
      expect(named.code).toBe(1)
      expect(named.stderr).toContain('(no WWW-Authenticate: Bearer; it asks for ApiKey)')
      expect(named.stderr).toContain('[MCP_LOGIN_UNSUPPORTED]')
      expect(statSync(home).isDirectory() && readdirSync(home).filter((file) => file.startsWith('mcp-credentials'))).toEqual([])
    } finally {
      plain.closeAllConnections()
      await new Promise((done) => plain.close(done))
    }
  })

  it('import: a Codex config.toml into the user overlay, then list and call; notes for what has no equivalent', async () => {
    const home = freshHome()
    const imported = await dshInWorker(['mcp', 'import', CODEX], home)
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toContain(`imported 3 servers from ${CODEX} (Codex config.toml) into ${join(home, 'mcp.yml')}: everything, figma, openai-docs`)
    expect(imported.stdout).toContain('note: mcp_servers.figma: supports_parallel_tool_calls is not imported')
    // Only the stdio server can run here: the user overlay is read by every dsh command.
    writeFileSync(join(home, 'only.yml'), '- id: mcp-figma\n  disabled: true\n')
    const listed = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--config', join(home, 'only.yml')], home)
    expect(listed.code, listed.stderr).toBe(0)
    const servers = (JSON.parse(listed.stdout) as { servers: { name: string; state: string; tools: number }[] }).servers
    expect(servers.find((server) => server.name === 'everything')).toMatchObject({ state: 'ready', tools: 2 })
    const called = await dshInWorker(['call', 'mcp__everything__echo', '{"message":"imported"}', '--preset', 'base', '--config', join(home, 'only.yml')], home)
    expect(called.stdout.trim()).toBe('Echo: imported')
  })

  it('add --scope project writes the workspace\'s .mcp.json in Claude Code\'s shape, which dsh then runs in that workspace only; --scope user is the user overlay', async () => {
    const home = freshHome()
    const project = mkdtempSync(join(scratch, 'project-'))
    const elsewhere = mkdtempSync(join(scratch, 'elsewhere-'))
    const projectFile = join(project, '.mcp.json')
    const added = await dshInWorker(['mcp', 'add', '--scope', 'project', 'local', '--cwd', project, '--', 'mcp-server-everything', 'stdio'], home)
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain(`added local to ${projectFile}\ndsh now reads the .mcp.json of the workspace it works in`)
    expect(added.stdout).toContain(`its servers start once you trust this workspace: dsh trust ${realpathSync(project)}`)
    expect(JSON.parse(readFileSync(projectFile, 'utf8'))).toEqual({ mcpServers: { local: { type: 'stdio', command: 'mcp-server-everything', args: ['stdio'] } } })
    expect(readFileSync(join(home, 'mcp.yml'), 'utf8')).toMatch(/id: project-mcp-json[\s\S]*mcpConfig: .mcp.json[\s\S]*relativeTo: workspace/)

    // Not before the user trusts that workspace: the server is listed, untrusted, and not started.
    const untrusted = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--cwd', project], home)
    expect(JSON.parse(untrusted.stdout).servers, untrusted.stderr).toEqual([expect.objectContaining({ name: 'local', transport: 'stdio', state: 'untrusted', detail: expect.stringContaining(`dsh trust ${realpathSync(project)}`) })])
    const refused = await dshInWorker(['call', 'mcp__local__echo', '{"message":"project"}', '--json', '--preset', 'base', '--cwd', project], home)
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'MCP_UNTRUSTED' })
    const trusted = await dshInWorker(['trust', project], home)
    expect(trusted.code, trusted.stderr).toBe(0)
    const listed = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--cwd', project], home)
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).servers).toEqual([expect.objectContaining({ name: 'local', transport: 'stdio', state: 'ready' })])
    const called = await dshInWorker(['call', 'mcp__local__echo', '{"message":"project"}', '--preset', 'base', '--cwd', project], home)
    expect(called.stdout.trim(), called.stderr).toBe('Echo: project')
    const other = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--cwd', elsewhere], home)
    expect(JSON.parse(other.stdout).servers).toEqual([])

    const http = await dshInWorker(['mcp', 'add', '--scope', 'project', '--transport', 'http', 'remote', 'https://mcp.example.com/mcp', '--header', 'X-Team: blue', '--cwd', project], home)
    expect(http.stdout).toBe(`added remote to ${projectFile}\n`)
    expect(JSON.parse(readFileSync(projectFile, 'utf8')).mcpServers.remote).toEqual({ type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'blue' } })
    const removed = await dshInWorker(['mcp', 'remove', '--scope', 'project', 'local', '--cwd', project], home)
    expect(removed.stdout).toBe(`removed local from ${projectFile}\n`)
    expect(Object.keys(JSON.parse(readFileSync(projectFile, 'utf8')).mcpServers)).toEqual(['remote'])

    const user = await dshInWorker(['mcp', 'add', '--scope', 'user', 'mine', '--', 'mcp-server-everything', 'stdio'], home)
    expect(user.stdout).toBe(`added mine to ${join(home, 'mcp.yml')}\n`)
    const both = await dshInWorker(['mcp', 'add', '--scope', 'project', '--config', join(home, 'x.yml'), 'x', '--', 'node'], home)
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--scope picks a default file and --config names one')])
    const bad = await dshInWorker(['mcp', 'add', '--scope', 'local', 'x', '--', 'node'], home)
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--scope must be user or project')])
  })

  it('an untrusted workspace\'s .mcp.json is named up to the same size limit as a trusted one (MAX_MCP_CONFIG_FILE_BYTES, 4 MiB)', async () => {
    const home = freshHome()
    const project = mkdtempSync(join(scratch, 'project-'))
    writeFileSync(join(home, 'mcp.yml'), '- id: project-mcp-json\n  name: dsh-mcp\n  config: { mcpConfig: .mcp.json, relativeTo: workspace }\n')
    // 2 MiB: over the 1 MiB the untrusted read once had, under the limit of every other read of it.
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { big: { command: 'node', args: ['x'.repeat(2 * 1024 * 1024)] } } }))
    const listed = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--cwd', project], home)
    expect(JSON.parse(listed.stdout).servers, listed.stderr).toEqual([expect.objectContaining({ name: 'big', state: 'untrusted' })])
  })

  it('a FIFO in place of a workspace .mcp.json: list, get and add --scope project refuse it at once, trusted or not, and status stays healthy (issue 26); list and get show it as one coded row, as status does', async () => {
    const home = freshHome()
    const project = mkdtempSync(join(scratch, 'project-'))
    writeFileSync(join(home, 'mcp.yml'), '- id: project-mcp-json\n  name: dsh-mcp\n  config: { mcpConfig: .mcp.json, relativeTo: workspace }\n')
    const fifo = join(project, '.mcp.json')
    execFileSync('mkfifo', [fifo])
    const refusal = `${fifo} cannot be read: it is not a regular file`
    for (const trusted of [false, true]) {
      if (trusted) await trustIn(home, project)
      // A reader that opened the FIFO would wait for a writer for ever; none of these may.
      // The file is one row (named after it, coded, with the reason), as in dsh status: the command does not fail whole.
      const listed = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--cwd', project], home)
      expect(listed.code, listed.stderr).toBe(0)
      expect(JSON.parse(listed.stdout).servers).toEqual([expect.objectContaining({ name: '.mcp.json', state: trusted ? 'unavailable' : 'untrusted', code: 'MCP_CONFIG_FILE_INVALID', message: expect.stringContaining(refusal) })])
      // A server it cannot find may be in the file: the file's code and reason, not "no such server".
      const got = await dshInWorker(['mcp', 'get', 'x', '--preset', 'base', '--cwd', project], home)
      expect([got.code, got.stderr]).toEqual([1, expect.stringMatching(new RegExp(`${refusal}.*\\[MCP_CONFIG_FILE_INVALID\\]`))])
      const added = await dshInWorker(['mcp', 'add', '--scope', 'project', 'x', '--cwd', project, '--', 'node'], home)
      expect([added.code, added.stderr]).toEqual([2, expect.stringContaining(refusal)])
      const status = await dshInWorker(['status', '--json', '--preset', 'base', '--cwd', project], home)
      const rows = (JSON.parse(status.stdout) as { capabilities: { id: string; state: string; detail: string }[] }).capabilities
      expect(rows.find((row) => row.detail.includes(fifo)), status.stderr).toMatchObject(trusted ? { state: 'unavailable', detail: expect.stringContaining(refusal) } : { state: 'untrusted' })
    }
    // A trusted repository's broken file is its own unavailable row; the rest of the composition runs.
    rmSync(fifo)
    writeFileSync(fifo, '{"mcpServers": {')
    const broken = await dshInWorker(['status', '--json', '--preset', 'base', '--cwd', project], home)
    expect(broken.code, broken.stderr).toBe(0)
    const rows = (JSON.parse(broken.stdout) as { capabilities: { id: string; state: string; detail: string; failure?: { code: string } }[] }).capabilities
    expect(rows.find((row) => row.id === '.mcp.json')).toMatchObject({ state: 'unavailable', detail: expect.stringContaining(`${fifo} is not valid JSON`) })
    // No server was tried: the file's own code, not a connection failure; coded as every row is, so
    // the code is printed once, by the one formatter (in the row's text and in the log line).
    expect(rows.find((row) => row.id === '.mcp.json')?.failure?.code).toBe('MCP_CONFIG_FILE_INVALID')
    expect(rows.find((row) => row.id === '.mcp.json')?.detail).not.toContain('[MCP_CONFIG_FILE_INVALID]')
    expect(broken.stderr.split('\n').filter((line) => line.includes('is not valid JSON')), broken.stderr).toEqual([expect.stringMatching(/is not valid JSON.* \[MCP_CONFIG_FILE_INVALID\]$/)])
    const text = await dshInWorker(['status', '--preset', 'base', '--cwd', project], home)
    const line = text.stdout.split('\n').find((row) => row.includes('.mcp.json'))
    expect(line?.split('[MCP_CONFIG_FILE_INVALID]'), text.stdout).toHaveLength(2)
    expect(rows.find((row) => row.id === 'fetch:http')).toMatchObject({ state: 'ready' })
  })

  it('import a Claude Code .mcp.json into a named overlay, then list and call; add and remove; a preset is never written', async () => {
    const home = freshHome()
    const overlay = join(home, 'project.yml')
    const imported = await dshInWorker(['mcp', 'import', CLAUDE, '--config', overlay, '--json'], home)
    expect(JSON.parse(imported.stdout)).toMatchObject({ format: 'claude', imported: ['everything', 'api-server', 'sentry_io', 'legacy-events'] })
    expect(readFileSync(overlay, 'utf8')).toContain('Bearer ${API_KEY}')
    const again = await dshInWorker(['mcp', 'import', CLAUDE, '--config', overlay], home)
    expect(again.stdout).toContain('everything: ' + overlay + ' already has a server of that name')
    // The round trip: the imported stdio server lists and answers (the remote ones cannot run here).
    const onlyStdio = join(home, 'only-stdio.yml')
    writeFileSync(onlyStdio, ['api-server', 'sentry_io', 'legacy-events'].map((name) => `- id: mcp-${name}\n  disabled: true\n`).join(''))
    const composition = ['--preset', 'base', '--config', overlay, '--config', onlyStdio]
    const listed = await dshInWorker(['mcp', 'list', '--json', ...composition], home)
    expect(listed.code, listed.stderr).toBe(0)
    // The rows turned off are listed as such (disabled), not left out.
    expect(JSON.parse(listed.stdout).servers).toEqual([
      expect.objectContaining({ name: 'everything', transport: 'stdio', state: 'ready' }),
      ...['api-server', 'sentry_io', 'legacy-events'].map((name) => expect.objectContaining({ name, state: 'disabled', detail: `turned off in ${onlyStdio} (disabled: true); not started` })),
    ])
    const called = await dshInWorker(['call', 'mcp__everything__echo', '{"message":"from claude"}', ...composition], home)
    expect(called.stdout.trim(), called.stderr).toBe('Echo: from claude')


    const added = await dshInWorker(['mcp', 'add', 'local', '--config', overlay, '--env', 'MODE=demo', '--', 'mcp-server-everything', 'stdio'], home)
    expect(added.stdout).toBe(`added local to ${overlay}\n`)
    const http = await dshInWorker(['mcp', 'add', '--transport', 'http', 'remote', 'https://mcp.example.com/mcp', '--header', 'X-Team: blue', '--config', overlay], home)
    expect(http.code, http.stderr).toBe(0)
    expect(readFileSync(overlay, 'utf8')).toMatch(/id: mcp-remote[\s\S]*X-Team: blue/)
    const removed = await dshInWorker(['mcp', 'remove', 'remote', '--config', overlay], home)
    expect(removed.stdout).toBe(`removed remote from ${overlay}\n`)
    expect(readFileSync(overlay, 'utf8')).not.toContain('mcp-remote')
    const missing = await dshInWorker(['mcp', 'remove', 'remote', '--config', overlay], home)
    expect(missing.code).toBe(2)
    const preset = await dshInWorker(['mcp', 'add', 'x', '--config', join(ROOT, 'presets/coding.yml'), '--', 'node'], home)
    expect(preset.code).toBe(2)
    expect(preset.stderr).toContain('is a preset of dsh')
  })

  it('a server its mcpConfig: file turns off (Codex enabled = false) lists as disabled, a state of its own, not as unavailable', async () => {
    const home = freshHome()
    const overlay = join(home, 'codex-file.yml')
    writeFileSync(overlay, `- id: codex\n  name: dsh-mcp\n  config: { mcpConfig: '${CODEX}', servers: [everything, openai-docs] }\n`)
    const json = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--config', overlay], home)
    expect(json.code, json.stderr).toBe(0)
    const servers = (JSON.parse(json.stdout) as { servers: Record<string, unknown>[] }).servers
    expect(servers.find((server) => server.name === 'everything')).toMatchObject({ state: 'ready' })
    const off = servers.find((server) => server.name === 'openai-docs')
    expect(off).toMatchObject({ state: 'disabled', tools: 0, detail: `turned off in ${CODEX} (enabled = false); not started` })
    expect(off).not.toHaveProperty('code')
    const text = await dshInWorker(['mcp', 'list', '--preset', 'base', '--config', overlay], home)
    expect(text.stdout.split('\n').find((line) => line.startsWith('openai-docs'))).toMatch(/^openai-docs\s+streamable-http\s+disabled\s+0\s/)
    const got = await dshInWorker(['mcp', 'get', 'openai-docs', '--json', '--preset', 'base', '--config', overlay], home)
    expect(JSON.parse(got.stdout)).toMatchObject({ state: 'disabled' })
  })

  it('rows written disabled (dsh mcp import of a Codex enabled = false server, an overlay\'s disabled: true) list as disabled, not missing', async () => {
    const home = freshHome()
    expect((await dshInWorker(['mcp', 'import', CODEX], home)).code).toBe(0)
    const userOverlay = join(home, 'mcp.yml')
    expect(readFileSync(userOverlay, 'utf8')).toMatch(/id: mcp-openai-docs\n\s+name: dsh-mcp\n\s+disabled: true/)
    const only = join(home, 'only.yml')
    writeFileSync(only, '- id: mcp-figma\n  disabled: true\n')
    const json = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--config', only], home)
    expect(json.code, json.stderr).toBe(0)
    const servers = (JSON.parse(json.stdout) as { servers: Record<string, unknown>[] }).servers
    expect(servers.map((server) => server.name)).toEqual(['everything', 'figma', 'openai-docs'])
    expect(servers.find((server) => server.name === 'everything')).toMatchObject({ state: 'ready' })
    expect(servers.find((server) => server.name === 'openai-docs')).toEqual(expect.objectContaining({ state: 'disabled', tools: 0, detail: `turned off in ${userOverlay} (disabled: true); not started` }))
    expect(servers.find((server) => server.name === 'figma')).toEqual(expect.objectContaining({ state: 'disabled', detail: `turned off in ${only} (disabled: true); not started` }))
    for (const server of servers) expect(server).not.toHaveProperty('code')
    const got = await dshInWorker(['mcp', 'get', 'openai-docs', '--json', '--preset', 'base', '--config', only], home)
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout)).toMatchObject({ state: 'disabled' })
  })

  it('an unavailable server (its command does not exist) says its code once: in the log line, after the list\'s detail, and as code and message in --json', async () => {
    const home = freshHome()
    const overlay = join(home, 'missing.yml')
    writeFileSync(overlay, '- id: gone\n  name: dsh-mcp\n  config: { serverName: gone, transport: stdio, command: dsh-no-such-mcp-command }\n')
    const notFound = 'command: `dsh-no-such-mcp-command` not found on PATH or in node_modules/.bin'
    const json = await dshInWorker(['mcp', 'list', '--json', '--preset', 'base', '--config', overlay], home)
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout).servers).toEqual([expect.objectContaining({ name: 'gone', state: 'unavailable', code: 'MCP_CONNECT_FAILED', message: notFound })])
    const logged = json.stderr.split('\n').filter((line) => line.includes('dsh-no-such-mcp-command'))
    expect(logged, json.stderr).toEqual([expect.stringContaining(`${notFound}; not retrying until the row is reloaded [MCP_CONNECT_FAILED]`)])
    const text = await dshInWorker(['mcp', 'list', '--preset', 'base', '--config', overlay], home)
    const row = text.stdout.split('\n').find((line) => line.startsWith('gone'))
    expect(row).toMatch(/ \[MCP_CONNECT_FAILED\]$/)
    expect(row?.split('MCP_CONNECT_FAILED')).toHaveLength(2)
    const got = await dshInWorker(['mcp', 'get', 'gone', '--json', '--preset', 'base', '--config', overlay], home)
    expect(JSON.parse(got.stdout)).toMatchObject({ state: 'unavailable', code: 'MCP_CONNECT_FAILED', message: notFound })
  })

  it('a server that needs a login is said once per command; a multi-line stderr tail keeps dsh mcp list one line per server (issue 33 item 10)', async () => {
    const server = await startOAuthFixture()
    fixtures.push(server)
    const home = freshHome()
    const overlay = join(home, 'mixed.yml')
    const crash = "console.error('first line of the crash'); console.error('second line'); process.exit(3)"
    writeFileSync(
      overlay,
      [
        `- id: hosted\n  name: dsh-mcp\n  config: { serverName: hosted, transport: streamable-http, url: '${server.url}', startupTimeoutMs: 10000 }`,
        `- id: crashes\n  name: dsh-mcp\n  config: { serverName: crashes, transport: stdio, command: node, args: ['-e', "${crash}"], reconnect: { enabled: false } }`,
      ].join('\n') + '\n',
    )
    const status = await dshInWorker(['status', '--json', '--preset', 'base', '--config', overlay], home)
    expect(status.code, status.stderr).toBe(0)
    expect(status.stderr.split('\n').filter((line) => line.includes('hosted')), status.stderr).toHaveLength(1)
    const listed = await dshInWorker(['mcp', 'list', '--preset', 'base', '--config', overlay], home)
    expect(listed.code, listed.stderr).toBe(0)
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines, listed.stdout).toHaveLength(3)
    expect(lines.find((line) => line.startsWith('crashes'))).toContain('first line of the crash second line')
  })
})
