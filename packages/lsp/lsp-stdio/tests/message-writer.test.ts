// [PURE] How a message reaches the server's stdin (issue 27 item 2, diagnostics after a change):
// vscode-jsonrpc's StreamMessageWriter queues every message behind a semaphore (a setImmediate turn
// and about ten promises each; three messages per change). Ours hands each frame to the pipe in the
// call that sends it, in one write, byte for byte the frame the library writes. Counted, not timed.
import { PassThrough, Writable } from 'node:stream'
import type { ChildHandle } from 'dsh-core'
import { StreamMessageWriter, type Message } from 'vscode-jsonrpc/node'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { LspConnection } from '../src/connection.ts'
import { PipeMessageWriter } from '../src/message-writer.ts'

const opened: LspConnection[] = []
afterEach(() => {
  for (const connection of opened.splice(0)) connection.fail(new (class extends Error {})('test over') as never)
})

/** A connection over in-memory pipes; `writes` holds each chunk handed to its stdin, as it is handed. */
function pipedConnection() {
  const stdin = new PassThrough()
  const writes: Buffer[] = []
  /** Whether each chunk was handed as bytes (a string is encoded again in the write). */
  const asBytes: boolean[] = []
  const write = stdin.write.bind(stdin) as (...args: unknown[]) => boolean
  stdin.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
    asBytes.push(Buffer.isBuffer(chunk))
    writes.push(Buffer.from(chunk as string, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8'))
    return write(chunk, ...rest)
  }) as typeof stdin.write
  stdin.resume()
  const child = { pid: 1, stdin, stdout: new PassThrough(), exited: new Promise(() => {}), terminate: async () => {} } as unknown as ChildHandle
  const connection = new LspConnection(child, 'fake', { maxMessageBytes: 1 << 20 }, { onServerRequest: () => null, onProgress: () => {} })
  opened.push(connection)
  return { connection, writes, asBytes }
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
  // Past the length up to which the frame's buffer is sized for the worst case (counted first), with
  // characters of 1 to 4 UTF-8 bytes and a lone surrogate (JSON.stringify escapes it).
  { textDocument: { uri: 'file:///w/big.ts', version: 3 }, contentChanges: [{ text: `${'aé€😀'.repeat(20_000)}\ud800` }] },
  // Just under it, all three-byte characters: the worst case exactly.
  { text: '€'.repeat((1 << 16) - 40) },
]

