// [PURE] How a message reaches the server's stdin (issue 27 item 2, diagnostics after a change):
// vscode-jsonrpc's StreamMessageWriter queues every message behind a semaphore (a setImmediate turn
// and about ten promises each; three messages per change). Ours hands each frame to the pipe in the
// call that sends it, in one write, byte for byte the frame the library writes. Counted, not timed.
import { PassThrough } from 'node:stream'
import type { ChildHandle } from 'dsh-core'
import { StreamMessageWriter, type Message } from 'vscode-jsonrpc/node'
import { afterEach, describe, expect, it } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { LspConnection } from '../src/connection.ts'

const opened: LspConnection[] = []
afterEach(() => {
  for (const connection of opened.splice(0)) connection.fail(new (class extends Error {})('test over') as never)
})

/** A connection over in-memory pipes; `writes` holds each chunk handed to its stdin, as it is handed. */
function pipedConnection() {
  const stdin = new PassThrough()
  const writes: Buffer[] = []
  const write = stdin.write.bind(stdin) as (...args: unknown[]) => boolean
  stdin.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
    writes.push(Buffer.from(chunk as string, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8'))
    return write(chunk, ...rest)
  }) as typeof stdin.write
  stdin.resume()
  const child = { pid: 1, stdin, stdout: new PassThrough(), exited: new Promise(() => {}), terminate: async () => {} } as unknown as ChildHandle
  const connection = new LspConnection(child, 'fake', { maxMessageBytes: 1 << 20 }, { onServerRequest: () => null, onProgress: () => {} })
  opened.push(connection)
  return { connection, writes }
}

/** What vscode-jsonrpc's own writer puts on a pipe for `messages`, in order. */
async function libraryFrames(messages: readonly Message[]): Promise<Buffer> {
  const pipe = new PassThrough()
  const chunks: Buffer[] = []
  pipe.on('data', (chunk: Buffer) => chunks.push(chunk))
  const writer = new StreamMessageWriter(pipe)
  for (const message of messages) await writer.write(message)
  writer.dispose()
  return Buffer.concat(chunks)
}

const PARAMS = [
  { textDocument: { uri: 'file:///w/a.ts', version: 2 }, contentChanges: [{ text: 'const é = "ü"\n' }] },
  { textDocument: { uri: 'file:///w/%F0%9F%98%80.ts' }, text: 'emoji 😀 and \u2028 and "quotes"\r\n' },
  { changes: [{ uri: 'file:///w/b.ts', type: 2 }], nothing: null, absent: undefined },
]

describe('a message to the server', () => {
  it('goes to the pipe in the call that sends it, one write per message, framed byte for byte as vscode-jsonrpc frames it', async () => {
    const { connection, writes } = pipedConnection()
    const sent = PARAMS.map((params, index) => connection.notify(`test/${index}`, params))
    // Nothing awaited yet: each frame is already on the pipe (the library's writer waits a setImmediate turn for each).
    expect(writes).toHaveLength(PARAMS.length)
    await Promise.all(sent)
    expect(writes).toHaveLength(PARAMS.length)
    const expected = await libraryFrames(PARAMS.map((params, index) => ({ jsonrpc: '2.0', method: `test/${index}`, params }) as Message))
    expect(Buffer.concat(writes).equals(expected)).toBe(true)
  })

  it('costs at most five promises per notification written, the wait for its bytes and the caller\'s await included', async () => {
    const { connection } = pipedConnection()
    await connection.notify('test/warm', {})
    const COUNT = 100
    const counting = countAsyncInits()
    for (let index = 0; index < COUNT; index++) await connection.notify('test/n', { index })
    const promises = counting.stop()
    // 21 with vscode-jsonrpc's StreamMessageWriter and a Lifetime race for the bytes.
    expect(promises / COUNT).toBeLessThanOrEqual(5)
  })
})
