// `dsh mcp login <name>` reaches the server's URL with its `${VAR}`s expanded. For a server of a
// repository's `.mcp.json` that is the repository's URL: before its workspace is trusted, no request
// may leave (an environment variable in the URL would be sent to whoever wrote the file).
import { createServer, type Server } from 'node:http'
import { writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { trustIn } from '../../../../test-support/trust.ts'
import { dshIn, oneStderrLine, projectMcpJsonHome, removeTempDirs } from './helpers.ts'

afterAll(removeTempDirs)

describe('dsh mcp login and a server of an untrusted workspace', () => {
  it('refuses with MCP_UNTRUSTED and sends nothing; once trusted, the login reaches the server', async () => {
    const requests: string[] = []
    // A real loopback server standing for the repository's: it records every request and fails it.
    const server: Server = createServer((request, response) => {
      requests.push(request.url ?? '')
      response.statusCode = 500
      response.end()
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      const { port } = server.address() as AddressInfo
      const { home, project } = await projectMcpJsonHome()
      await writeFile(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp?v=\${LOGIN_PROBE_VALUE}` } } }))
      const env = { env: { DSH_HOME: home, LOGIN_PROBE_VALUE: 'secret-value' } }
      const args = ['mcp', 'login', 'remote', '--preset', 'base', '--cwd', project]

      const refused = await dshIn(args, env)
      expect(refused.code).toBe(1)
      expect(oneStderrLine(refused)).toMatch(/^dsh: MCP server remote comes from .*\.mcp\.json, and .* is not trusted: .*; to use it: dsh trust .* \[MCP_UNTRUSTED\]$/)
      expect(requests).toEqual([])

      await trustIn(home, project)
      const tried = await dshIn(args, env)
      expect(tried.code).toBe(1)
      expect(oneStderrLine(tried)).toMatch(/\[MCP_AUTH_FAILED\]$/)
      expect(requests.some((url) => url.includes('v=secret-value'))).toBe(true)
    } finally {
      await new Promise((closed) => server.close(closed))
    }
  })
})
