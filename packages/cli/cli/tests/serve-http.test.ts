// `dsh serve --http` (issue 29 item 1): one composition over Streamable HTTP at /mcp, answering SDK
// v2 clients of 2026-07-28 (stateless, server/discover, list changes over subscriptions/listen) and
// of 2025-11-25 (a session, list changes over its GET stream); and a SIGTERM that drains.
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { Agent, get as httpGet, type IncomingHttpHeaders } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, dsh, ECHO_PLUGIN, GROW_PLUGIN, json, killRunning, removeTempDirs, tempDir } from './helpers.ts'
import { RpcCode } from '../src/serve-rpc.ts'
import { httpClient, INITIALIZE, post, serveHttp, stopServed } from './serve-http-support.ts'

afterEach(async () => {
  await stopServed()
  killRunning()
  await removeTempDirs()
})

/**
 * A preset with echo, `grow` (registers one more tool per call: a catalog change) and `hold`, which
 * writes `<dir>/held` when it starts and answers once `<dir>/release` exists or its call is aborted.
 */
async function testPreset(): Promise<{ preset: string; dir: string }> {
  const dir = await tempDir()
  await writeFile(
    join(dir, 'tools.mjs'),
    `import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
export const name = 'http-test-tools'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({
    name: 'hold',
    description: 'Answers once the release file exists.',
    parameters: { type: 'object' },
    execute: (_args, exec) => new Promise((resolve, reject) => {
      writeFileSync(join(${JSON.stringify(dir)}, 'held'), 'yes')
      const timer = setInterval(() => {
        if (existsSync(join(${JSON.stringify(dir)}, 'release'))) {
          clearInterval(timer)
          resolve({ released: true })
        }
      }, 20)
      exec.signal.addEventListener('abort', () => {
        clearInterval(timer)
        reject(exec.signal.reason)
      })
    }),
  })
}
`,
  )
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, `${CORE_ROWS}- id: echo\n  name: ${JSON.stringify(ECHO_PLUGIN)}\n- id: grow\n  name: ${JSON.stringify(GROW_PLUGIN)}\n- id: test-tools\n  name: ./tools.mjs\n`)
  return { preset, dir }
}

describe('dsh serve --http: both protocol revisions', () => {
  for (const [mode, revision] of [
    ['auto', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const) {
    it(`a ${revision} client lists what dsh tools --json lists, calls a tool and hears the list change`, async () => {
      const { preset } = await testPreset()
      const served = await serveHttp(['--preset', preset])
      expect(served.url.pathname).toBe('/mcp')
      expect(served.url.hostname).toBe('127.0.0.1')
      let heard!: () => void
      const changed = new Promise<void>((resolve) => (heard = resolve))
      const client = await httpClient(served.url, mode, { onToolsChanged: () => heard() })
      expect(client.getNegotiatedProtocolVersion()).toBe(revision)
      const expected = json<{ tools: { name: string; description: string; parameters: unknown }[] }>(await dsh(['tools', '--json', '--preset', preset])).tools
      const listed = await client.listTools()
      expect(listed.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }))).toEqual(expected)
      const result = await client.callTool({ name: 'echo', arguments: { text: 'over http' } })
      expect(result.isError ?? false).toBe(false)
      expect(result.content).toEqual([{ type: 'text', text: 'over http' }])
      const failed = await client.callTool({ name: 'echo', arguments: { text: 5 } })
      expect(failed.isError).toBe(true)
      expect(JSON.stringify(failed.content)).toContain('[INVALID_ARGS]')
      await client.callTool({ name: 'grow', arguments: {} })
      await changed
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('grown_1')
    })
  }

  it('a 2025-11-25 session is named in Mcp-Session-Id; an unknown one gets 404, and a request without one is answered statelessly', async () => {
    const { preset } = await testPreset()
    const served = await serveHttp(['--preset', preset])
    const opened = await post(served.url, INITIALIZE)
    expect(opened.status).toBe(200)
    expect(opened.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/)
    await opened.body?.cancel()
    const unknown = await post(served.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' })
    expect(unknown.status).toBe(404)
    await unknown.body?.cancel()
    const stateless = await post(served.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' })
    expect(stateless.status).toBe(200)
    expect(await stateless.text()).toContain('"name":"echo"')
  })

  it('an idle connection is kept --keep-alive-ms (default 65000, past the idle limits of clients and proxies, so they close first) and the client is told so', async () => {
    const { preset } = await testPreset()
    for (const [args, hint] of [[[], 'timeout=65'], [['--keep-alive-ms', '7000'], 'timeout=7']] as const) {
      const served = await serveHttp(['--preset', preset, ...args])
      const agent = new Agent({ keepAlive: true })
      const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
        httpGet(new URL('/healthz', served.url), { agent }, (response) => {
          response.resume()
          resolve(response.headers)
        }).on('error', reject)
      })
      agent.destroy()
      expect(headers['keep-alive'], args.join(' ')).toBe(hint)
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
  })

  it('stdio stays the default: without --http, serve speaks on stdin/stdout', async () => {
    const run = await dsh(['serve', '--preset', (await testPreset()).preset], { input: `${JSON.stringify(INITIALIZE)}\n` })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('"protocolVersion":"2025-11-25"')
    expect(run.stderr).not.toContain('listening on')
  })
})

