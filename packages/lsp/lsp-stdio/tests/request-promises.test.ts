// [PURE] The promises one request costs in our connection against a bare vscode-jsonrpc client over
// the same in-memory server (issue 27 item 2: one pull per change, one request per query; with the
// host's AsyncLocalStorage every promise pays Node's init hook). Counted with async_hooks, not timed.
import { PassThrough } from 'node:stream'
import type { ChildHandle } from 'dsh-core'
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node'
import { afterEach, describe, expect, it } from 'vitest'
import { asyncInitsOf } from '../../../../test-support/async-inits.ts'
import { LspConnection } from '../src/connection.ts'

const disposers: (() => void)[] = []
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose()
})

/** A server in this process answering every `test/echo` request with its params. */
function echoServer(): { stdin: PassThrough; stdout: PassThrough } {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const server = createMessageConnection(new StreamMessageReader(stdin), new StreamMessageWriter(stdout))
  server.onRequest('test/echo', (params) => params)
  server.listen()
  disposers.push(() => server.dispose())
  return { stdin, stdout }
}

function ours(): (params: unknown) => Promise<unknown> {
  const { stdin, stdout } = echoServer()
  const child = { pid: 1, stdin, stdout, exited: new Promise(() => {}), terminate: async () => {} } as unknown as ChildHandle
  const connection = new LspConnection(child, 'fake', { maxMessageBytes: 1 << 20 }, { onServerRequest: () => null, onProgress: () => {} })
  disposers.push(() => connection.fail(new (class extends Error {})('test over') as never))
  return (params) => connection.request('test/echo', params)
}

function bare(): (params: unknown) => Promise<unknown> {
  const { stdin, stdout } = echoServer()
  const rpc: MessageConnection = createMessageConnection(new StreamMessageReader(stdout), new StreamMessageWriter(stdin))
  rpc.listen()
  disposers.push(() => rpc.dispose())
  return (params) => rpc.sendRequest('test/echo', params)
}

async function promisesPerRequest(request: (params: unknown) => Promise<unknown>, types?: readonly string[]): Promise<number> {
  await request({ warm: true })
  const COUNT = 100
  const promises = await asyncInitsOf(async () => {
    for (let index = 0; index < COUNT; index++) expect(await request({ index })).toEqual({ index })
  }, types)
  return promises / COUNT
}

describe('one request to the server', () => {
  it('costs no more promises than a bare vscode-jsonrpc client sending it (our writer pays for the deadline, the signal and the error translation)', async () => {
    const ourCount = await promisesPerRequest(ours())
    const bareCount = await promisesPerRequest(bare())
    expect(ourCount).toBeLessThanOrEqual(bareCount)
  })
})

describe('reading the answer', () => {
  it('hands stdout\'s chunks to vscode-jsonrpc\'s reader without a stream between (no write, buffer and tick of a second stream per chunk)', async () => {
    // process.nextTick turns per request, the in-memory server's included: 8.03 with FrameGuard as a
    // Transform piped from stdout (its write's afterWrite tick, its readable side's), 6.03 without.
    const ticks = await promisesPerRequest(ours(), ['TickObject'])
    expect(ticks).toBeLessThanOrEqual(6.5)
  })
})
