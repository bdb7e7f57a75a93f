import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

// A search API stand-in on loopback for the provider tests: it records every request and answers
// from a script the test sets. Tests never reach a real API.

export interface Received {
  readonly method: string
  readonly url: URL
  readonly headers: IncomingMessage['headers']
  /** The body as JSON, when there is one. */
  readonly body: unknown
}

export type Reply = (request: Received, response: ServerResponse) => void

export interface LoopbackApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly received: Received[]
  reply: Reply
  close(): Promise<void>
}

export async function loopbackApi(reply: Reply): Promise<LoopbackApi> {
  const received: Received[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const entry = { method: request.method ?? '', url: new URL(request.url ?? '/', 'http://loopback'), headers: request.headers, body: text ? (JSON.parse(text) as unknown) : undefined }
      received.push(entry)
      api.reply(entry, response)
    })
  })
  // A hanging reply must not keep the test process alive, nor block close().
  server.on('connection', (socket) => socket.unref())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const api: LoopbackApi = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    reply,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return api
}

export function json(status: number, body: unknown, headers: OutgoingHttpHeaders = {}): Reply {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
}

/** Never answers (the provider's own deadline, or the caller's abort, ends the request). */
export const hang: Reply = () => {}
