// `dsh serve`'s transport remembers the client's unanswered requests for a shutdown's refusals
// (serve.test.ts shows the refusal over a real `dsh serve`): an answered or cancelled request is
// forgotten, so nothing is refused twice and a long session keeps no ids of cancelled calls.
import { PassThrough } from 'node:stream'
import { expect, it } from 'vitest'
import { LineTransport } from '../src/serve-transport.ts'

it('refuses only the requests still unanswered: not an answered one, not a cancelled one', async () => {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const transport = new LineTransport(stdin, stdout, { maxMessageBytes: 1 << 20, maxOutputBytes: 1 << 20, log: () => {} })
  await transport.start()
  const received: unknown[] = []
  transport.onmessage = (message) => void received.push(message)
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } })
  stdin.write(`${[call(1), call(2), call(3), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }].map((m) => JSON.stringify(m)).join('\n')}\n`)
  await new Promise((resolve) => setImmediate(resolve))
  expect(received).toHaveLength(4)
  await transport.send({ jsonrpc: '2.0', id: 1, result: { content: [] } })
  transport.refuseUnanswered(-32003, 'stopping')
  await transport.close()
  const written = String(stdout.read()).trim().split('\n').map((line) => JSON.parse(line))
  expect(written).toEqual([
    { jsonrpc: '2.0', id: 1, result: { content: [] } },
    { jsonrpc: '2.0', id: 3, error: { code: -32003, message: 'stopping' } },
  ])
})