describe('dsh serve --http: SIGTERM', () => {
  it('stops accepting, lets a running call finish, then exits', async () => {
    const { preset, dir } = await testPreset()
    const served = await serveHttp(['--preset', preset])
    const client = await httpClient(served.url, 'auto')
    const call = client.callTool({ name: 'hold', arguments: {} })
    await expect.poll(() => existsSync(join(dir, 'held')), { timeout: 60_000, interval: 20 }).toBe(true)
    served.child.kill('SIGTERM')
    // Once draining, a new request is refused: 503 on a kept-alive connection, no connection at all otherwise.
    await expect.poll(() => fetch(new URL('/healthz', served.url)).then((response) => String(response.status), () => 'refused'), { timeout: 60_000, interval: 50 }).toMatch(/^(503|refused)$/)
    await writeFile(join(dir, 'release'), 'now')
    const result = await call
    expect(result.isError ?? false).toBe(false)
    expect(result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({ released: true })
    expect(await served.exited).toBe(0)
  })

  it('a request that arrives while draining is refused with 503 and SHUTTING_DOWN (-32003), not -32000 (the v1 SDK client\'s own "Connection closed")', async () => {
    const { preset, dir } = await testPreset()
    const served = await serveHttp(['--preset', preset])
    const client = await httpClient(served.url, 'auto')
    // A running call keeps the drain (and so the server) going.
    const call = client.callTool({ name: 'hold', arguments: {} }).catch((error: unknown) => ({ isError: true, error }))
    await expect.poll(() => existsSync(join(dir, 'held')), { timeout: 60_000, interval: 20 }).toBe(true)
    // A request whose head is in and whose body is not: its connection is not idle, so the drain keeps it.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' })
    const socket = connect(Number(served.url.port), served.url.hostname)
    await once(socket, 'connect')
    socket.write(`POST /mcp HTTP/1.1\r\nHost: ${served.url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`)
    served.child.kill('SIGTERM')
    // Draining once new connections are refused (the listener closes as the drain begins).
    await expect.poll(() => fetch(new URL('/healthz', served.url)).then((response) => String(response.status), () => 'refused'), { timeout: 60_000, interval: 50 }).toMatch(/^(503|refused)$/)
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')))
    socket.write(body.slice(5))
    // The answer's JSON (chunked or not: one small chunk) is on one line of its own.
    await expect.poll(() => answer, { timeout: 60_000, interval: 20 }).toMatch(/\r\n\{.*\}\r\n/)
    expect(answer).toMatch(/^HTTP\/1\.1 503 /)
    expect(JSON.parse(/\r\n(\{.*\})\r\n/.exec(answer)![1]!)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: RpcCode.SHUTTING_DOWN, message: 'dsh serve is shutting down' } })
    socket.destroy()
    await writeFile(join(dir, 'release'), 'now')
    expect((await call).isError ?? false).toBe(false)
    expect(await served.exited).toBe(0)
  })

  it('aborts a call still running after --drain-timeout-ms and exits', async () => {
    const { preset, dir } = await testPreset()
    const served = await serveHttp(['--preset', preset, '--drain-timeout-ms', '200'])
    const client = await httpClient(served.url, 'auto')
    const call = client.callTool({ name: 'hold', arguments: {} }).then(
      (result) => ({ settled: 'result' as const, result }),
      (error: unknown) => ({ settled: 'error' as const, error }),
    )
    await expect.poll(() => existsSync(join(dir, 'held')), { timeout: 60_000, interval: 20 }).toBe(true)
    served.child.kill('SIGTERM')
    expect(await served.exited).toBe(0)
    const outcome = await call
    if (outcome.settled === 'result') expect(outcome.result.isError).toBe(true)
    expect(served.stderr()).toContain('still running after --drain-timeout-ms 200')
  })
})
