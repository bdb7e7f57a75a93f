// `dsh serve --http` safety (issue 29 item 2): DNS-rebinding protection (Origin and Host), no
// unauthenticated binding beyond loopback, the request-size and concurrent-call caps shared with
// stdio, and the per-request deadline.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { request } from 'node:http'
import { connect, createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, dshIn, ECHO_PRESET, killRunning, oneStderrLine, removeTempDirs, tempDir } from './helpers.ts'
import { httpClient, INITIALIZE, post, serveHttp, stopServed } from './serve-http-support.ts'

afterEach(async () => {
  await stopServed()
  killRunning()
  await removeTempDirs()
})

const ECHO = ['--preset', ECHO_PRESET]

/** A preset whose `hang` tool writes `<dir>/started-<n>` and answers only when aborted. */
async function hangingPreset(): Promise<{ preset: string; dir: string }> {
  const dir = await tempDir()
  await writeFile(
    join(dir, 'hang.mjs'),
    `import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
export const name = 'hang'
export const inject = ['tools']
export function apply(ctx) {
  let count = 0
  ctx.tools.register({
    name: 'hang',
    description: 'Answers when aborted.',
    parameters: { type: 'object' },
    execute: (_args, exec) => new Promise((_resolve, reject) => {
      writeFileSync(join(${JSON.stringify(dir)}, 'started-' + ++count), 'yes')
      exec.signal.addEventListener('abort', () => reject(exec.signal.reason))
    }),
  })
}
`,
  )
  const preset = join(dir, 'preset.yml')
  await writeFile(preset, `${CORE_ROWS}- id: hang\n  name: ./hang.mjs\n`)
  return { preset, dir }
}

/** The status of an initialize POSTed to `url` with this Host header. */
function statusWithHost(url: URL, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end(JSON.stringify(INITIALIZE))
  })
}

describe('dsh serve --http: DNS-rebinding protection', () => {
  it('a foreign Origin gets 403, localhost and an --allowed-origin pass; a foreign Host gets 403 on loopback', async () => {
    const served = await serveHttp([...ECHO, '--allowed-origin', 'https://app.example.com'])
    const foreign = await post(served.url, INITIALIZE, { origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    await foreign.body?.cancel()
    for (const origin of ['http://localhost:5173', 'https://app.example.com']) {
      const allowed = await post(served.url, INITIALIZE, { origin })
      expect(allowed.status, origin).toBe(200)
      await allowed.body?.cancel()
    }
    // fetch will not send a Host header of its own choosing; node:http will, as a rebinding page's browser would.
    const viaRawHost = await statusWithHost(served.url, `rebound.example:${served.url.port}`)
    expect(viaRawHost).toBe(403)
    expect(await statusWithHost(served.url, `localhost:${served.url.port}`)).toBe(200)
    const health = await fetch(new URL('/healthz', served.url), { headers: { origin: 'https://evil.example' } })
    expect(health.status).toBe(403)
  })

  it('refuses to bind beyond loopback without an auth mode, and says why', async () => {
    const run = await dshIn(['serve', '--http', '0.0.0.0:0', ...ECHO])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/0\.0\.0\.0, which is not loopback: .* needs --auth bearer or --auth oauth/)
    const bad = await dshIn(['serve', '--http', 'nonsense', ...ECHO])
    expect(bad.code).toBe(2)
    expect(oneStderrLine(bad)).toContain('--http takes [<host>:]<port>')
    const stdioOnly = await dshIn(['serve', '--allowed-origin', 'https://a.example', ...ECHO])
    expect(oneStderrLine(stdioOnly)).toContain('--allowed-origin belongs to dsh serve --http')
  })

  it('a port in use is a clear boot error', async () => {
    // Any listener holds the port (a `dsh serve --http` process did: a second of CPU to start).
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = holder.address() as AddressInfo
      const run = await dshIn(['serve', '--http', `127.0.0.1:${port}`, ...ECHO])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`--http 127.0.0.1:${port}: `)
      expect(run.stderr).toContain('EADDRINUSE')
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })
})

