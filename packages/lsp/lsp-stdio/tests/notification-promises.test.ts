// [PURE] The promises a server's notification costs on its way to the instance (issue 27 item 2,
// diagnostics after a change: TypeScript 7 logs about 7 messages per change at Info, and with the
// host's AsyncLocalStorage every promise pays Node's init hook). Counted with async_hooks, not timed.
import { PassThrough } from 'node:stream'
import type { ChildHandle } from 'dsh-core'
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node'
import { afterEach, describe, expect, it } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { LspConnection } from '../src/connection.ts'

const frame = (message: unknown) => {
  const body = JSON.stringify(message)
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

const opened: LspConnection[] = []
afterEach(() => {
  for (const connection of opened.splice(0)) connection.fail(new (class extends Error {})('test over') as never)
})

/** A connection over in-memory pipes, and the notifications it handed on. */
function connection() {
  const stdout = new PassThrough()
  const child = { pid: 1, stdin: new PassThrough(), stdout, exited: new Promise(() => {}), terminate: async () => {} } as unknown as ChildHandle
  const seen: string[] = []
  // Resolved from the hook itself: a wait that polls would make promises of its own while counting.
  let wanted = { count: 0, resolve: () => {} }
  const reached = (count: number) => new Promise<void>((resolve) => (wanted = { count, resolve }))
  const connection = new LspConnection(child, 'fake', { maxMessageBytes: 1 << 20 }, {
    onServerRequest: () => null,
    onProgress: () => {},
    onNotification: (method, params) => {
      seen.push(`${method} ${(params as { message: string }).message}`)
      if (seen.length === wanted.count) wanted.resolve()
    },
  })
  opened.push(connection)
  return { stdout, seen, reached }
}

/** A bare vscode-jsonrpc client over in-memory pipes, listening for the notifications it has no handler for. */
function bareClient() {
  const stdout = new PassThrough()
  const rpc = createMessageConnection(new StreamMessageReader(stdout), new StreamMessageWriter(new PassThrough()))
  const seen: string[] = []
  let wanted = { count: 0, resolve: () => {} }
  const reached = (count: number) => new Promise<void>((resolve) => (wanted = { count, resolve }))
  rpc.onUnhandledNotification((message) => {
    seen.push(`${message.method} ${(message.params as { message: string }).message}`)
    if (seen.length === wanted.count) wanted.resolve()
  })
  rpc.listen()
  bare.push(rpc)
  return { stdout, seen, reached }
}
const bare: { dispose(): void }[] = []
afterEach(() => {
  for (const rpc of bare.splice(0)) rpc.dispose()
})

const COUNT = 100
const MESSAGES = Array.from({ length: COUNT }, (_, index) => ({ jsonrpc: '2.0', method: 'window/logMessage', params: { type: 3, message: `${index}` } }))

/** Promises made per notification while the client reads and hands on COUNT of them, written in one chunk after a warm-up one. */
async function promisesPerNotification(client: { stdout: PassThrough; seen: string[]; reached: (count: number) => Promise<void> }): Promise<number> {
  const first = client.reached(1)
  client.stdout.write(frame(MESSAGES[0]))
  await first
  const all = client.reached(COUNT + 1)
  const counting = countAsyncInits()
  client.stdout.write(MESSAGES.map(frame).join(''))
  await all
  const promises = counting.stop()
  expect(client.seen.slice(1)).toEqual(MESSAGES.map((message) => `window/logMessage ${message.params.message}`))
  return promises / COUNT
}

describe('a server notification handed to the instance', () => {
  it('costs no more promises than in a bare vscode-jsonrpc client: no wait on a handler (its reader and dispatch remain)', async () => {
    const ours = await promisesPerNotification(connection())
    const baseline = await promisesPerNotification(bareClient())
    // Awaiting a handler for each notification cost 2 more (18 against 16 with vscode-jsonrpc 10); the margin is for stray promises of the process.
    expect(ours).toBeLessThanOrEqual(baseline + 0.5)
  })
})
