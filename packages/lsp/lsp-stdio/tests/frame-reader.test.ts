// [PURE] The reader behind FrameGuard: each canonical frame parsed in the call that read its last
// byte and handed on in order, across any chunking (a UTF-8 character split between chunks too);
// a body that is not JSON is the reader's error, and nothing after it is read.
import { PassThrough } from 'node:stream'
import type { Message } from 'vscode-jsonrpc/node'
import { describe, expect, it } from 'vitest'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { FrameGuard } from '../src/frame-guard.ts'
import { FrameReader } from '../src/frame-reader.ts'

const frame = (message: object) => {
  const body = JSON.stringify(message)
  return Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
}

function rig() {
  const stdout = new PassThrough()
  const reader = new FrameReader(new FrameGuard(stdout, 'fake', 1_000_000))
  const messages: Message[] = []
  const errors: unknown[] = []
  reader.onError((error) => errors.push(error))
  reader.listen((message) => messages.push(message))
  return { stdout, messages, errors }
}

const A = { jsonrpc: '2.0', id: 1, result: { contents: 'π ≈ 3.14159 — “quoted” 🙂' } }
const B = { jsonrpc: '2.0', method: 'window/logMessage', params: { type: 3, message: 'x'.repeat(300) } }
const C = { jsonrpc: '2.0', id: 2, result: null }

describe('FrameReader', () => {
  it('hands on every message in order whatever the chunking: one chunk, byte by byte, each split point', () => {
    const bytes = Buffer.concat([frame(A), frame(B), frame(C)])
    const one = rig()
    one.stdout.write(bytes)
    expect(one.messages).toEqual([A, B, C])
    const bytewise = rig()
    for (let i = 0; i < bytes.length; i++) bytewise.stdout.write(bytes.subarray(i, i + 1))
    expect(bytewise.messages).toEqual([A, B, C])
    for (let split = 1; split < bytes.length; split++) {
      const two = rig()
      two.stdout.write(bytes.subarray(0, split))
      two.stdout.write(bytes.subarray(split))
      expect(two.messages, `split at ${split}`).toEqual([A, B, C])
      expect(two.errors).toEqual([])
    }
  })

  it('parses a message in the call that read its last byte, with no promise', () => {
    const { stdout, messages } = rig()
    const counting = countAsyncInits()
    stdout.write(Buffer.concat([frame(A), frame(C)]))
    // vscode-jsonrpc's reader: a semaphore turn, its thunk and two decode promises per message.
    expect(counting.stop()).toBe(0)
    expect(messages).toEqual([A, C])
  })

  it('a body that is not JSON is its error, and nothing after it is handed on', () => {
    const { stdout, messages, errors } = rig()
    stdout.write(Buffer.concat([frame(A), Buffer.from('Content-Length: 5\r\n\r\n{nope'), frame(C)]))
    expect(messages).toEqual([A])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(Error)
    stdout.write(frame(C))
    expect(messages).toEqual([A])
  })
})
