import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: unknown
}

export type Reply = (request: Received, response: ServerResponse) => void

/**
 * Our own Anthropic-compatible Messages endpoint on loopback: records every request and answers
 * from a script. It stands in for DeepSeek, which tests must never reach.
 */
export interface FakeApi {
  readonly baseURL: string
  readonly received: Received[]
  connections(): number
  reply: Reply
  close(): Promise<void>
}

export async function fakeApi(reply: Reply = json(200, searchResponse())): Promise<FakeApi> {
  let connections = 0
  const received: Received[] = []
  const api: FakeApi = {
    baseURL: '',
    received,
    connections: () => connections,
    reply,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: text ? (JSON.parse(text) as unknown) : undefined }
      received.push(entry)
      api.reply(entry, response)
    })
  })
  server.on('connection', (socket) => {
    connections++
    socket.unref()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  Object.assign(api, { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/anthropic/v1` })
  return api
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
}

/** A response the way DeepSeek shapes it: prose with citations, and native search result blocks. */
export function searchResponse(results: { url: string; title?: string; page_age?: string }[] = [{ url: 'https://a.test/', title: 'A', page_age: '2026-02-02' }, { url: 'https://b.test/', title: 'B' }]) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [
      { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'q' } },
      { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: results.map((result) => ({ type: 'web_search_result', encrypted_content: 'x', ...result })) },
      { type: 'text', text: 'A says so.', citations: [{ type: 'web_search_result_location', url: 'https://a.test/', title: 'A', cited_text: 'excerpt for A' }] },
    ],
  }
}