describe('a message to the server', () => {
  it('goes to the pipe in the call that sends it, one write per message, framed byte for byte as vscode-jsonrpc frames it', async () => {
    const { connection, writes, asBytes } = pipedConnection()
    const sent = PARAMS.map((params, index) => connection.notify(`test/${index}`, params))
    // Each frame one Buffer, its body encoded once (a string frame was counted, joined and encoded again in the write).
    expect(asBytes).toEqual(PARAMS.map(() => true))
    // Nothing awaited yet: each frame is already on the pipe (the library's writer waits a setImmediate turn for each).
    expect(writes).toHaveLength(PARAMS.length)
    await Promise.all(sent)
    expect(writes).toHaveLength(PARAMS.length)
    const expected = await libraryFrames(PARAMS.map((params, index) => ({ jsonrpc: '2.0', method: `test/${index}`, params }) as Message))
    expect(Buffer.concat(writes).equals(expected)).toBe(true)
  })

  it('costs at most four promises per notification, the caller\'s await included', async () => {
    const { connection } = pipedConnection()
    await connection.notify('test/warm', {})
    const COUNT = 100
    const counting = countAsyncInits()
    for (let index = 0; index < COUNT; index++) await connection.notify('test/n', { index })
    const promises = counting.stop()
    // 21 with vscode-jsonrpc's StreamMessageWriter and a Lifetime race for the bytes; 5 while the
    // writer made a promise for each notification's bytes.
    expect(promises / COUNT).toBeLessThanOrEqual(4)
  })

  it('makes no promise for a document\'s didChange and didSave without a signal, and they go before the request sent next', async () => {
    const { connection, writes } = pipedConnection()
    await connection.notify('test/warm', {})
    writes.length = 0
    const didChange = ['textDocument/didChange', PARAMS[0]] as const
    const didSave = ['textDocument/didSave', PARAMS[1]] as const
    const COUNT = 50
    const handed: Promise<void>[] = []
    const counting = countAsyncInits()
    for (let index = 0; index < COUNT; index++) handed.push(connection.notifyInOrder([didChange, didSave]))
    const promises = counting.stop()
    // 5 per change before (the wait's own promise, and for each notification vscode-jsonrpc's catch over
    // the write and the wait's then on it); the writer has settled a notification at once since 29713b3.
    expect(promises).toBe(0)
    const answer = connection.request('test/after', {})
    const frames = Buffer.concat(writes).toString('utf8')
    expect(frames.match(/"method":"[^"]+"/g)).toEqual([
      ...Array.from({ length: COUNT }, () => ['"method":"textDocument/didChange"', '"method":"textDocument/didSave"']).flat(),
      '"method":"test/after"',
    ])
    await Promise.all(handed)
    void answer.catch(() => {})
  })

  it('ends the connection when a notification without a signal cannot be written (the writer\'s onError), and later ones reject with that cause', async () => {
    // A pipe that refuses every write (as one the server closed: EPIPE).
    const stdin = new Writable({ write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) })
    let exit = (_: unknown) => {}
    const exited = new Promise((resolve) => (exit = resolve))
    const child = { pid: 1, stdin, stdout: new PassThrough(), exited, terminate: async () => exit({ code: null, signal: 'SIGTERM' }), stderrTail: () => '' } as unknown as ChildHandle
    const fatal: unknown[] = []
    const connection = new LspConnection(child, 'fake', { maxMessageBytes: 1 << 20 }, { onServerRequest: () => null, onProgress: () => {}, onFatal: (error) => fatal.push(error) })
    opened.push(connection)
    await expect(connection.notify('textDocument/didChange', PARAMS[0])).resolves.toBeUndefined()
    // The process does not exit by itself here: the failed write alone ends it (expectExit's grace, then terminate).
    await vi.waitFor(() => expect(fatal).toHaveLength(1), { timeout: 10_000 })
    expect(fatal[0]).toMatchObject({ code: 'LSP_SERVER_EXITED', message: expect.stringContaining('writing to the language server failed') })
    await expect(connection.notifyInOrder([['textDocument/didSave', PARAMS[1]]])).rejects.toBe(fatal[0])
  })

  it('makes no promise for a notification\'s bytes, one for a request\'s (the library rejects a request it could not write)', async () => {
    const pipe = new PassThrough()
    pipe.resume()
    const writer = new PipeMessageWriter(pipe)
    const notification = { jsonrpc: '2.0', method: 'textDocument/didChange', params: PARAMS[0] } as Message
    const request = { jsonrpc: '2.0', id: 1, method: 'textDocument/diagnostic', params: PARAMS[1] } as Message
    await writer.write(notification)
    await writer.write(request)
    const COUNT = 50
    const counting = countAsyncInits()
    const handed: Promise<void>[] = []
    for (let index = 0; index < COUNT; index++) handed.push(writer.write(notification))
    const forNotifications = counting.stop()
    const requestCounting = countAsyncInits()
    const written = writer.write(request)
    const forRequest = requestCounting.stop()
    expect(forNotifications).toBe(0)
    expect(forRequest).toBe(1)
    await Promise.all([...handed, written])
    writer.dispose()
  })

  it('reports a notification it could not write to onError, and its write still settles (no rejection a caller must catch)', async () => {
    const pipe = new PassThrough()
    const writer = new PipeMessageWriter(pipe)
    const reported: unknown[] = []
    writer.onError(([error]) => reported.push(error))
    pipe.destroy()
    await expect(writer.write({ jsonrpc: '2.0', method: 'test/after-close', params: {} } as Message)).resolves.toBeUndefined()
    await new Promise((resolve) => setImmediate(resolve))
    expect(reported).toHaveLength(1)
    expect(reported[0]).toMatchObject({ code: 'ERR_STREAM_DESTROYED' })
    // A request's write still rejects, so vscode-jsonrpc rejects the request (MessageWriteError).
    await expect(writer.write({ jsonrpc: '2.0', id: 7, method: 'test/request', params: {} } as Message)).rejects.toMatchObject({ code: 'ERR_STREAM_DESTROYED' })
    writer.dispose()
  })
})
