// The browser `dsh mcp login` opens (issue 26 item 7) starts through ctx.subprocess: the scrubbed
// environment (no secret-looking variable, no DSH_*), an executable looked up by dsh-core, and it is
// handed off (dsh does not end it). A stand-in `xdg-open` on PATH records the environment it got and
// follows the URL as a browser would, so the login completing proves it was started with the URL.
// stderr must be a terminal for dsh to open a browser at all: `script` gives the command a pty.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.ts'
import { dshOnTerminal } from './fixtures/terminal.ts'

const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-browser-'))
const fixtures: OAuthFixture[] = []
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()))
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** An `xdg-open` that writes its environment to $FAKE_BROWSER_LOG, then follows the authorization URL. */
function fakeOpener(dir: string): void {
  mkdirSync(dir, { recursive: true })
  const script = join(dir, 'xdg-open')
  writeFileSync(
    script,
    `#!${process.execPath}
const { writeFileSync } = require('node:fs')
writeFileSync(process.env.FAKE_BROWSER_LOG, JSON.stringify(process.env))
;(async () => {
  const first = await fetch(process.argv[2], { redirect: 'manual' })
  await fetch(first.headers.get('location'))
})()
`,
  )
  chmodSync(script, 0o755)
}

describe('dsh mcp login opens the browser through ctx.subprocess', () => {
  it('the opener gets the scrubbed environment and the URL, and the login completes through it', async () => {
    const server = await startOAuthFixture()
    fixtures.push(server)
    const home = mkdtempSync(join(scratch, 'home-'))
    const bin = join(scratch, 'bin')
    fakeOpener(bin)
    const log = join(scratch, 'browser-env.json')
    const overlay = join(home, 'hosted.yml')
    writeFileSync(overlay, `- id: hosted\n  name: dsh-mcp\n  config: { serverName: hosted, transport: streamable-http, url: '${server.url}' }\n`)
    const env: NodeJS.ProcessEnv = { ...process.env, DSH_HOME: home, DISPLAY: ':0', PATH: `${bin}:${process.env.PATH}`, FAKE_BROWSER_LOG: log, OPENAI_API_KEY: 'sk-must-not-reach-the-browser' }
    delete env.INIT_CWD

    const run = await dshOnTerminal(['mcp', 'login', 'hosted', '--preset', 'base', '--config', overlay], env)
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain('logged in to hosted')
    expect(existsSync(log)).toBe(true)
    const seen = JSON.parse(readFileSync(log, 'utf8')) as Record<string, string>
    expect(seen.FAKE_BROWSER_LOG).toBe(log)
    expect(seen.OPENAI_API_KEY).toBeUndefined()
    expect(seen.DSH_HOME).toBeUndefined()
  })
})
