import { writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { BIN, removeTempDirs, ROOT, tempDir } from '../../../cli/cli/tests/helpers.ts'

// Issue 31, done when: "two pathological pages fetched at once through one `dsh serve` while a third
// small fetch runs: the small one answers within its normal time". Shown by order, not by a clock:
// both pathological pages have been sent whole to the host (their conversions are under way, each
// takes far longer than a small fetch) before the small fetch is asked for, and the small answer
// still arrives first. With conversions on the event loop (conversionWorkers: 0) it could not: the
// loop would be busy with a conversion until it ended.

/** An HTML page of `<p>x</p>` paragraphs: the worst case of the converter (bench/web-server.mjs). */
// 60 000 paragraphs convert in about a second on a quiet machine, several under load: far longer
// than a small fetch takes either way.
const PATHOLOGICAL = `<!doctype html><html><body>${'<p>x</p>'.repeat(60_000)}</body></html>`
/** Large enough for the pool (conversionWorkerMinChars), quick to convert: starts both workers. */
const WARM = `<!doctype html><html><body>${'<p>x</p>'.repeat(2_000)}</body></html>`

let server: Server | undefined
const clients: Client[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
  await removeTempDirs()
})

describe('dsh serve with conversions under way', () => {
  it('two pathological pages at once do not hold up a small fetch: it answers before either', { timeout: 300_000 }, async () => {
    /** Resolves once the pathological page has been sent whole for each of `paths`. */
    const sent = new Map<string, () => void>()
    const sentWhole = (paths: readonly string[]) => Promise.all(paths.map((path) => new Promise<void>((resolve) => sent.set(path, resolve))))
    server = createServer((request, response) => {
      if (request.url?.startsWith('/warm/')) return void response.writeHead(200, { 'content-type': 'text/html' }).end(WARM)
      if (request.url?.startsWith('/pathological/')) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        response.end(PATHOLOGICAL, () => sent.get(request.url!)?.())
        return
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('small and quick')
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    const dir = await tempDir()
    const overlay = join(dir, 'loopback.yml')
    await writeFile(overlay, '- id: web-fetch-http\n  config:\n    allowedCidrs: [127.0.0.0/8]\n- id: tool-web\n  config:\n    cacheTtlMs: 0\n    conversionWorkers: 2\n    fetchTimeoutMs: 200000\n')
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--preset', 'base', '--config', overlay, '--cwd', dir], cwd: ROOT, stderr: 'pipe', env: process.env as Record<string, string> })
    const client = new Client({ name: 'dsh-serve-web-loop-test', version: '0' })
    clients.push(client)
    await client.connect(transport)
    const fetch = (url: string) => client.callTool({ name: 'web_fetch', arguments: { url } }, undefined, { timeout: 200_000 })
    // Warm: the converter's workers started and loaded, so what follows measures conversions.
    await Promise.all([fetch(`${origin}/warm/1`), fetch(`${origin}/warm/2`)])
    const pathologicalSent = sentWhole(['/pathological/1', '/pathological/2'])

    const order: string[] = []
    const done = (name: string) => (result: Awaited<ReturnType<typeof fetch>>) => {
      expect(result.isError, name).toBeFalsy()
      order.push(name)
      return result
    }
    const first = fetch(`${origin}/pathological/1`).then(done('pathological 1'))
    const second = fetch(`${origin}/pathological/2`).then(done('pathological 2'))
    await pathologicalSent
    const small = await fetch(`${origin}/small.txt`).then(done('small'))
    expect((small.content as { text: string }[])[0]!.text).toContain('small and quick')
    await Promise.all([first, second])
    expect(order[0]).toBe('small')
    expect(order).toHaveLength(3)
  })
})
