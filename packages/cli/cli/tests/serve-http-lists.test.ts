// `dsh serve --http` stateless for real (issue 29 item 4) and /healthz (item 5): replicas of one
// preset answer tools/list alike, 2026-07-28 list results carry their caching fields, and the
// readiness endpoint says 200 only when every configured capability is ready.
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ECHO_PRESET, killRunning, removeTempDirs, tempDir } from './helpers.ts'
import { post, serveHttp, stopServed } from './serve-http-support.ts'

afterEach(async () => {
  await stopServed()
  killRunning()
  await removeTempDirs()
})

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

/** A 2026-07-28 request as it goes on the wire: the envelope in `_meta`, the revision in a header. */
async function modern(url: URL, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const response = await post(url, { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method })
  expect(response.status, method).toBe(200)
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown }
  expect(body.error, method).toBeUndefined()
  return body.result!
}

describe('dsh serve --http: stateless lists', () => {
  it('two replicas of one preset answer tools/list byte for byte alike, sorted, with ttlMs and cacheScope', async () => {
    const [first, second] = await Promise.all([serveHttp(['--preset', 'base', '--cwd', await tempDir()]), serveHttp(['--preset', 'base', '--cwd', await tempDir()])])
    const lists = await Promise.all([first, second].map((served) => modern(served.url, 'tools/list')))
    expect(JSON.stringify(lists[0])).toBe(JSON.stringify(lists[1]))
    const names = (lists[0]!.tools as { name: string }[]).map((tool) => tool.name)
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(expect.arrayContaining(['skill', 'web_fetch', 'web_search']))
    expect(lists[0]).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: expect.stringMatching(/^(public|private)$/) })
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) expect(await modern(first.url, method), method).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) })
    expect(await modern(first.url, 'server/discover')).toMatchObject({ supportedVersions: expect.arrayContaining(['2026-07-28']) })
  })
})

describe('dsh serve --http: /healthz', () => {
  it('200 with every configured capability ready; 503 naming the one that is not; no auth needed', async () => {
    const ready = await serveHttp(['--preset', ECHO_PRESET, '--auth', 'bearer', '--token-env', 'DSH_TEST_HEALTH_TOKEN'], { env: { DSH_TEST_HEALTH_TOKEN: 'secret' } })
    const ok = await fetch(new URL('/healthz', ready.url))
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ ready: true, capabilities: [expect.objectContaining({ id: 'echo', state: 'ready' })] })
    // base without search keys: the search providers have no credential.
    const home = await tempDir()
    const keyless = Object.fromEntries(['DEEPSEEK_API_KEY', 'BRAVE_API_KEY', 'TAVILY_API_KEY'].map((name) => [name, '']))
    const notReady = await serveHttp(['--preset', 'base', '--cwd', await tempDir()], { env: { ...keyless, HOME: home, DSH_HOME: join(home, '.dsh') } })
    const unavailable = await fetch(new URL('/healthz', notReady.url))
    expect(unavailable.status).toBe(503)
    const body = (await unavailable.json()) as { ready: boolean; capabilities: { surface: string; id: string; state: string; configured: boolean }[] }
    expect(body.ready).toBe(false)
    expect(body.capabilities).toEqual(expect.arrayContaining([expect.objectContaining({ surface: 'web', id: 'fetch:http', state: 'ready' }), expect.objectContaining({ surface: 'web', state: 'no_credential', configured: true })]))
    expect((await fetch(new URL('/nowhere', notReady.url))).status).toBe(404)
  })
})