describe('dsh serve --http: caps and deadline', () => {
  it('a body over --max-message-bytes gets 413 and the server goes on', async () => {
    const served = await serveHttp([...ECHO, '--max-message-bytes', '4096'])
    const big = await post(served.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(10_000) } } }, { 'mcp-protocol-version': '2025-11-25' })
    expect(big.status).toBe(413)
    await big.body?.cancel()
    const client = await httpClient(served.url, 'auto')
    expect((await client.callTool({ name: 'echo', arguments: { text: 'small' } })).content).toEqual([{ type: 'text', text: 'small' }])
  })

  it('a body read once: sent in pieces it is parsed whole; chunked past the cap it gets 413; not JSON, a parse error; the server goes on', async () => {
    const served = await serveHttp([...ECHO, '--max-message-bytes', '4096'])
    const call = (text: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } })
    const inPieces = (body: string, pieces: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(body)
          const size = Math.ceil(bytes.byteLength / pieces)
          for (let start = 0; start < bytes.byteLength; start += size) controller.enqueue(bytes.slice(start, start + size))
          controller.close()
        },
      })
    const slowly = (body: string, pieces: number) => {
      const bytes = new TextEncoder().encode(body)
      const size = Math.ceil(bytes.byteLength / pieces)
      let start = 0
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (start >= bytes.byteLength) return controller.close()
          if (start > 0) await new Promise((resolve) => setTimeout(resolve, 50))
          controller.enqueue(bytes.slice(start, (start += size)))
        },
      })
    }
    // A streamed body has no content-length: only counting what arrives can find it too large.
    const streamed = (body: string, pieces: number) =>
      fetch(served.url, { method: 'POST', duplex: 'half', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: inPieces(body, pieces) } as RequestInit)
    const whole = await streamed(call('é'.repeat(500)), 7)
    expect(whole.status).toBe(200)
    expect(await whole.text()).toContain('é'.repeat(500))
    const tooLarge = await streamed(call('x'.repeat(10_000)), 5)
    expect(tooLarge.status).toBe(413)
    await tooLarge.body?.cancel()
    // Still sending when the 413 is decided: the rest is read and dropped, so the client gets the
    // answer rather than a reset under its next write (a piece every 50 ms keeps it sending).
    const trickled = await fetch(served.url, { method: 'POST', duplex: 'half', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: slowly(call('x'.repeat(20_000)), 10) } as RequestInit)
    expect(trickled.status).toBe(413)
    await trickled.body?.cancel()
    const notJson = await post(served.url, '{"jsonrpc": "2.0", "id": 1, "method": ', { 'mcp-protocol-version': '2025-11-25' })
    expect(notJson.status).toBe(400)
    expect(await notJson.text()).toContain('-32700')
    const client = await httpClient(served.url, 'auto')
    expect((await client.callTool({ name: 'echo', arguments: { text: 'small' } })).content).toEqual([{ type: 'text', text: 'small' }])
  })

  it('a body found over the cap is read to its end before the 413, so a client still sending reads the answer, not a reset', async () => {
    // The raw socket shows the order: with the answer sent (and the connection closed) while the
    // body still arrives, the client's next write meets a reset and fetch reports EPIPE instead of
    // the 413. A /healthz round trip between two pieces lets the server act on the first.
    const served = await serveHttp([...ECHO, '--max-message-bytes', '4096'])
    const socket = connect(Number(served.url.port), served.url.hostname)
    await once(socket, 'connect')
    const received: Buffer[] = []
    let errored: Error | undefined
    socket.on('data', (chunk: Buffer) => received.push(chunk)).on('error', (error) => (errored = error))
    const ended = once(socket, 'end').catch(() => undefined)
    const piece = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
    socket.write(`POST /mcp HTTP/1.1\r\nhost: ${served.url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\ntransfer-encoding: chunked\r\n\r\n`)
    socket.write(piece(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'x'.repeat(6000)}`))
    const healthy = await fetch(new URL('/healthz', served.url))
    await healthy.body?.cancel()
    expect(received).toEqual([])
    socket.write(piece(`${'y'.repeat(6000)}"}}}`))
    socket.write('0\r\n\r\n')
    await ended
    expect(errored).toBeUndefined()
    expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 413 /)
    const client = await httpClient(served.url, 'auto')
    expect((await client.callTool({ name: 'echo', arguments: { text: 'small' } })).content).toEqual([{ type: 'text', text: 'small' }])
  })

  it('a body declared far over the cap is answered 413 at once, without waiting for it', async () => {
    const served = await serveHttp([...ECHO, '--max-message-bytes', '4096'])
    const socket = connect(Number(served.url.port), served.url.hostname)
    await once(socket, 'connect')
    socket.on('error', () => {})
    socket.write(`POST /mcp HTTP/1.1\r\nhost: ${served.url.host}\r\ncontent-type: application/json\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: ${4096 * 100}\r\n\r\n{"jsonrpc":`)
    const [first] = (await once(socket, 'data')) as [Buffer]
    expect(first.toString('latin1')).toMatch(/^HTTP\/1\.1 413 /)
    socket.destroy()
  })

  it('past --max-concurrent-calls a call is refused at once, over HTTP as over stdio', async () => {
    const { preset, dir } = await hangingPreset()
    const served = await serveHttp(['--preset', preset, '--max-concurrent-calls', '1'])
    const client = await httpClient(served.url, 'auto')
    const first = client.callTool({ name: 'hang', arguments: {} }).catch((error: unknown) => error)
    await expect.poll(() => existsSync(join(dir, 'started-1')), { timeout: 60_000, interval: 20 }).toBe(true)
    await expect(client.callTool({ name: 'hang', arguments: {} })).rejects.toThrow(/already running 1 tool calls, its limit \(--max-concurrent-calls 1\)/)
    expect(existsSync(join(dir, 'started-2'))).toBe(false)
    await client.close()
    void first
  })

  it('a call still running at --request-timeout-ms is aborted and answered SERVE_REQUEST_TIMEOUT', async () => {
    const { preset, dir } = await hangingPreset()
    const served = await serveHttp(['--preset', preset, '--request-timeout-ms', '300'])
    const client = await httpClient(served.url, 'legacy')
    const result = await client.callTool({ name: 'hang', arguments: {} })
    expect(existsSync(join(dir, 'started-1'))).toBe(true)
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('[SERVE_REQUEST_TIMEOUT]')
    expect(JSON.stringify(result.content)).toContain('--request-timeout-ms 300')
  })
})
