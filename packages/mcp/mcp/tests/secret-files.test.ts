// Files that can hold a secret (issue 26 item 6): `$DSH_HOME/mcp.yml` written by `dsh mcp add` and
// `import`, and the OAuth token store, are 0600 in a 0700 directory, tightened when they already
// exist wider; `dsh mcp get` masks credentials in a URL as it masks env and headers; a literal
// secret written into a project's .mcp.json (meant to be committed) is warned about.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { TokenStore } from '../src/index.ts'
import { dshInWorker } from './fixtures/dsh-run.ts'

const CLAUDE = fileURLToPath(new URL('./fixtures/import/claude.mcp.json', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-secret-files-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const mode = (path: string) => statSync(path).mode & 0o777

/** A `$DSH_HOME` as an older dsh (or a plain mkdir) left it: 0755, with a 0644 mcp.yml. */
function wideHome(withOverlay: boolean): string {
  const home = join(mkdtempSync(join(scratch, 'home-')), 'dsh')
  mkdirSync(home, { mode: 0o755 })
  chmodSync(home, 0o755)
  if (withOverlay) {
    writeFileSync(join(home, 'mcp.yml'), '[]\n')
    chmodSync(join(home, 'mcp.yml'), 0o644)
  }
  return home
}

describe('files that can hold a secret are 0600 in a 0700 directory', () => {
  it('dsh mcp add with a literal --env: mcp.yml 0600, $DSH_HOME tightened to 0700', async () => {
    const home = wideHome(true)
    const added = await dshInWorker(['mcp', 'add', 'local', '--env', 'API_KEY=sk-literal', '--', 'mcp-server-everything', 'stdio'], home)
    expect(added.code, added.stderr).toBe(0)
    expect(readFileSync(join(home, 'mcp.yml'), 'utf8')).toContain('sk-literal')
    expect(mode(join(home, 'mcp.yml'))).toBe(0o600)
    expect(mode(home)).toBe(0o700)
  })

  it('dsh mcp import into a new $DSH_HOME: 0600 in 0700', async () => {
    const home = join(mkdtempSync(join(scratch, 'home-')), 'fresh')
    const imported = await dshInWorker(['mcp', 'import', CLAUDE], home)
    expect(imported.code, imported.stderr).toBe(0)
    expect(mode(join(home, 'mcp.yml'))).toBe(0o600)
    expect(mode(home)).toBe(0o700)
  })

  it('the OAuth token store: a 0644 file in a 0755 directory comes back 0600 in 0700 on the next write', async () => {
    const home = wideHome(false)
    const path = join(home, 'mcp-credentials.json')
    writeFileSync(path, '{"version":1,"logins":{}}\n')
    chmodSync(path, 0o644)
    const store = new TokenStore(path)
    await store.update('https://mcp.example.com/mcp *', () => ({ serverUrl: 'https://mcp.example.com/mcp', tokens: { access_token: 'secret', token_type: 'Bearer' } }))
    expect(mode(path)).toBe(0o600)
    expect(mode(home)).toBe(0o700)
    expect((await store.get('https://mcp.example.com/mcp *'))?.tokens?.access_token).toBe('secret')
  })
})

describe('dsh mcp get masks credentials in URLs', () => {
  it('user, password and secret-looking query values are ***; other parameters and ${VAR} references stay', async () => {
    const home = wideHome(false)
    const overlay = join(home, 'remote.yml')
    const url = 'http://alice:hunter2@127.0.0.1:1/mcp?api_key=abc123&region=eu&access_token=${MCP_TOKEN:-none}&sig=x'
    writeFileSync(overlay, `- name: dsh-mcp\n  config: { serverName: remote, transport: streamable-http, url: '${url}', startupTimeoutMs: 2000, reconnect: { enabled: false } }\n`)
    const got = await dshInWorker(['mcp', 'get', 'remote', '--json', '--preset', 'base', '--config', overlay], home)
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout).config.url).toBe('http://***:***@127.0.0.1:1/mcp?api_key=***&region=eu&access_token=${MCP_TOKEN:-none}&sig=x')
    // The detail repeats the URL fetch refused (it cannot send credentials in a URL): masked too.
    expect(JSON.parse(got.stdout).detail).toContain('http://***:***@127.0.0.1:1/mcp?api_key=***')
    for (const secret of ['hunter2', 'alice', 'abc123']) expect(got.stdout).not.toContain(secret)
  })
})

describe('dsh mcp add --scope project warns of a literal secret', () => {
  it('--env API_KEY=… and --header Authorization: … warn that the file is meant to be committed; ${VAR} and plain values do not', async () => {
    const home = wideHome(false)
    const project = mkdtempSync(join(scratch, 'project-'))
    const literal = await dshInWorker(['mcp', 'add', '--scope', 'project', 'local', '--env', 'API_KEY=sk-literal', '--env', 'DEBUG=1', '--cwd', project, '--', 'mcp-server-everything', 'stdio'], home)
    expect(literal.code, literal.stderr).toBe(0)
    expect(literal.stderr).toContain(`warning: ${join(project, '.mcp.json')} is meant to be committed, and --env API_KEY holds a literal secret`)
    expect(literal.stderr).not.toContain('DEBUG')

    const header = await dshInWorker(['mcp', 'add', '--scope', 'project', '--transport', 'http', 'remote', 'https://mcp.example.com/mcp', '--header', 'Authorization: Bearer sk-2', '--cwd', project], home)
    expect(header.stderr).toContain('--header Authorization holds a literal secret')

    const quiet = await dshInWorker(['mcp', 'add', '--scope', 'project', 'ref', '--env', 'API_KEY=${API_KEY}', '--env', 'DEBUG=1', '--cwd', project, '--', 'mcp-server-everything', 'stdio'], home)
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stderr).not.toContain('warning')
  })
})
