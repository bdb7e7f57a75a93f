import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  readonly method: string
  readonly url: URL
  readonly headers: IncomingMessage['headers']
}

/** How the fake answers `/search`; the default serves `searchResponse(q)`. */
export type Reply = (request: Received, response: ServerResponse) => void

/**
 * A stand-in for a SearXNG instance on loopback, shaped like its JSON API: `GET /search?q=…&format=json`
 * (403 for a format the instance does not serve, as SearXNG does) and `GET /config`. It records every
 * request, and `reply` can be swapped to produce the faults a real instance cannot be made to show.
 */
export interface FakeSearxng {
  readonly baseUrl: string
  readonly received: Received[]
  reply: Reply
  close(): Promise<void>
}

export async function fakeSearxng(options: { formats?: readonly string[] } = {}): Promise<FakeSearxng> {
  const formats = options.formats ?? ['html', 'json']
  const received: Received[] = []
  const fake: FakeSearxng = {
    baseUrl: '',
    received,
    reply: (request, response) => json(200, searchResponse(request.url.searchParams.get('q') ?? ''))(request, response),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const server = createServer((request, response) => {
    const entry: Received = { method: request.method ?? '', url: new URL(request.url ?? '/', 'http://searxng.test'), headers: request.headers }
    received.push(entry)
    if (entry.url.pathname === '/config') return json(200, instanceConfig())(entry, response)
    if (entry.url.pathname !== '/search') return json(404, { error: 'not found' })(entry, response)
    if (!formats.includes(entry.url.searchParams.get('format') ?? 'html')) {
      response.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>')
      return
    }
    fake.reply(entry, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  Object.assign(fake, { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  return fake
}

export function json(status: number, body: unknown): Reply {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }
}

/** A `/search?format=json` body as SearXNG sends it (fields we do not read included). */
export function searchResponse(query: string) {
  return {
    query,
    number_of_results: 0,
    results: [
      {
        url: 'https://cordis.io/',
        title: 'Cordis',
        content: 'Meta-framework for modern JavaScript applications.',
        engine: 'duckduckgo',
        engines: ['duckduckgo', 'brave'],
        positions: [1, 2],
        score: 4,
        category: 'general',
        publishedDate: null,
      },
      {
        url: 'https://github.com/cordiverse/cordis',
        title: 'cordiverse/cordis',
        content: '',
        engine: 'github',
        engines: ['github'],
        score: 1,
        category: 'it',
        publishedDate: '2026-01-02T00:00:00',
      },
    ],
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ['cordis koishi'],
    unresponsive_engines: [],
  }
}

function instanceConfig() {
  return {
    instance_name: 'fake',
    version: '2026.1.1',
    engines: [
      { name: 'duckduckgo', enabled: true },
      { name: 'brave', enabled: true },
      { name: 'github', enabled: true },
      { name: 'bing', enabled: false },
    ],
  }
}
