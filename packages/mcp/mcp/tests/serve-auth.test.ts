// Issue 21: `dsh serve` never starts an interactive login. A server that needs one is reported as
// needs_auth (its tools unlisted), and a call to it answers MCP_AUTH_REQUIRED with the login command, through a real MCP
// client talking to the real `dsh serve`, in front of our loopback authorization server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { startOAuthFixture } from './fixtures/oauth-server.ts'

const ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)))
const DSH = join(ROOT, 'packages/cli/cli/bin/dsh.mjs')
const home = mkdtempSync(join(tmpdir(), 'dsh-serve-auth-'))
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe('dsh serve and a server that needs a login', () => {
  it('lists none of its tools and answers MCP_AUTH_REQUIRED with the login command; no login is started', async () => {
    const server = await startOAuthFixture()
    const overlay = join(home, 'hosted.yml')
    writeFileSync(overlay, `- id: hosted\n  name: dsh-mcp\n  config: { serverName: hosted, transport: streamable-http, url: '${server.url}', startupTimeoutMs: 10000 }\n`)
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'INIT_CWD') env[name] = value
    const transport = new StdioClientTransport({ command: process.execPath, args: [DSH, 'serve', '--preset', 'base', '--config', overlay], cwd: ROOT, env: { ...env, DSH_HOME: home }, stderr: 'pipe' })
    let stderr = ''
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const client = new Client({ name: 'dsh-serve-auth-test', version: '0' })
    try {
      await client.connect(transport)
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names.some((name) => name.startsWith('mcp__hosted__'))).toBe(false)
      const result = await client.callTool({ name: 'mcp__hosted__whoami', arguments: {} })
      expect(result.isError).toBe(true)
      const text = JSON.stringify(result.content)
      expect(text).toContain('MCP_AUTH_REQUIRED')
      expect(text).toContain('dsh mcp login hosted')
      // Nothing interactive: no authorization URL printed, no code exchanged, no token issued.
      expect(stderr).not.toMatch(/\/authorize\?/)
      expect(server.grants).toEqual([])
      expect(server.issued).toEqual([])
    } finally {
      await client.close()
      await server.stop()
    }
  })
})
