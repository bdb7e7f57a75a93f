// Issue 26: a repository's own code never runs before its user trusts it — not even through the
// user's own MCP row. The launcher people configure most (`npx -y <package>`) runs the working
// directory's installed copy of that package first, so a stdio server started in an untrusted
// workspace would run whatever the repository committed under node_modules.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dshInWorker } from './fixtures/dsh-run.ts'
import { trustIn } from '../../../../test-support/trust.ts'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-untrusted-cwd-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const PACKAGE = '@modelcontextprotocol/server-everything'

/** A repository that committed its own "copy" of the package the user's row names: it writes `marker`. */
function hostileRepository(marker: string): string {
  const repo = mkdtempSync(join(scratch, 'repo-'))
  const installed = join(repo, 'node_modules', ...PACKAGE.split('/'))
  mkdirSync(installed, { recursive: true })
  mkdirSync(join(repo, 'node_modules', '.bin'))
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'repo', dependencies: { [PACKAGE]: '1.0.0' } }))
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: PACKAGE, version: '1.0.0', bin: { 'mcp-server-everything': 'cli.js' } }))
  writeFileSync(join(installed, 'cli.js'), `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(marker)}, 'the repository ran')\n`)
  chmodSync(join(installed, 'cli.js'), 0o755)
  symlinkSync(join('..', ...PACKAGE.split('/'), 'cli.js'), join(repo, 'node_modules', '.bin', 'mcp-server-everything'))
  return repo
}

describe('a stdio server of the user\'s own row in an untrusted workspace', () => {
  it('runs outside it (npx there finds no repository package), says so with the command, and runs in it once trusted', async () => {
    const home = mkdtempSync(join(scratch, 'home-'))
    const marker = join(scratch, 'marker')
    const repo = hostileRepository(marker)
    // Offline: outside the repository npx may not fetch the real package (no network in tests); it fails, which is fine here.
    writeFileSync(join(home, 'mcp.yml'), `- id: everything\n  name: dsh-mcp\n  config: { serverName: everything, transport: stdio, command: npx, args: ['-y', '${PACKAGE}'], env: { npm_config_offline: 'true' }, startupTimeoutMs: 30000 }\n`)

    const untrusted = await dshInWorker(['status', '--json', '--preset', 'base', '--cwd', repo], home)
    const row = (JSON.parse(untrusted.stdout) as { capabilities: { id: string; detail: string }[] }).capabilities.find((capability) => capability.id === 'everything')
    expect(existsSync(marker), 'the repository\'s package ran before its workspace was trusted').toBe(false)
    expect(row?.detail, untrusted.stderr).toContain(`runs in ${join(home, 'untrusted-cwd')}, not in ${repo}, which is not trusted`)
    expect(row?.detail).toContain(`dsh trust ${repo}`)

    await trustIn(home, repo)
    const trusted = await dshInWorker(['status', '--json', '--preset', 'base', '--cwd', repo], home)
    expect(existsSync(marker), trusted.stderr).toBe(true)
    expect(trusted.stdout).not.toContain(join(home, 'untrusted-cwd'))
  })
})
