// `dsh serve --http` with real clients (issue 29): SDK v2 clients of both revisions on one served
// coding composition get its tools and call a real `lsp` hover (typescript-language-server),
// `web_fetch` of a loopback page (under an overlay that allows loopback) and `skill`; on SIGTERM the
// process and its language servers are gone.
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { descendants, expectGone, killRunning, PATIENT_LSP_OVERLAY, removeTempDirs, ROOT, tempDir } from './helpers.ts'
import { httpClient, serveHttp, stopServed } from './serve-http-support.ts'

const PROJECT = join(ROOT, 'packages', 'lsp', 'lsp-stdio', 'tests', 'real', 'workspaces', 'ts-project')
const HOVER = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 7 }
let page: Server | undefined

afterEach(async () => {
  await stopServed()
  killRunning()
  await removeTempDirs()
  await new Promise((resolve) => (page ? page.close(resolve) : resolve(undefined)))
  page = undefined
})

describe('dsh serve --http --preset coding: real clients, real servers', () => {
  it('2026-07-28 and 2025-11-25 clients call lsp hover, web_fetch (loopback allowed) and skill; SIGTERM leaves no language server', async () => {
    page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end('<html><body><h1>Team notes</h1><p>Served over loopback.</p></body></html>')
    })
    await new Promise<void>((resolve) => page!.listen(0, '127.0.0.1', resolve))
    const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/notes`
    const dir = await tempDir()
    const overlay = join(dir, 'loopback-fetch.yml')
    await writeFile(overlay, `- id: web-fetch-http\n  config: { allowedCidrs: [127.0.0.0/8] }\n`)
    const home = join(dir, 'home')
    await mkdir(join(home, '.agents', 'skills', 'team-greeting'), { recursive: true })
    await writeFile(join(home, '.agents', 'skills', 'team-greeting', 'SKILL.md'), '---\nname: team-greeting\ndescription: How the team says hello\n---\nSay hello to the team by name.\n')

    // The hover waits for the server to load the project however long a loaded machine takes
    // (PATIENT_LSP_OVERLAY); the clients' request timeouts are raised to match (failure guards only).
    const served = await serveHttp(['--preset', 'coding', '--config', PATIENT_LSP_OVERLAY, '--config', overlay, '--cwd', PROJECT], { env: { HOME: home, DSH_HOME: join(home, '.dsh') } })
    for (const mode of ['auto', 'legacy'] as const) {
      const client = await httpClient(served.url, mode)
      expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25')
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['lsp', 'skill', 'web_fetch', 'web_search']))
      const hover = await client.callTool({ name: 'lsp', arguments: HOVER }, { timeout: 240_000 })
      expect(hover.isError ?? false, JSON.stringify(hover)).toBe(false)
      expect(JSON.stringify(hover.content)).toContain('const circle: Circle')
      const fetched = await client.callTool({ name: 'web_fetch', arguments: { url: pageUrl } }, { timeout: 120_000 })
      expect(fetched.isError ?? false, JSON.stringify(fetched)).toBe(false)
      expect(JSON.stringify(fetched.content)).toContain('Team notes')
      const skill = await client.callTool({ name: 'skill', arguments: { name: 'team-greeting' } })
      expect(skill.isError ?? false, JSON.stringify(skill)).toBe(false)
      expect(JSON.stringify(skill.content)).toContain('Say hello to the team by name.')
    }
    const servers = descendants(served.child.pid!)
    expect(servers.length).toBeGreaterThan(0)
    served.child.kill('SIGTERM')
    expect(await served.exited).toBe(0)
    for (const pid of servers) await expectGone(pid, `language server pid ${pid}`)
  })
})
